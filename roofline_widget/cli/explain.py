"""``roofline-widget explain``: what limits each region and what to try, as text for a terminal.

:func:`explain` reads the files of one run, judges its points against the
ceilings given (``--ceilings``, ``--peak-flops``/``--peak-bandwidth``; empirical
roofs otherwise) and prints the :func:`~roofline_widget.guidance` of each
point: where it stands, the bound and its roof, the limiting factor, the
advice and the numbers it rests on.  :func:`guidance_lines` formats the same
for ```check``'s guidance section.  Names from files pass :func:`printable`.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Sequence

import pandas as pd

from roofline_widget import Roofline, guidance, points_dataframe
from roofline_widget.analysis.guidance_rules import number_text, percent_text, used_texts
from roofline_widget.cli.report import Outcome, printable
from roofline_widget.points.rank_groups import summed_ranks

__all__ = ["WIDTH", "explain_run", "guidance_lines", "guidance_records", "guidance_table"]

#: The width text lines are wrapped at (a terminal's 100 columns).
WIDTH = 100
_KEEP = "\u00a0"  # a space textwrap does not break at
_EMPIRICAL_NOTE = ("roofs: empirical (the largest observation, not a machine limit): give "
                   "--ceilings or --peak-flops/--peak-bandwidth for advice on the roofs")


def _where(row: dict) -> str:
    ranks = summed_ranks(row["rank"], row.get("rank_group")) or f"rank {row['rank']}"
    threads = pd.to_numeric(row.get("n_threads"), errors="coerce")
    more = f", {int(threads)} thread{'s' if threads != 1 else ''}" if pd.notna(threads) else ""
    return f"{printable(row['region'])} ({printable(ranks)}{more})"


def _bound_line(row: dict) -> str:
    bound = printable(row["bound"])
    if row["bound"] not in ("memory", "compute") or not row["roof"]:
        return f"bound: {bound}"
    empirical = " (empirical)" if row["roof_empirical"] else ""
    return (f"bound: {bound}, {percent_text(row['roof_percent'])} of the "
            f"{printable(row['roof'])} roof{empirical}")


def _metrics_line(used) -> str:
    """The numbers used, each kept on one line when wrapped (no-break spaces inside one,
    undone by :func:`_wrapped`)."""
    items = [printable(f"{name} {value}").replace(" ", _KEEP) for name, value in used_texts(used)]
    return "numbers used: " + "; ".join(items)


def guidance_lines(table: pd.DataFrame, *, indent: str = "") -> list[str]:
    """Each row of ``table`` (points with the guidance columns) as a few lines of text.

    ``table`` holds the points' columns and those of :func:`~roofline_widget.guidance`
    (``bound``, ``roof``, ``roof_percent``, ``roof_empirical``, ``limiting_factor``,
    ``advice``, ``guidance_metrics``).
    """
    lines = []
    for row in table.to_dict("records"):
        lines.append(f"{indent}{_where(row)}: {number_text(row['performance_gflops'])} GFLOP/s, "
                     f"{number_text(row['bandwidth_gbs'])} GB/s, "
                     f"{number_text(row['arithmetic_intensity_flops_per_byte'])} FLOP/byte")
        lines.append(f"{indent}  {_bound_line(row)}")
        factor = row["limiting_factor"] or "none named"
        lines.append(f"{indent}  limiting factor: {printable(factor)}")
        for text in row["advice"] or (row["guidance"],):
            lines += _wrapped(f"- {printable(text)}", f"{indent}  ")
        if row["guidance_metrics"]:
            lines += _wrapped(_metrics_line(row["guidance_metrics"]), f"{indent}  ")
    return lines


def _wrapped(text: str, indent: str) -> list[str]:
    """``text`` in lines of at most :data:`WIDTH` characters, the later ones indented further."""
    return [line.replace(_KEEP, " ") for line in textwrap.wrap(
        text, WIDTH, initial_indent=indent, subsequent_indent=indent + "    ",
        break_on_hyphens=False, break_long_words=False)]


def guidance_records(table: pd.DataFrame) -> list[dict]:
    """The rows of a guidance table as JSON-ready dicts (advice as a list, each number used as
    ``{"name", "value", "unit"}``)."""
    frame = table.assign(
        advice=[list(a) for a in table["advice"]],
        guidance_metrics=[[m._asdict() for m in used] for used in table["guidance_metrics"]])
    return json.loads(frame.to_json(orient="records", double_precision=15))


def guidance_table(run, ceilings: Roofline | Sequence | None, selection: dict) -> pd.DataFrame:
    """The points of ``run`` with the columns of :func:`~roofline_widget.guidance`, in order."""
    points = points_dataframe(run, **selection)
    found = guidance(run, ceilings, **selection)
    return pd.concat([points.reset_index(drop=True),
                      found.drop(columns=[c for c in found.columns if c in points.columns])],
                     axis=1)


def explain_run(region: str | None, run, ceilings: Roofline | Sequence | None,
                selection: dict) -> Outcome:
    """``roofline-widget explain``: the guidance of every point of ``run`` (of ``region`` only,
    if given), judged against ``ceilings`` (a Roofline, or roofs: empirical where a kind lacks
    one; None: empirical roofs).

    Raises
    ------
    ValueError
        For a ``--region`` that names no placed point (the message lists the regions).
    """
    table = guidance_table(run, ceilings, selection)
    if region is not None:
        chosen = table[table["region"].astype(str) == region]
        if not len(chosen):
            regions = ", ".join(sorted({printable(r) for r in table["region"].astype(str)}))
            raise ValueError(f"no point of region {printable(region)!r}; regions placed: "
                             f"{regions or 'none'}")
        table = chosen
    metrics = (f"FLOP metric {table['flops_metric'].iloc[0]!r}, bandwidth metric "
               f"{table['bandwidth_metric'].iloc[0]!r}") if len(table) else "no point placed"
    text = _wrapped(f"guidance for {printable(run.label)}: {len(table)} point(s), {metrics}", "")
    if len(table) and table["roof_empirical"].all():
        text += _wrapped(_EMPIRICAL_NOTE, "")
    text += guidance_lines(table)
    return Outcome({"files": list(run.sources), "guidance": guidance_records(table)}, text)
