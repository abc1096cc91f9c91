"""``roofline-widget scaling``: the scaling table of a study, and its figure with ``-o``.

:func:`scaling` (in :data:`~roofline_widget.cli.commands.COMMANDS`) carries
the command out on the public API (:func:`~roofline_widget.scaling_table`,
:func:`~roofline_widget.static.scaling.save_scaling_figure`); its options
are in :mod:`roofline_widget.cli.scaling_options`.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from roofline_widget import read_likwid, scaling_table
from roofline_widget.cli.report import Outcome, printable, records, table_text

__all__ = ["scaling"]

_COLUMNS = {"region": "region", "threads": "threads", "ranks": "ranks", "size": "size",
            "case": "case", "runtime_seconds": "runtime [s]", "speedup": "speed-up",
            "efficiency_percent": "efficiency %", "performance_gflops": "GFLOP/s",
            "note": "note"}


def _group_lines(table: pd.DataFrame) -> list[str]:
    """The table as text, one block per group, the columns that say something."""
    shown = table.assign(efficiency_percent=100 * table["efficiency"])
    columns = {name: heading for name, heading in _COLUMNS.items()
               if name in ("region", "runtime_seconds", "speedup", "performance_gflops")
               or (shown[name].notna().any() and (shown[name].astype(str) != "").any()
               and not (name in ("threads", "ranks") and shown[name].nunique() == 1))}
    lines: list[str] = []
    for group, rows in shown.groupby("group", sort=False):
        if group:
            lines.append(f"{printable(group)}:")
        lines += table_text(rows, columns)
    return lines


def scaling(args: argparse.Namespace) -> Outcome:
    """``roofline-widget scaling``: the table, and the figure with ``-o``."""
    runs = [read_likwid(path, format=args.format) for path in args.files]
    table = scaling_table(runs if len(runs) > 1 else runs[0], group_by=args.group_by,
                          flops_metric=args.flops_metric, ranks=args.ranks,
                          include=args.include, exclude=args.exclude)
    image = None
    if args.output:
        from roofline_widget.static.scaling import save_scaling_figure

        save_scaling_figure(table, args.output)
        image = str(Path(args.output).resolve())
    varies = str(table["varies"].iloc[0]) if len(table) else ""
    data = {"files": list(args.files), "varies": varies,
            "groups": list(pd.unique(table["group"])), "image": image, "rows": records(table)}
    if args.csv:
        return Outcome(data, table.to_csv(index=False).splitlines())
    runs_read = table["run"].nunique()
    text = [f"{runs_read} run(s), {table['region'].nunique()} region(s); the runs vary in "
            f"{varies or 'nothing'}" + (f", grouped by {', '.join(args.group_by)}"
                                        if args.group_by else "")
            + " (speed-up against each group's first run; efficiency = speed-up / threads ratio)"]
    text += _group_lines(table)
    if image:
        text.append(f"wrote {args.output}")
    return Outcome(data, text)
