"""How each region scales over the runs of a study: speed-up, parallel efficiency, GFLOP/s.

:func:`scaling_table` answers what a thread- or rank-scaling sweep is run for
("how does each kernel scale, and where does it saturate?") as a table: per
region and run what differs (threads, ranks, problem size, case:
:func:`~roofline_widget.analysis.study_keys.study_keys`), the runtime, the
speed-up against the first run of its group, the parallel efficiency and the
GFLOP/s.  The points are the regions summed over every rank of a run
(``group_ranks="all"``): a region's runtime is its slowest rank's, its
GFLOP/s the job's.

Runs that differ in more than one way (threads x case) are grouped by the
others (``group_by``), so that each group varies in one thing.  Where a
group varies in problem size, the runs do different work: their speed-up
compares runtimes of different work and says so (``note``), the parallel
efficiency is not given (it is given where a group varies in threads or
ranks only), and GFLOP/s is what compares them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from roofline_widget import schema
from roofline_widget.analysis.study_keys import KEYS, StudyKeys, study_keys, varying
from roofline_widget.points import RegionSums, Selection, selection_parameters
from roofline_widget.roofs.hardware_bounds import beyond_hardware

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from roofline_widget.points.selection import SelectionKeywords

__all__ = ["SCALING_COLUMNS", "WORK_TOLERANCE", "group_keys", "scaling_table"]

#: The columns of :func:`scaling_table`, in order.
SCALING_COLUMNS = (
    "group", "varies", "region", "device", "run", "file", "threads", "ranks", "size", "case",
    schema.RUNTIME, schema.PERFORMANCE, "gflop", "baseline", "speedup", "threads_ratio",
    "efficiency", "work_ratio", "beyond_hardware", "note",
)
#: The FLOPs of a run may differ from its baseline's by this factor before the speed-up is
#: said to compare different work (a run that differs in no size but does 1.25x the FLOPs).
WORK_TOLERANCE = 1.25


def group_keys(keys: list[StudyKeys], group_by: str | Sequence[str] | None) -> tuple[list[str], str]:
    """(the keys the runs are grouped by, the one key each group varies in: ``""`` for none)."""
    differ = varying(keys)
    if group_by is None:
        return differ[1:], differ[0] if differ else ""
    chosen = [group_by] if isinstance(group_by, str) else list(group_by)
    unknown = [key for key in chosen if key not in KEYS]
    if unknown:
        raise ValueError(f"group_by takes keys of {list(KEYS)}, got {unknown}")
    left = [key for key in differ if key not in chosen]
    if len(left) > 1:
        raise ValueError(f"the runs differ in {', '.join(differ)}; grouped by {chosen} each group "
                         f"still varies in {' and '.join(left)}: group by all but one of them")
    return chosen, left[0] if left else ""


def _group_label(key: StudyKeys, group_by: list[str]) -> str:
    return ", ".join(f"{name}={key.value(name)}" for name in group_by)


def _rows(data, chosen: Selection) -> tuple[pd.DataFrame, list[StudyKeys], dict]:
    """Per (run, region, device) the runtime and GFLOP/s of every rank summed, and the runs' keys."""
    sums = RegionSums.from_runs(data)
    keys = study_keys(sums.runs, sums.files)
    selected = sums.select(replace(chosen, group_ranks="all"))
    frame = selected.frame
    metric = selected.flops_metric
    performance = (frame[metric].to_numpy(dtype=float) * sums.units[metric].to_giga
                   if metric is not None and metric in frame else np.full(len(frame), np.nan))
    rows = pd.DataFrame({
        "file": frame["file"].astype(object).to_numpy(),
        "region": frame["region"].astype(object).to_numpy(),
        "device": frame["device"].astype(object).to_numpy(),
        schema.RUNTIME: frame["runtime_s"].to_numpy(dtype=float),
        schema.PERFORMANCE: performance,
    })
    rows["run"] = rows["file"].map({label: n for n, label in enumerate(sums.files, 1)})
    rows["beyond_hardware"] = beyond_hardware(
        rows.assign(n_threads=frame["n_threads"].to_numpy()), schema.PERFORMANCE)
    return rows, keys, {"flops_metric": metric}


def _note(row, varies: str, size_name: str) -> str:
    if row["beyond_hardware"]:
        return "GFLOP/s beyond what any core does (a broken counter?): see sanity_check"
    if row["run"] == row["baseline_run"]:
        return ""
    if varies == "size":
        name = f"{size_name} " if size_name else ""
        return (f"speed-up compares different work ({name}{row['size_base']} -> {row['size']}): "
                "compare GFLOP/s")
    ratio = row["work_ratio"]
    if np.isfinite(ratio) and not 1 / WORK_TOLERANCE <= ratio <= WORK_TOLERANCE:
        return f"{ratio:.3g}x the baseline's FLOPs: speed-up compares different work"
    return ""


@selection_parameters("selection", "flops_metric, bandwidth_metric", "ranks", "include, exclude")
def scaling_table(data: object, *, group_by: str | Sequence[str] | None = None,
                  selection: Selection | None = None,
                  **keywords: Unpack[SelectionKeywords]) -> pd.DataFrame:
    """Per region and run of a study: what differs, runtime, speed-up, parallel efficiency, GFLOP/s.

    Parameters
    ----------
    data : runs
        The runs of a study: a file of several runs (a sweep appended to one
        log), a list of files or runs, a points table; anything
        :meth:`RegionSums.from_runs <roofline_widget.points.RegionSums.from_runs>` takes.
    group_by : str or sequence of str, optional
        Keys of ``"threads"``, ``"ranks"``, ``"size"``, ``"case"`` to group
        the runs by, so that each group varies in the one key left (a sweep
        of 18 thread counts x 3 cases: ``group_by="case"`` gives each case's
        thread scaling, ``group_by="threads"`` compares the cases at each
        thread count).  Default: the runs vary in the first key (in that
        order) they differ in, grouped by any other.
    {selection_parameters}

    Returns
    -------
    pandas.DataFrame
        One row per (group, region, device, run), runs in their order:

        - ``group`` (``"case=sedov"``; ``""`` for one group), ``varies`` (the
          key the group varies in, ``""`` when nothing differs), ``region``,
          ``device``, ``run`` (the run's position in the data, from 1),
          ``file`` (its label);
        - ``threads`` (hardware threads per rank), ``ranks``, ``size`` and
          ``case`` (None where the runs do not differ in them);
        - ``runtime_seconds`` (the slowest rank's), ``performance_gflops``
          (every rank's and thread's sum), ``gflop`` (their product: the
          work done);
        - ``baseline`` (the label of the group's first run with the region),
          ``speedup`` (its runtime / this runtime), ``threads_ratio``
          (threads x ranks against the baseline's), ``efficiency``
          (speed-up / threads ratio, a fraction; NaN unless the group varies
          in threads or ranks), ``work_ratio`` (this run's GFLOP / the baseline's);
        - ``beyond_hardware``: the GFLOP/s is more than its threads can do
          (:func:`~roofline_widget.roofs.hardware_bounds.beyond_hardware`: a
          broken or wrapped counter);
        - ``note``: where the speed-up compares different work (another
          problem size, or FLOPs beyond :data:`WORK_TOLERANCE` of the
          baseline's), or the GFLOP/s is beyond the hardware.

    Raises
    ------
    ValueError
        For ``group_by`` keys that are none of the four, or groups that
        would still vary in more than one key.

    Examples
    --------
    >>> from roofline_widget import sample_path
    >>> table = scaling_table([sample_path(f"gmgpolar_skx4s_lw50_MEM_DP_compact{t}t_1537x2048_give.txt")
    ...                        for t in (1, 2, 8)], include="Solve")
    >>> table[["threads", "speedup", "efficiency"]].round(3).values.tolist()
    [[1.0, 1.0, 1.0], [2.0, 1.94, 0.97], [8.0, 6.877, 0.86]]
    """
    chosen = Selection.of(selection, **keywords)
    rows, keys, _ = _rows(data, chosen)
    group_by_keys, varies = group_keys(keys, group_by)
    by_run = {n: key for n, key in enumerate(keys, 1)}
    for name in ("threads", "ranks", "size", "case"):
        rows[name] = rows["run"].map(lambda n, name=name: by_run[n].value(name))
    rows["workers"] = rows["run"].map(lambda n: by_run[n].workers)
    rows["group"] = rows["run"].map(lambda n: _group_label(by_run[n], group_by_keys))
    rows["varies"] = varies
    rows["gflop"] = rows[schema.PERFORMANCE] * rows[schema.RUNTIME]
    rows = rows.sort_values("run", kind="stable")
    first = rows.groupby(["group", "region", "device"], sort=False).transform("first")
    rows["baseline"] = first["file"]
    rows["baseline_run"] = first["run"]
    rows["size_base"] = first["size"]
    rows["speedup"] = first[schema.RUNTIME] / rows[schema.RUNTIME]
    rows["threads_ratio"] = rows["workers"] / first["workers"]
    rows["efficiency"] = rows["speedup"] / rows["threads_ratio"]
    if varies not in ("threads", "ranks"):  # no more hardware: no parallel efficiency
        rows["efficiency"] = np.nan
    rows["work_ratio"] = rows["gflop"] / first["gflop"]
    size_name = next((k.size_name for k in keys if k.size_name), "")
    rows["note"] = [_note(row, varies, size_name) for row in rows.to_dict("records")]
    order = {name: n for n, name in enumerate(pd.unique(rows["group"]))}
    regions = {name: n for n, name in enumerate(pd.unique(rows["region"]))}
    rows = rows.assign(_g=rows["group"].map(order), _r=rows["region"].map(regions))
    rows = rows.sort_values(["_g", "_r", "device", "run"], kind="stable")
    for name in ("size", "case"):
        rows[name] = rows[name].astype(object).where(rows[name].notna(), None)
    return rows[list(SCALING_COLUMNS)].reset_index(drop=True)
