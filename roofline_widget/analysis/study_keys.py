"""What sets the runs of a study apart: threads, ranks, problem size, case (:func:`study_keys`).

A scaling study or a sweep is many runs of one program; what differs between
them is in the data (threads per rank, ranks) and in the words the file or
the user gave them: the run's detail (:attr:`~roofline_widget.io.runs.RunInfo.detail`:
``"8 threads"``, ``"Running problem size 90^3 per domain until completion"``,
the command line ``likwid-perfctr -C 0-7 -g MEM_DP -m ./lulesh2.0 -c sedov``)
or, for runs read from separate files, their labels (``..._compact8t_1537x2048_give``).

The texts are cut into words (at blanks and underscores).  Where every run
has as many words, the words that differ between runs are the keys; a word
that varies together with the thread count (``-C 0-7``, ``compact8t``) or
the rank count says nothing more and is dropped.  A key is the problem
**size** when its name (the word before it: ``size``, ``-s``, ``-n``, ...)
says so or its values look like sizes (``90^3``, ``1537x2048``); any other
is the **case** (``-c sedov``).  Texts of different lengths are one case,
cut to the words that differ (:func:`~roofline_widget.io.runs.differing_words`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from roofline_widget.io.key_codes import column_codes
from roofline_widget.io.runs import differing_words
from roofline_widget.model import LikwidRun
from roofline_widget.schema import STUDY_KEYS

__all__ = ["KEYS", "SIZE_NAMES", "StudyKeys", "study_keys", "varying"]

#: The keys a run may differ in, in the order a scaling table varies them by default.
KEYS = STUDY_KEYS
#: Words that name a problem size where they stand before a differing word.
SIZE_NAMES = frozenset({"size", "s", "n", "nx", "grid", "mesh", "elements", "problem", "dim",
                        "dims", "resolution", "points", "cells"})
_THREADS_PART = re.compile(r"^[0-9]+ threads?(?:, |$)")
_WORDS = re.compile(r"[\s_]+")
_SIZE_VALUE = re.compile(r"^[0-9]+(?:\^[0-9]+|(?:x[0-9]+)+)$")


@dataclass(frozen=True)
class StudyKeys:
    """What one run of a study is, as far as it differs from the others.

    Attributes
    ----------
    label : str
        The run's label.
    threads : int
        Hardware threads per rank (the most any rank measured).
    ranks : int
        MPI ranks (1 for likwid-perfctr output).
    size : str or None
        The problem size, where the runs differ in one (``"90^3"``).
    case : str or None
        Any other difference the texts name (``"sedov"``), or None.
    size_name, case_name : str
        What the texts call them (``"size"``, ``"-c"``; ``""`` when unnamed).
    """

    label: str
    threads: int
    ranks: int
    size: str | None = None
    case: str | None = None
    size_name: str = ""
    case_name: str = ""

    @property
    def workers(self) -> int:
        """Hardware threads of the whole run: threads per rank x ranks."""
        return self.threads * self.ranks

    def value(self, key: str) -> object:
        """The run's value of a key of :data:`KEYS`."""
        return getattr(self, key)


def _counts(run: LikwidRun) -> tuple[int, int]:
    """(threads per rank, ranks) of a run: the most distinct thread columns any rank measured."""
    table = run.table
    if not len(table):
        return 0, 0
    ranks, rank_values = pd.factorize(table["rank"])  # -1: no rank
    threads = column_codes(table["thread"])[0]  # -1: no thread (nunique leaves it out)
    if (ranks < 0).any():  # rows without a rank: pandas' grouping leaves them out
        per_rank = table.groupby("rank", observed=True)["thread"].nunique()
        return int(per_rank.max()), len(per_rank)
    measured = threads >= 0
    width = int(threads.max()) + 1 if measured.any() else 1
    pairs = np.unique(ranks[measured].astype(np.int64) * width + threads[measured])
    per_rank = np.bincount(pairs // width, minlength=len(rank_values))  # distinct threads a rank
    return int(per_rank.max()), len(rank_values)


def _text(run: LikwidRun) -> str:
    """What the file says of a run (its detail without the thread count), or its label."""
    info = run.run_info
    if info is not None:
        return _THREADS_PART.sub("", info.detail).strip()
    return run.label


def _name(word: str) -> str:
    return word.lstrip("-").lower()


def _follows(values: list[str], counts: list[int]) -> bool:
    """Whether a word's values and a count determine each other (and the count varies)."""
    return len(set(counts)) > 1 and len(set(values)) == len(set(counts)) == \
        len(set(zip(values, counts)))


def _word_keys(words: list[list[str]], threads: list[int], ranks: list[int]
               ) -> tuple[list[tuple[str, list[str]]], list[tuple[str, list[str]]]]:
    """The (name, values) of the size keys and of the case keys of texts of equal length."""
    sizes: list[tuple[str, list[str]]] = []
    cases: list[tuple[str, list[str]]] = []
    for position in range(len(words[0])):
        values = [w[position] for w in words]
        if len(set(values)) == 1 or _follows(values, threads) or _follows(values, ranks):
            continue
        before = {w[position - 1] for w in words} if position else set()
        name = before.pop() if len(before) == 1 else ""
        if all("=" in v for v in values) and len({v.split("=", 1)[0] for v in values}) == 1:
            name, values = values[0].split("=", 1)[0], [v.split("=", 1)[1] for v in values]
        size = _name(name) in SIZE_NAMES or all(_SIZE_VALUE.match(v) for v in values)
        (sizes if size else cases).append((name, values))
    return sizes, cases


def _joined(keys: list[tuple[str, list[str]]], n: int) -> tuple[list[str | None], str]:
    """One value per run of several keys (their values joined), and their names."""
    if not keys:
        return [None] * n, ""
    values = [" ".join(values[i] for _, values in keys) for i in range(n)]
    return list(values), " ".join(name for name, _ in keys if name)


def study_keys(runs: Sequence[LikwidRun], labels: Sequence[str] | None = None) -> list[StudyKeys]:
    """Per run of a study, what sets it apart (see the module docstring).

    Parameters
    ----------
    runs : sequence of LikwidRun
        The runs, in order (``RegionSums.from_runs(data).runs``).
    labels : sequence of str, optional
        Their labels (default: each run's ``label``).

    Returns
    -------
    list of StudyKeys

    Examples
    --------
    >>> from roofline_widget import read_likwid, sample_path
    >>> runs = [read_likwid(sample_path(f"gmgpolar_skx4s_lw50_MEM_DP_compact{t}t_1537x2048_give.txt"))
    ...         for t in (1, 2, 8)]
    >>> [(k.threads, k.size, k.case) for k in study_keys(runs)]
    [(1, None, None), (2, None, None), (8, None, None)]
    """
    labels = list(labels) if labels is not None else [run.label for run in runs]
    counts = [_counts(run) for run in runs]
    threads, ranks = [c[0] for c in counts], [c[1] for c in counts]
    texts = [_text(run) for run in runs]
    words = [[w for w in _WORDS.split(text) if w] for text in texts]
    sizes: list[str | None] = [None] * len(runs)
    cases: list[str | None] = [None] * len(runs)
    size_name = case_name = ""
    if len(set(texts)) > 1 and len({len(w) for w in words}) == 1:
        size_keys, case_keys = _word_keys(words, threads, ranks)
        sizes, size_name = _joined(size_keys, len(runs))
        cases, case_name = _joined(case_keys, len(runs))
    elif len(set(texts)) > 1:
        cut = differing_words([" ".join(w) for w in words])
        is_size = any(_name(w) in SIZE_NAMES for text in cut for w in text.split()[:1])
        if is_size:
            sizes = list(cut)
        else:
            cases = list(cut)
    return [StudyKeys(label, t, r, size, case, size_name, case_name)
            for label, t, r, size, case in zip(labels, threads, ranks, sizes, cases)]


def varying(keys: Sequence[StudyKeys]) -> list[str]:
    """The keys of :data:`KEYS` whose values differ between the runs, in that order."""
    return [key for key in KEYS if len({k.value(key) for k in keys}) > 1]  # None: a value too
