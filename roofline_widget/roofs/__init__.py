"""The roofs of a roofline: one roof and what it bounds, which roofs judge a point, the lines drawn.

:mod:`.roof` holds :class:`ComputeRoof` and :class:`BandwidthRoof`;
:mod:`.judging` which roofs judge a point (its level, device, precision);
:mod:`.lines` the drawable lines; :mod:`.plot_roofs` the roofs a plot draws
(measured ceilings replace the empirical ones); :mod:`.roofline` the set of
roofs of a plot, :class:`Roofline`, built on them.
"""

from roofline_widget.roofs.roof import BandwidthRoof, ComputeRoof
from roofline_widget.roofs.roofline import Roofline

__all__ = ["BandwidthRoof", "ComputeRoof", "Roofline"]
