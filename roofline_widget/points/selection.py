"""The request: :class:`Selection`, which points a call asks for, checked once.

Every public function that picks points (``points_dataframe``,
``rank_spread``, ``hierarchical_points``, ``compare_points``,
``plot_roofline``, ...) takes the selection as keywords *or* as one
``selection=Selection(...)``; both end in :meth:`Selection.of`, so each
argument is checked and normalised in one place: the rules of
:data:`roofline_widget.settings.SELECTION`.  What a selection gives, the
points and the left-out rows, is a
:class:`~roofline_widget.points.selected_points.SelectedPoints`.

Such a function is written with ``selection=None, **keywords:
Unpack[SelectionKeywords]``; :func:`selection_parameters` gives it the
keywords it takes (in its signature and ``help()``, with their texts from
:data:`PARAMETER_DOCS`) and refuses the others.  A new selection field is one
setting in :mod:`roofline_widget.settings.table`, one key of
:class:`SelectionKeywords` and one entry of :data:`PARAMETER_DOCS`.
"""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypedDict, TypeVar

import numpy as np

from roofline_widget.settings import SELECTION

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["PARAMETER_DOCS", "CommonSelectionKeywords", "Selection", "SelectionKeywords",
           "selection_parameters"]

_Function = TypeVar("_Function", bound=Callable)


class CommonSelectionKeywords(TypedDict, total=False):
    """The seven keywords every point-selecting function takes (``plot_roofline``'s too)."""

    flops_metric: str | None
    bandwidth_metric: str | None
    ranks: int | np.integer | Iterable[int | np.integer] | None
    include: str | re.Pattern[str] | Iterable[str | re.Pattern[str]] | None
    exclude: str | re.Pattern[str] | Iterable[str | re.Pattern[str]] | None
    group_ranks: str
    combine_ranks: bool


class SelectionKeywords(CommonSelectionKeywords, total=False):
    """The keywords that build a :class:`Selection`, each a setting of
    :data:`roofline_widget.settings.SELECTION`."""

    unmeasured: str
    levels: Mapping[str, str] | None


#: The keywords' annotations as written above (for the signatures :func:`selection_parameters` gives).
_ANNOTATIONS = {name: getattr(kind, "__forward_arg__", kind)
                for name, kind in SelectionKeywords.__annotations__.items()}


def _as_tuple(values: list | None) -> tuple | None:
    return None if values is None else tuple(values)


@dataclass(frozen=True, init=False)
class Selection:
    """Which points to compute: metrics, memory levels, ranks, regions, rank grouping.

    Immutable and checked when built; equal selections compare equal and
    hash alike.  Pass it as ``selection=`` to any public function instead of
    the keywords, or change one field with :func:`dataclasses.replace`.

    Parameters
    ----------
    {selection_parameters}

    Attributes
    ----------
    flops_metric, bandwidth_metric : str or None
    ranks : tuple of int or None
        Sorted, each rank once.
    include, exclude : tuple of re.Pattern or None
        Compiled; ``()`` selects no region, None every region.
    group_ranks : str
        One of ``"auto", "rank", "socket", "host", "all"``.
    combine_ranks : bool
        ``group_ranks == "all"`` (read-only; ``combine_ranks=True`` builds that).
    unmeasured : str
    levels : tuple of (str, str) or None
        The overrides as (level, metric) pairs (:attr:`level_overrides` as a dict).

    Raises
    ------
    SelectionError
        (a ``ValueError``) For invalid ranks, patterns, ``group_ranks``,
        ``combine_ranks``, ``unmeasured`` or ``levels``.
    TypeError
        For a metric name that is no string, or an unknown keyword.

    Examples
    --------
    >>> chosen = Selection(ranks=[3, 1, 3], include="Solve")
    >>> chosen.ranks, [p.pattern for p in chosen.include]
    ((1, 3), ['Solve'])
    >>> chosen == Selection(ranks=(1, 3), include=["Solve"])
    True
    """

    flops_metric: str | None
    bandwidth_metric: str | None
    ranks: tuple[int, ...] | None
    include: tuple[re.Pattern[str], ...] | None
    exclude: tuple[re.Pattern[str], ...] | None
    group_ranks: str
    unmeasured: str
    levels: tuple[tuple[str, str], ...] | None

    def __init__(self, **keywords: Unpack[SelectionKeywords]) -> None:
        unknown = [name for name in keywords if name not in SELECTION]
        if unknown:
            raise TypeError(f"Selection() got an unexpected keyword argument {unknown[0]!r}")
        given: dict[str, object] = {**{name: setting.default for name, setting in SELECTION.items()},
                                    **keywords}
        values = {name: SELECTION[name].check(value) for name, value in given.items()}
        if values.pop("combine_ranks"):
            values["group_ranks"] = "all"
        for name in ("ranks", "include", "exclude"):
            values[name] = _as_tuple(values[name])
        levels = values["levels"]
        values["levels"] = None if levels is None else tuple(levels.items())
        for name, value in values.items():
            object.__setattr__(self, name, value)

    @property
    def combine_ranks(self) -> bool:
        """Whether all ranks are summed per region (``group_ranks == "all"``)."""
        return self.group_ranks == "all"

    @property
    def level_overrides(self) -> dict[str, str] | None:
        """:attr:`levels` as a dict (level -> bandwidth metric), or None."""
        return None if self.levels is None else dict(self.levels)

    @classmethod
    def of(cls, selection: Selection | None = None, /,
           **keywords: Unpack[SelectionKeywords]) -> Selection:
        """The selection of one call: ``selection``, or one built from the keywords.

        A keyword that is not at its default next to a ``selection`` is
        ambiguous and refused.

        Raises
        ------
        TypeError
            For a ``selection`` that is no :class:`Selection`, or one given
            together with keywords.
        """
        if selection is None:
            return cls(**keywords)
        if not isinstance(selection, Selection):
            raise TypeError(f"selection must be a Selection, got {type(selection).__name__}")
        given = [name for name, value in keywords.items() if not _is_default(name, value)]
        if given:
            raise TypeError(f"pass the selection either as selection= or as keywords, not both "
                            f"(got selection= and {', '.join(given)}=); change a field with "
                            "dataclasses.replace(selection, ...)")
        return selection


def _is_default(name: str, value: object) -> bool:
    default = SELECTION[name].default
    return value is default or (isinstance(value, str) and value == default)


# --------------------------------------------------------------------------
# the parameter texts, written once
# --------------------------------------------------------------------------
#: numpydoc entries of the selection parameters, keyed by the names they document.
PARAMETER_DOCS: dict[str, str] = {
    "selection": """\
selection : Selection, optional
    The whole selection as one object (:class:`~roofline_widget.Selection`)
    instead of the keywords below; giving both is a ``TypeError``.""",
    "flops_metric, bandwidth_metric": """\
flops_metric, bandwidth_metric : str, optional
    Exact LIKWID derived-metric names.  When omitted, ONE FLOP metric
    (double precision total preferred) and the TOTAL memory bandwidth are
    detected for the whole call.""",
    "flops_metric": """\
flops_metric : str, optional
    Exact FLOP-rate metric name; detected once for the call when omitted.""",
    "levels": """\
levels : dict, optional
    ``{"L2": "exact metric name", ...}``: override the detected bandwidth
    metric of some memory levels (see
    :func:`~roofline_widget.analysis.levels.detect_levels`).""",
    "ranks": """\
ranks : int, iterable of int, or None
    Ranks to keep (numpy integers accepted); None keeps all.  Ranks absent
    from the data are named in a ``SelectionWarning``.""",
    "include, exclude": """\
include, exclude : str, re.Pattern, or a list of them, optional
    Regular expressions matched at the start of region names
    (:func:`re.match`); a region is kept when it matches some ``include``
    pattern (None: every region; ``[]``: none) and no ``exclude`` pattern.
    Matching the names may take about one second of CPU time
    (:data:`~roofline_widget.settings.patterns.MATCH_SECONDS`): a pattern
    that backtracks catastrophically raises ``SelectionError``.""",
    "combine_ranks": """\
combine_ranks : bool, default False
    Sum the selected ranks' rows per (run, region, device): one point per
    region for the whole job, rank ``-1``.  Each metric is the sum over ranks
    of its per-rank sums, the intensity the ratio of the totals; runtime and
    call count are the max over ranks, ``n_threads`` the sum.  ``ranks``
    applies before combining.  The same as ``group_ranks="all"``.""",
    "group_ranks": """\
group_ranks : {"auto", "rank", "socket", "host", "all"}, default "auto"
    Which ranks a point sums (a process per rank, as likwid-mpirun runs
    them, counts memory traffic on one rank per socket only).  ``"auto"``:
    by socket (host and the socket of the rank's cpus from the log's
    likwid-topology block; by host when there is none; all ranks when the
    data names no host) in a run whose bandwidth metric is non-zero on some
    ranks and zero on others, one point per rank elsewhere; ``"rank"``: one
    point per rank; ``"socket"``, ``"host"``: group every run so; ``"all"``:
    one point per region (``combine_ranks=True``).  A grouped point names
    its ranks in ``rank_group`` (``"f0472 socket 0 (ranks 0-23)"``); its
    rank is ``-1`` when it sums every rank of its run, else the lowest rank
    it sums (two sockets: two keys).""",
    "unmeasured": """\
unmeasured : {"leave_out", "keep"}, default "leave_out"
    A row with a thread whose FLOP or bandwidth value is not finite (LIKWID
    printed ``-``, ``nan``, ``inf``) is left out with the reason ``"thread
    HWThread 14 not measured (<metric>)"``; ``"keep"`` places it with the
    sums over the measured threads and counts the others in the points'
    ``unmeasured_threads`` column.""",
}

_MARKER = "{selection_parameters}"


def _entry_names(entry: str) -> list[str]:
    return [name.strip() for name in entry.split(",")]


def selection_parameters(*entries: str) -> Callable[[_Function], _Function]:
    """Decorator: give a selecting function the keywords of ``entries`` and their texts.

    A function written with ``**keywords: Unpack[SelectionKeywords]`` gets the
    keywords the ``entries`` name in its signature (keyword-only, with the
    settings' defaults: ``help()`` and :func:`inspect.signature` show them),
    and any other keyword is Python's own ``TypeError``.  A function with
    explicit parameters must have every parameter an entry documents
    (checked when the module is imported).  Either way the docstring's line
    ``{selection_parameters}`` is replaced by the entries' texts, indented as
    that line.

    Examples
    --------
    >>> @selection_parameters("ranks")
    ... def count(data, *, selection=None, **keywords):
    ...     '''Count.
    ...
    ...     Parameters
    ...     ----------
    ...     {selection_parameters}
    ...     '''
    ...     return Selection.of(selection, **keywords).ranks
    >>> count(None, ranks=[3, 1]), "Ranks to keep" in count.__doc__
    ((1, 3), True)
    >>> list(inspect.signature(count).parameters)
    ['data', 'selection', 'ranks']
    """
    unknown = [entry for entry in entries if entry not in PARAMETER_DOCS]
    if unknown:
        raise KeyError(f"no parameter text for {unknown}; texts: {list(PARAMETER_DOCS)}")
    names = [name for entry in entries for name in _entry_names(entry)]

    def decorate(function: _Function) -> _Function:
        signature = inspect.signature(function)
        function.__doc__ = fill_parameters(function.__doc__ or "", entries)
        kept = [p for p in signature.parameters.values() if p.kind is not p.VAR_KEYWORD]
        if len(kept) == len(signature.parameters):  # explicit parameters: documented only
            missing = [name for name in names if name not in signature.parameters]
            if missing:
                raise TypeError(f"{function.__qualname__} documents {missing} but has no such "
                                "parameter")
            return function
        added = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY,
                                   default=SELECTION[name].default, annotation=_ANNOTATIONS[name])
                 for name in names if name not in signature.parameters]
        public = signature.replace(parameters=[*kept, *added])
        accepted = frozenset(p.name for p in public.parameters.values()
                             if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))

        @functools.wraps(function)
        def checked(*args, **kwargs):
            for name in kwargs:
                if name not in accepted:
                    raise TypeError(f"{function.__qualname__}() got an unexpected keyword "
                                    f"argument {name!r}")
            return function(*args, **kwargs)

        checked.__signature__ = public  # type: ignore[attr-defined]
        return checked  # type: ignore[return-value]

    return decorate


def fill_parameters(docstring: str, entries: tuple[str, ...] | list[str]) -> str:
    """``docstring`` with its ``{selection_parameters}`` line replaced by the ``entries``' texts."""
    lines = docstring.split("\n")
    for number, line in enumerate(lines):
        if line.strip() == _MARKER:
            indent = line[:len(line) - len(line.lstrip())]
            text = "\n".join(PARAMETER_DOCS[entry] for entry in entries)
            lines[number] = "\n".join(indent + part if part else part
                                      for part in text.split("\n"))
            return "\n".join(lines)
    raise ValueError(f"the docstring has no line {_MARKER!r} to put the parameter texts in")


_SELECTION_ENTRIES = ["flops_metric, bandwidth_metric", "ranks", "include, exclude", "group_ranks",
                      "combine_ranks", "unmeasured", "levels"]
Selection.__doc__ = fill_parameters(Selection.__doc__ or "", _SELECTION_ENTRIES)
# help(), inspect.signature and the API pages show the keywords, not **keywords
Selection.__signature__ = inspect.Signature([  # type: ignore[attr-defined]
    inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=SELECTION[name].default,
                      annotation=_ANNOTATIONS[name])
    for entry in _SELECTION_ENTRIES for name in _entry_names(entry)])
