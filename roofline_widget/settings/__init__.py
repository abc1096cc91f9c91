"""Every user setting, defined once: its type, range, unit, help and the rules of its values.

A setting (``peak_flops``, ``max_points``, ``ranks``, ``levels``, ...) is one
:class:`Setting` of :data:`SETTINGS`; the widget's traits, a saved
:class:`~roofline_widget.View`, a :class:`~roofline_widget.Selection`, the
command line's options and ``plot_roofline``'s keywords all check a value
through it, so each rule has one home and one message
(``"peak_flops is in GFLOP/s; 5e9 looks like FLOP/s"``).

* :mod:`.rules`: the rules, each raising one sentence;
* :mod:`.patterns`: region-name patterns compiled within bounds and matched
  under a time budget;
* :mod:`.table`: :data:`SETTINGS` and :data:`SELECTION`, the settings themselves.
"""

from __future__ import annotations

from roofline_widget.settings.patterns import MATCH_SECONDS, compile_patterns, names_selected
from roofline_widget.settings.rules import MAX_RANK, shown
from roofline_widget.settings.table import (
    COLOR_CHOICES,
    DEFAULT_MAX_POINTS,
    MAX_POINTS,
    PEAK_LIMITS,
    RANK_VIEW_CHOICES,
    SELECTION,
    SETTINGS,
    SIZE_CHOICES,
    UNMEASURED_CHOICES,
    Setting,
    check,
)

__all__ = ["COLOR_CHOICES", "DEFAULT_MAX_POINTS", "MATCH_SECONDS", "MAX_POINTS", "MAX_RANK",
           "PEAK_LIMITS", "RANK_VIEW_CHOICES", "SELECTION", "SETTINGS", "SIZE_CHOICES",
           "UNMEASURED_CHOICES", "Setting", "check", "compile_patterns", "names_selected", "shown"]
