"""Every user setting, defined once: :data:`SETTINGS` (and :data:`SELECTION`, what a Selection holds).

A :class:`Setting` is a name, a default, a unit, a line of help and the rule
its values follow (:mod:`.rules`).  The widget's traits
(:class:`~roofline_widget.widget.traits.SettingTrait`), the fields of a
:class:`~roofline_widget.View`, a :class:`~roofline_widget.Selection`, the
command line's options and ``plot_roofline``'s keywords check a value with
:meth:`Setting.check`, so each rule has one home and one message.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from roofline_widget.errors import SelectionError, SettingError
from roofline_widget.schema import GROUP_RANKS_CHOICES, STUDY_KEYS
from roofline_widget.settings import rank_text, rules
from roofline_widget.settings.patterns import compile_patterns

__all__ = ["COLOR_CHOICES", "DEFAULT_MAX_POINTS", "GROUP_RUNS_CHOICES", "MAX_POINTS", "MAX_SWEEP_STEP",
           "PEAK_LIMITS", "RANK_VIEW_CHOICES", "SELECTION", "SETTINGS", "SIZE_CHOICES",
           "UNMEASURED_CHOICES", "Setting", "check"]

#: The range of a peak (or a ceiling's value) a user gives, in GFLOP/s or GB/s (1 kFLOP/s to
#: 1 ZFLOP/s): every ridge point and axis limit of two such peaks is a finite number.
PEAK_LIMITS = (1e-6, 1e9)
#: The point budget: WebGL draws this many in about a second (docs/performance.md).
DEFAULT_MAX_POINTS = 50_000
#: The largest ``max_points``.
MAX_POINTS = 10**9
#: What the points' colours can tell apart ("device": the device family, CPU, NVIDIA or AMD GPU).
COLOR_CHOICES = ("region", "run", "rank", "device")
SIZE_CHOICES = ("none", "runtime")
#: The values of ``rank_view``: a point per rank, the spread per region, or "spread" while
#: more points than ``max_points`` come from several ranks.
RANK_VIEW_CHOICES = ("points", "spread", "auto")
#: The values of ``group_runs_by``: what a sweep's runs are grouped by ("": as
#: ``scaling_table`` groups them); a widget takes those its runs differ in.
GROUP_RUNS_CHOICES = ("", *STUDY_KEYS)
#: The largest ``sweep_step`` (-1: the last step; a widget takes the steps its sweep has).
MAX_SWEEP_STEP = 100_000
#: The values of ``unmeasured``: leave out a row with a thread not measured, or keep it marked.
UNMEASURED_CHOICES = ("leave_out", "keep")


@dataclass(frozen=True)
class Setting:
    """One user setting: its name, default, unit, help and rule.

    Attributes
    ----------
    name : str
        The keyword, trait and view field (``peak_flops``; the option ``--peak-flops``).
    default : object
        The value when none is given.
    help : str
        One line, for the trait's metadata and ``--help``.
    rule : callable
        ``rule(name, value)``: the value to use, or a :class:`SettingError` (:mod:`.rules`).
    unit : str
        The unit of a number (``"GFLOP/s"``), ``""`` for none.
    optional : bool
        Whether None is a value (a metric detected, a peak empirical, every rank).
    error : type
        The error class raised (:class:`SelectionError` for the fields of a Selection).
    choices : tuple of str
        The values of an enumeration (menus, ``--help``), ``()`` otherwise.
    """

    name: str
    default: object
    help: str
    rule: rules.Rule
    unit: str = ""
    optional: bool = False
    error: type[SettingError] = SettingError
    choices: tuple[str, ...] = ()

    def check(self, value: object) -> Any:
        """``value`` checked and normalised (None passes when the setting is optional).

        Raises
        ------
        SettingError
            (a ``ValueError``, of :attr:`error`'s class) with the broken rule's sentence.
        TypeError
            For a metric name that is no string.
        """
        if value is None and self.optional:
            return None
        try:
            return self.rule(self.name, value)
        except SettingError as exc:
            if type(exc) is self.error:
                raise
            raise self.error(str(exc)) from None


def _compiled(name: str, value: object) -> object:
    return compile_patterns(value, name)


def _choice(name: str, default: str, help: str, choices: tuple[str, ...],
            error: type[SettingError] = SettingError) -> Setting:
    return Setting(name, default, help, rules.choice(choices), error=error, choices=choices)


def _peak(name: str, unit: str, base: str, what: str) -> Setting:
    return Setting(name, None, f"{what} in {unit}; None: the ceilings given, else the largest "
                   "observation (empirical)", rules.number(unit=unit, base=base,
                                                            limits=PEAK_LIMITS),
                   unit=unit, optional=True)


def _patterns(name: str, shown: str, *, compiled: bool) -> Setting:
    """A text ("": no filter) or, in a Selection, compiled patterns (None: no filter)."""
    return Setting(name, None if compiled else "", f"regular expression(s) of the regions "
                   f"{shown}, matched at the name's start", _compiled if compiled
                   else rules.pattern_text, optional=compiled, error=SelectionError)


_METRICS = [Setting(f"{kind}_metric", None, f"exact LIKWID {text} metric name; None: detected",
                    rules.metric_name, optional=True, error=SelectionError)
            for kind, text in (("flops", "FLOP-rate"), ("bandwidth", "bandwidth"))]
_SHARED = [
    *_METRICS,
    Setting("ranks", None, "MPI ranks to show, or a text of them: \"0-71,144\", \"f0702 socket 1\"; "
            "None: all", rank_text.ranks, optional=True, error=SelectionError),
    _choice("group_ranks", "auto", "which ranks a point sums", GROUP_RANKS_CHOICES,
            SelectionError),
    Setting("combine_ranks", False, "one point per region: the ranks summed (group_ranks='all')",
            rules.flag, error=SelectionError),
]

#: The settings of the widget, a view, plot_roofline and the command line, by name.
SETTINGS: dict[str, Setting] = {setting.name: setting for setting in (
    *_SHARED,
    _patterns("include", "to show", compiled=False),
    _patterns("exclude", "to hide", compiled=False),
    _peak("peak_flops", "GFLOP/s", "FLOP/s", "the main compute roof"),
    _peak("peak_bandwidth", "GB/s", "B/s", "the main bandwidth roof"),
    _choice("color_by", "region", "what the points' colours tell apart", COLOR_CHOICES),
    _choice("size_by", "none", "what the points' sizes show", SIZE_CHOICES),
    Setting("max_points", DEFAULT_MAX_POINTS, "most points drawn (the longest-running first)",
            rules.integer(1, MAX_POINTS)),
    Setting("levels", (), "memory levels drawn as a hierarchical roofline (L1, L2, L3, MEM)",
            rules.level_names),
    _choice("rank_view", "auto", "points: one per rank; spread: per region", RANK_VIEW_CHOICES),
    Setting("sweep_step", -1, "the step of a sweep whose points are ringed (-1: the last)",
            rules.integer(-1, MAX_SWEEP_STEP)),
    _choice("group_runs_by", "", "the key a sweep's runs are grouped by ('': as scaling_table)",
            GROUP_RUNS_CHOICES),
    Setting("fail_below", None, "the speed-up below which a region counts as a regression",
            rules.number(), optional=True),
)}


#: The fields of a :class:`~roofline_widget.Selection`: compiled patterns, and ``levels``
#: as the bandwidth metric of each memory level.
SELECTION: dict[str, Setting] = {setting.name: setting for setting in (
    *_SHARED,
    _patterns("include", "to select", compiled=True),
    _patterns("exclude", "to leave out", compiled=True),
    _choice("unmeasured", "leave_out", "a row with a thread not measured: left out or kept",
            UNMEASURED_CHOICES, SelectionError),
    Setting("levels", None, "memory level -> the bandwidth metric used for it",
            rules.level_metrics, optional=True, error=SelectionError),
)}


def check(name: str, value: object) -> Any:
    """``SETTINGS[name].check(value)``: the value checked by the setting's rule."""
    return SETTINGS[name].check(value)
