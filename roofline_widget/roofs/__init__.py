"""The roofs of a roofline: one roof and what it bounds, which roofs judge a point, the lines drawn.

:mod:`.roof` holds :class:`ComputeRoof` and :class:`BandwidthRoof`;
:mod:`.judging` which roofs judge a point (its level, device, precision);
:mod:`.lines` the drawable lines; :mod:`.plot_roofs` the roofs a plot draws
(measured ceilings replace the empirical ones).  The set of roofs,
:class:`~roofline_widget.ceilings.Roofline`, is built on them in
:mod:`roofline_widget.ceilings`.
"""

from roofline_widget.roofs.roof import BandwidthRoof, ComputeRoof

__all__ = ["BandwidthRoof", "ComputeRoof"]
