"""Several runs in one file: where a new measurement starts, and what tells the runs apart.

Scaling studies, parameter sweeps and repetitions append one likwid-perfctr run
after another to one log (sample 19: seven LULESH problem sizes; sample 20:
twenty likwid-bench repetitions); some programs print every region block twice
(sample 21).  :func:`plan_runs` reads the region blocks of a file, in order, by
these rules:

1. A block printed again *identically* (the same region, group and thread
   columns, every number equal) is one measurement printed twice: it is read
   once, with a note in ``run.warnings``.
2. The file is cut into segments at every :class:`RunMark`: a likwid-perfctr
   CPU header (``CPU name:``), a separator line (``#### 2097152 ####``,
   ``=== 8 threads ===``, a line of ``#``) or a likwid-perfctr/likwid-mpirun
   command line.
3. A segment that measures a (region, group, thread) the current run already
   holds starts a new run; any other segment belongs to the current run (the
   MEM_DP and the FLOPS_DP run of one job in one slurm log are joined, as
   ever).  A block inside a segment that repeats a row of the current run
   starts a new run at that block.

A file that repeats its CPU header before every region (``likwid-perfctr -o``)
has one block per segment: there, a region first measured in a later run
joins the run before it (nothing in the file says where that run starts);
the regions both runs measure are split right.

Each run of a file of several gets a :class:`RunInfo`: its number, its lines,
and a label ``<file>#<n>`` followed by what differs between the runs where the
file says it: the thread count, the separator's text, the command line, or
the first line of the program's output after the run's start that has the
same words in every run but other numbers (``Running problem size 90^3 per
domain until completion``).  The marks are read by :mod:`~roofline_widget.io.run_marks`.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from roofline_widget.errors import LikwidFormatError
from roofline_widget.io.key_codes import column_codes, duplicated, integer_codes
from roofline_widget.io.run_marks import RunMark

if TYPE_CHECKING:
    from roofline_widget.io.blocks import RegionBlock

__all__ = ["DETAIL_CHARACTERS", "TELLING_NUMBERS", "RunInfo", "RunPlan", "differing_words",
           "plan_runs"]

#: The longest detail (separator text, command, output line) a run label shows.
DETAIL_CHARACTERS = 60
#: Distinct non-zero numbers an Event or Metric table must hold for the same table under
#: another region's name to be an error (a real table holds dozens: cycles, instructions,
#: runtimes, rates per thread; a table of zeros or of one repeated value tells nothing).
TELLING_NUMBERS = 5

_NUMBERS = re.compile(r"[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
@dataclass(frozen=True)
class RunInfo:
    """Where one run of a file of several sits, and what sets it apart.

    Attributes
    ----------
    number : int
        1-based position of the run in its file.
    count : int
        How many runs the file holds.
    first_line, last_line : int
        1-based lines of its first and last region block header.
    threads : int
        Per-thread columns of its widest block.
    marks : tuple of RunMark
        What the file printed between the previous run and this one.
    detail : str
        What differs from the other runs, as the file says it (``""`` when
        nothing does).
    """

    number: int
    count: int
    first_line: int
    last_line: int
    threads: int
    marks: tuple[RunMark, ...] = ()
    detail: str = ""

    def label_for(self, stem: str) -> str:
        """The run's label: ``<stem>#<number>``, then `` (<detail>)`` when there is one.

        Examples
        --------
        >>> RunInfo(2, 7, 1925, 3174, 1, detail="8 threads").label_for("lulesh")
        'lulesh#2 (8 threads)'
        """
        return f"{stem}#{self.number}" + (f" ({self.detail})" if self.detail else "")


@dataclass
class RunPlan:
    """The blocks of a file, split into runs.

    Attributes
    ----------
    blocks : list of RegionBlock
        The blocks kept (identical repeats dropped), in file order.
    bounds : list of (int, int)
        Per run, the slice of :attr:`blocks` it holds.
    infos : list of RunInfo
        Per run of a file of several, its :class:`RunInfo`; empty for one run.
    notes : list of str
        One per block read once although printed twice.
    """

    blocks: list
    bounds: list[tuple[int, int]] = field(default_factory=list)
    infos: list[RunInfo] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _same_numbers(a, b) -> bool:
    def equal(x, y) -> bool:
        if x is None or y is None:
            return x is y
        if np.shape(x) != np.shape(y) or not np.size(x):  # two empty tables (a -O file's) are equal
            return np.shape(x) == np.shape(y)
        return np.array_equal(x, y, equal_nan=True)

    return (a.event_names == b.event_names and a.metric_names == b.metric_names
            and equal(a.events, b.events) and equal(a.metrics, b.metrics)
            and equal(a.runtime, b.runtime) and equal(a.call_count, b.call_count)
            and a.stats == b.stats)


def _same_counts(a, b) -> bool:
    """Whether two blocks hold the same Event table, one that tells a measurement (enough
    distinct non-zero counts: see :data:`TELLING_NUMBERS`)."""
    if a.event_names != b.event_names or a.events.shape != b.events.shape \
            or a.events.size < TELLING_NUMBERS:  # too few numbers to tell (a -O file's: none)
        return False
    return (np.array_equal(a.events, b.events, equal_nan=True)  # the cheaper test first
            and len(np.unique(a.events[np.isfinite(a.events) & (a.events != 0)])) >= TELLING_NUMBERS)


def _row_keys(block) -> list[tuple]:
    return [(block.region, block.group, t.label) for t in block.threads]


def _telling(values: np.ndarray) -> bool:
    """Whether a table holds at least :data:`TELLING_NUMBERS` distinct non-zero numbers (fewer
    cannot tell two regions apart: two empty regions print the same zeros)."""
    if values.size < TELLING_NUMBERS:  # an empty table (a -O file's blocks hold none)
        return False
    telling = values[np.isfinite(values) & (values != 0)]
    return len(telling) >= TELLING_NUMBERS and len(np.unique(telling)) >= TELLING_NUMBERS


def _drop_repeats(blocks: list, source: str) -> tuple[list, list[str]]:
    """Rule 1: every block identical to the last one of its key is dropped, with a note.

    A block with the counts of the last one of its key but other numbers
    (metrics, runtime) cannot be a measurement either: the metrics are
    computed from the counts, so rows of another table are among its own.

    The same Event or Metric table under another region's header cannot be a
    measurement (no two regions count the same cycles, instructions and
    runtimes on every thread): the table of one region under the header of
    another, a damaged file.  That is an error, never a point.  Tables are
    found again by a hash of their numbers (then compared in full), so that
    only a table printed again costs more than a look-up.
    """
    last: dict[tuple, RegionBlock] = {}
    numbers: dict[tuple, RegionBlock] = {}  # a table -> its first block
    keys: dict[int, tuple] = {}  # a list of names or threads -> (a key of it, the list)
    kept, notes = [], []
    for block in blocks:
        found = keys.get(id(block.threads))
        if found is None or found[1] is not block.threads:  # blocks share their lists
            found = keys[id(block.threads)] = (tuple(t.label for t in block.threads),
                                               block.threads)
        threads = found[0]
        key = (block.region, block.group_index, block.group, threads)
        previous = last.get(key)
        if previous is not None and _same_numbers(block, previous):
            notes.append(f"line {block.line}: region {block.region!r} (group {block.group}) is "
                         f"printed again, identical to line {previous.line} (every number "
                         "equal): one measurement printed twice, read once")
            continue
        if previous is not None and _same_counts(block, previous):
            raise LikwidFormatError(
                source, block.line, f"region {block.region!r} printed again with the metrics "
                f"of its counts at line {previous.line} (the metrics are computed from the "
                "counts); these counts are the same, the metrics are not: rows of another "
                "table among its own (a damaged file)", block.region)
        for table, names, values in (("Event", block.event_names, block.events),
                                     ("Metric", block.metric_names, block.metrics)):
            found = keys.get(id(names))
            if found is None or found[1] is not names:
                found = keys[id(names)] = (tuple(names), names)
            twin = numbers.setdefault((table, threads, found[0], hash(values.tobytes())), block)
            if twin is not block and twin.region != block.region and _telling(values) \
                    and (twin.events if table == "Event" else twin.metrics).tobytes() \
                    == values.tobytes():
                raise LikwidFormatError(
                    source, block.line, f"an {table} table of region {block.region!r} of its "
                    f"own; this one holds every number of region {twin.region!r}'s (line "
                    f"{twin.line}): a region header above another region's table (a damaged "
                    "file)", block.region)
        last[key] = block
        kept.append(block)
    return kept, notes


def _codes(lists: list, what=lambda item: item) -> list[int]:
    """One number per distinct list (blocks share their lists: each is read once)."""
    by_id: dict[int, int] = {}
    numbers: dict[tuple, int] = {}
    out = []
    for items in lists:
        code = by_id.get(id(items))
        if code is None:
            code = by_id[id(items)] = numbers.setdefault(tuple(map(what, items)), len(numbers))
        out.append(code)
    return out


def _nothing_repeats(blocks: list) -> bool:
    """Whether no block, table or row repeats another's (rules 1 to 3 then find one run): told
    with integer codes, not block by block."""
    if not blocks:
        return False
    threads = np.array(_codes([b.threads for b in blocks], lambda t: t.label), dtype=np.int64)
    regions = _text_codes([b.region for b in blocks])
    groups = _text_codes([b.group for b in blocks])
    counts = np.array([len(b.threads) for b in blocks], dtype=np.intp)
    names = np.array(_codes([b.event_names for b in blocks] + [b.metric_names for b in blocks]),
                     dtype=np.int64)
    numbers = integer_codes(np.array([hash(b.events.tobytes()) for b in blocks]
                                     + [hash(b.metrics.tobytes()) for b in blocks], dtype=np.int64))
    kinds = np.repeat(np.arange(2, dtype=np.int64), len(blocks))
    labels = _text_codes([t.label for b in blocks for t in b.threads])
    indices = integer_codes(np.array([b.group_index for b in blocks], dtype=np.int64))
    return not (duplicated([regions, groups, threads, indices]).any()
                or duplicated([np.repeat(regions, counts), np.repeat(groups, counts), labels]).any()
                or duplicated([np.tile(threads, 2), names, numbers, kinds]).any())


def _text_codes(texts: list[str]) -> np.ndarray:
    """One code (0 or more) per distinct text (:func:`column_codes`)."""
    return column_codes(np.array(texts, dtype=object))[0]


def _cuts(blocks: list, marks: Sequence[RunMark]) -> list[int]:
    """Rules 2 and 3: the indices of the blocks that start a run (0 first)."""
    mark_lines = [m.line for m in marks]
    segment = [bisect.bisect_left(mark_lines, b.line) for b in blocks]
    starts = [0]
    seen: set[tuple] = set()
    for index, block in enumerate(blocks):
        keys = _row_keys(block)
        if index > starts[-1] and not seen.isdisjoint(keys):
            first_of_segment = index
            while first_of_segment > starts[-1] and segment[first_of_segment - 1] == segment[index]:
                first_of_segment -= 1
            cut = first_of_segment if first_of_segment > starts[-1] else index
            starts.append(cut)
            seen = {key for b in blocks[cut:index] for key in _row_keys(b)}
        seen.update(keys)
    return starts


def _shape(line: str) -> str:
    return _NUMBERS.sub("#", line)


def _differing_line(contexts: list[list[str]]) -> int | None:
    """The position of the first output line with the same words in every run and other numbers."""
    for position in range(min(map(len, contexts), default=0)):
        lines = [c[position] for c in contexts]
        if len(set(lines)) > 1 and len({_shape(line) for line in lines}) == 1:
            return position
    return None


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= DETAIL_CHARACTERS else text[:DETAIL_CHARACTERS - 3] + "..."


def differing_words(texts: Sequence[str]) -> list[str]:
    """Each text cut to the words in which the texts differ, and the word before them.

    The words every text starts with (but the last of them) and the words
    every text ends with are dropped; the texts keep their order.

    Examples
    --------
    >>> differing_words(["Running problem size 30^3 per domain until completion",
    ...                  "Running problem size 350^3 per domain until completion"])
    ['size 30^3', 'size 350^3']
    >>> differing_words(["likwid-perfctr -C 0-3 -g MEM_DP -m ./app --variant give",
    ...                  "likwid-perfctr -C 0-3 -g MEM_DP -m ./app --variant take"])
    ['--variant give', '--variant take']
    """
    words = [t.split() for t in texts]
    if not words:
        return []
    shortest = min(map(len, words))
    prefix = next((k for k in range(shortest) if len({w[k] for w in words}) > 1), shortest)
    suffix = next((k for k in range(shortest - prefix) if len({w[-1 - k] for w in words}) > 1),
                  shortest - prefix)
    return [" ".join(w[max(prefix - 1, 0):len(w) - suffix]) for w in words]


def _distinct(values: list[str | None]) -> list[str | None]:
    """Texts too long for a label cut to the words that differ between them
    (:func:`differing_words`).

    ``likwid-perfctr -C 0-3 -g MEM_DP -m ./app --variant give`` and ``... take``
    become ``--variant give`` and ``--variant take``.
    """
    texts = [v for v in values if v is not None]
    if all(len(" ".join(t.split())) <= DETAIL_CHARACTERS for t in texts):
        return values
    cut = iter(differing_words(texts))
    return [None if v is None else next(cut) for v in values]


def _details(runs: list[list], gaps: list[list[RunMark]]) -> list[str]:
    """Per run what sets it apart, as the file says it (see the module docstring)."""
    parts: list[list[str]] = [[] for _ in runs]

    def add_if_differs(values: list[str | None]) -> None:
        if len(set(values)) > 1:
            for part, value in zip(parts, _distinct(values)):
                if value is not None:
                    part.append(_short(value))

    widths = [max(len(b.threads) for b in blocks) for blocks in runs]
    add_if_differs([f"{n} thread{'s' if n != 1 else ''}" for n in widths])
    add_if_differs([next((m.text for m in gap if m.kind == "separator" and m.text), None)
                    for gap in gaps])
    add_if_differs([next((m.text for m in gap if m.kind == "command"), None) for gap in gaps])
    if not any(parts):
        contexts = [[line for m in gap for line in m.context] for gap in gaps]
        position = _differing_line(contexts)
        if position is not None:
            add_if_differs([context[position] for context in contexts])
    return [", ".join(p) for p in parts]


def plan_runs(blocks: list, marks: Sequence[RunMark], source: str = "<string>") -> RunPlan:
    """Split a file's region blocks into its runs (see the module docstring).

    Parameters
    ----------
    blocks : list of RegionBlock
        Every block the parser read, in file order.
    marks : sequence of RunMark
        The marks the parser saw, in file order.
    source : str
        The file, for the error message.

    Returns
    -------
    RunPlan
        One run (no :class:`RunInfo`) when nothing repeats; else one
        :class:`RunInfo` per run.
    """
    if _nothing_repeats(blocks):  # a file of one run: told with pandas, not block by block
        return RunPlan(list(blocks), [(0, len(blocks))])
    kept, notes = _drop_repeats(list(blocks), source)
    plan = RunPlan(kept, notes=notes)
    if not kept:
        return plan
    starts = _cuts(kept, marks)
    plan.bounds = list(zip(starts, [*starts[1:], len(kept)]))
    if len(starts) == 1:
        return plan
    runs = [kept[a:b] for a, b in plan.bounds]
    mark_lines = [m.line for m in marks]
    gaps = []
    for number, run in enumerate(runs):
        after = runs[number - 1][-1].line if number else 0
        low = bisect.bisect_right(mark_lines, after)
        high = bisect.bisect_left(mark_lines, run[0].line)
        gaps.append(list(marks[low:high]))
    details = _details(runs, gaps)
    for number, (run, gap, detail) in enumerate(zip(runs, gaps, details), start=1):
        plan.infos.append(RunInfo(number, len(runs), run[0].line, run[-1].line,
                                  max(len(b.threads) for b in run), tuple(gap), detail))
    return plan
