"""The commands of ``roofline-widget``, each on the package's public API only.

Each takes the parsed arguments and returns an :class:`~roofline_widget.cli.report.Outcome`:
the JSON object, the text lines and the exit code.  Errors are not caught
here: :func:`roofline_widget.cli.main` turns the package's errors into one
line and exit code 2.  Each command imports what it uses when it runs, so
that ``plot`` loads no guidance, scaling or likwid-bench code (a job script
waits for every import: docs/performance.md).
"""

from __future__ import annotations

import argparse
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from roofline_widget import read_likwid
from roofline_widget.cli.parser import EXIT_FINDINGS, EXIT_OK
from roofline_widget.cli.report import Outcome, one_line, printable, records, table_text
from roofline_widget.escaping import spreadsheet_safe
from roofline_widget.points.rank_groups import summed_ranks

if TYPE_CHECKING:
    from roofline_widget import LikwidRun, Roofline

__all__ = ["BENCH_SUFFIXES", "COMMANDS", "bench_files", "check", "compare", "explain", "machine",
           "plot", "points", "scaling"]

#: The files of a directory given as likwid-bench logs (compressed ones included).
BENCH_SUFFIXES = (".log", ".txt", ".out", ".json", ".csv", ".gz", ".bz2", ".xz")
_POINT_COLUMNS = {"region": "region", "rank": "rank", "performance_gflops": "GFLOP/s",
                  "bandwidth_gbs": "GB/s", "arithmetic_intensity_flops_per_byte": "FLOP/byte",
                  "runtime_seconds": "runtime [s]", "n_threads": "threads"}
_COMPARE_COLUMNS = {"region": "region", "rank": "rank", "status": "status",
                    "runtime_seconds_before": "runtime before [s]",
                    "runtime_seconds_after": "after [s]", "speedup": "speed-up",
                    "performance_change_percent": "GFLOP/s change %",
                    "intensity_change_percent": "intensity change %"}


# --------------------------------------------------------------------------
# inputs
# --------------------------------------------------------------------------
def read_run(paths: list[str], fmt: str | None) -> LikwidRun:
    """The files of one run, merged (``read_likwid``)."""
    return read_likwid(paths[0] if len(paths) == 1 else list(paths), format=fmt)


def bench_files(paths: list[str]) -> list[str]:
    """``paths`` with each directory replaced by its files ending in :data:`BENCH_SUFFIXES`.

    Raises
    ------
    FileNotFoundError
        For a directory without such files (naming the suffixes).
    """
    files = []
    for path in map(Path, paths):
        if not path.is_dir():
            files.append(str(path))
            continue
        found = sorted(str(p) for p in path.iterdir()
                       if p.is_file() and p.suffix.lower() in BENCH_SUFFIXES)
        if not found:
            raise FileNotFoundError(2, f"no likwid-bench logs ({', '.join(BENCH_SUFFIXES)}) in "
                                       "the directory", str(path))
        files += found
    return files


def _selection(args: argparse.Namespace) -> dict:
    """The point-selection keywords the public functions take."""
    chosen = {"flops_metric": args.flops_metric, "ranks": args.ranks, "include": args.include,
              "exclude": args.exclude, "combine_ranks": args.combine_ranks,
              "group_ranks": args.group_ranks}
    if hasattr(args, "bandwidth_metric"):
        chosen["bandwidth_metric"] = args.bandwidth_metric
    return chosen


def _where(row, several_ranks: bool) -> str:
    """A region, named for a terminal, with its rank when there are several."""
    name = printable(row["region"])
    summed = summed_ranks(row["rank"], row.get("rank_group"))
    if summed:  # a sum over ranks: "f0472 socket 0 (ranks 0-23)"
        return f"{name} ({printable(summed)})"
    return f"{name} (rank {row['rank']})" if several_ranks else name


def _left_out_lines(left_out: pd.DataFrame) -> list[str]:
    if not len(left_out):
        return []
    several = left_out["rank"].nunique() > 1
    return [f"left out ({len(left_out)}), never placed:"] + [
        f"  {_where(row, several)}: {printable(row['reason'])}"
        for row in left_out.to_dict("records")]


def _finding_lines(findings: list[dict]) -> list[str]:
    """One line per sanity finding: where (region, rank, level), the check and its detail."""
    several = len({row["rank"] for row in findings}) > 1
    lines = []
    for row in findings:
        level = f", {row['level']}" if isinstance(row["level"], str) else ""
        lines.append(f"  {_where(row, several)}{level}: {row['check']}: "
                     f"{printable(row['detail'])}")
    return lines


def _ceiling_lines(ceilings: list[dict], ridge_point: float) -> list[str]:
    lines = [f"ceilings (ridge point {ridge_point:.4g} FLOP/byte):"]
    for roof in ceilings:
        lines.append(f"  {roof['kind']:<9} {printable(roof['name'])}: {roof['value']:.4g} "
                     f"{roof['unit']} ({printable(roof['source'])})")
    return lines


# --------------------------------------------------------------------------
# plot
# --------------------------------------------------------------------------
def plot(args: argparse.Namespace) -> Outcome:
    """``roofline-widget plot``: the static figure, its data, SVG hover titles."""
    from roofline_widget import plot_roofline

    runs: LikwidRun | list[LikwidRun]
    if args.separate:
        runs = [read_likwid(path, format=args.format) for path in args.files]
    else:
        runs = read_run(args.files, args.format)
    ceilings = None
    if args.ceilings:
        from roofline_widget import machine_roofline

        ceilings = machine_roofline(bench_files(args.ceilings), peak_flops=args.peak_flops)
    baseline = read_run(args.baseline, args.format) if args.baseline else None
    data_format = Path(args.data).suffix.lstrip(".").lower() if args.data else "csv"
    payload = plot_roofline(
        runs, filepath=args.output, data_filepath=args.data, data_format=data_format,
        ceilings=ceilings, peak_flops=args.peak_flops, peak_bandwidth=args.peak_bandwidth,
        levels=args.levels, baseline=baseline, match=dict(args.match) or None, cmap=args.cmap,
        verbose=False, chain=args.chain, theoretical=args.theoretical, **_selection(args))
    image = str(Path(args.output).resolve())
    data = {"image": image, "data": str(Path(args.data).resolve()) if args.data else None,
            "points": len(payload["points"]), "flops_metric": payload["flops_metric"],
            "bandwidth_metric": payload["bandwidth_metric"], "ceilings": payload["ceilings"],
            "ridge_point": payload["ridge_point"],
            "empirical_ceilings": payload["empirical_ceilings"],
            "left_out": payload["left_out"], "no_flop_note": payload["no_flop_note"],
            "beyond_hardware_note": payload["beyond_hardware_note"],
            "above_roofs_note": payload["above_roofs_note"],
            "level_findings": payload.get("level_findings", []), "hover_titles": None,
            "ceiling_notes": payload["ceiling_notes"],
            "chain": payload["chain"]}
    text = [f"wrote {args.output}: {len(payload['points'])} point(s), FLOP metric "
            f"{payload['flops_metric']!r}, bandwidth metric {payload['bandwidth_metric']!r}"]
    if payload.get("levels"):  # a hierarchical roofline: the level dots besides the points
        levels = ", ".join(dict.fromkeys(dot["level"] for dot in payload["levels"]))
        text.append(f"  and {len(payload['levels'])} memory-level dot(s) ({levels}), each "
                    "against its level's bandwidth metric")
    if payload["chain"]:
        text.append(f"  the last run's points, drawn as a chain of the file's "
                    f"{len(payload['chain'])} runs: {' → '.join(payload['chain'])} "
                    "(--no-chain: every run as points)")
    if Path(args.output).suffix.lower() == ".svg":
        from roofline_widget.cli.svg_titles import add_hover_titles

        titled, drawn = add_hover_titles(payload, args.output)
        data["hover_titles"] = titled
        text.append(f"  {titled} of {drawn} drawn point(s) carry their numbers as a hover title")
    if args.data:
        text.append(f"wrote {args.data} ({data_format})")
    text += _ceiling_lines(payload["ceilings"], payload["ridge_point"])
    if payload["empirical_ceilings"]:
        text.append("  empirical: the largest observation, not a machine limit "
                    "(give --peak-flops/--peak-bandwidth or --ceilings)")
    text += _left_out_lines(pd.DataFrame(payload["left_out"], columns=["file", "region", "rank",
                                                                       "reason"]))
    text += [payload[key] for key in ("beyond_hardware_note", "above_roofs_note", "no_flop_note")
             if payload[key]]
    text += payload["ceiling_notes"]  # ceilings of another machine, a theoretical roof's clock
    if data["level_findings"]:  # what the rings over level dots in the figure flag
        text.append(f"sanity finding(s), ringed in the figure ({len(data['level_findings'])}):")
        text += _finding_lines(data["level_findings"])
    return Outcome(data, text)


# --------------------------------------------------------------------------
# compare
# --------------------------------------------------------------------------
def compare(args: argparse.Namespace) -> Outcome:
    """``roofline-widget compare``: the speed-up table and the regression gate."""
    from roofline_widget import compare_points

    before = read_run([args.before], args.format)
    after = read_run([args.after], args.format)
    frame = compare_points(before, after, match=dict(args.match) or None, **_selection(args))
    several = frame["rank"].nunique() > 1
    slower = pd.DataFrame(columns=frame.columns)
    if args.fail_below is not None:
        slower = frame[(frame["speedup"] < args.fail_below).to_numpy(dtype=bool)]
    data = {"before": before.label, "after": after.label, "fail_below": args.fail_below,
            "flops_metric": frame["flops_metric"].iloc[0] if len(frame) else None,
            "bandwidth_metric": frame["bandwidth_metric"].iloc[0] if len(frame) else None,
            "regressions": records(slower[["region", "rank", "device", "runtime_seconds_before",
                                           "runtime_seconds_after", "speedup"]]),
            "rows": records(frame)}
    text = [f"before: {printable(before.label)}   after: {printable(after.label)}   "
            "(speed-up = runtime before / runtime after)", *table_text(frame, _COMPARE_COLUMNS)]
    for status in ("only before", "only after", "neither"):
        rows = frame[frame["status"] == status]
        if len(rows):
            names = ", ".join(_where(row, several) for row in rows.to_dict("records"))
            text.append(f"{status} placed: {names}")
    if args.fail_below is None:
        return Outcome(data, text)
    for row in slower.to_dict("records"):
        text.append(f"REGRESSION: {_where(row, several)} runs {row['speedup']:.3f}x "
                    f"({row['runtime_seconds_before']:.4g} s -> {row['runtime_seconds_after']:.4g} s), "
                    f"below --fail-below {args.fail_below:g}")
    if not len(slower):
        text.append(f"no region slowed down below {args.fail_below:g}x")
    return Outcome(data, text, EXIT_FINDINGS if len(slower) else EXIT_OK)


# --------------------------------------------------------------------------
# check
# --------------------------------------------------------------------------
def _check_ceilings(args: argparse.Namespace) -> Roofline | None:
    """The roofs the points are checked against: --ceilings, peaks, or none."""
    from roofline_widget import BandwidthRoof, ComputeRoof, Roofline, machine_roofline

    if args.ceilings:  # a peak bandwidth a user gives is the memory's: it replaces the MEM roof
        return machine_roofline(bench_files(args.ceilings), peak_flops=args.peak_flops).with_main(
            level="MEM").with_peaks(args.peak_flops, args.peak_bandwidth)
    if args.peak_flops is None and args.peak_bandwidth is None:
        return None
    if args.peak_flops is None and args.theoretical:
        return None  # the compute roof is the CPU's theoretical one: advice only (_advice_ceilings)
    if args.peak_flops is None or args.peak_bandwidth is None:
        raise ValueError("check against peaks needs both --peak-flops and --peak-bandwidth "
                         "(or --ceilings with likwid-bench logs, or --theoretical for the "
                         "compute roof)")
    # the peak bandwidth a user gives is the memory's
    return Roofline([ComputeRoof("Peak", args.peak_flops)],
                    [BandwidthRoof("Peak bandwidth", args.peak_bandwidth, level="MEM")])


def _advice_ceilings(args: argparse.Namespace, run: LikwidRun,
                     ceilings: Roofline | None) -> tuple[Roofline | list | None, list[str]]:
    """The roofs the advice rests on: ``ceilings`` (:func:`_check_ceilings`) and, with
    --theoretical and no --peak-flops, the CPU's theoretical roof where no compute roof serves
    it, as ``plot`` draws it (:func:`~roofline_widget.analysis.theoretical.with_theoretical_ceilings`);
    and why there is no theoretical roof.  The roofs a kind lacks are empirical."""
    if not args.theoretical or args.peak_flops is not None:
        return ceilings, []
    from roofline_widget import BandwidthRoof, points_dataframe
    from roofline_widget.analysis.theoretical import with_theoretical_ceilings

    given = (list(ceilings) if ceilings is not None
             else [BandwidthRoof("Peak bandwidth", args.peak_bandwidth, level="MEM")]
             if args.peak_bandwidth is not None else [])
    roofs, missing = with_theoretical_ceilings(run, points_dataframe(run, **_selection(args)),
                                               given)
    if ceilings is not None and len(roofs) == len(given):  # a measured compute roof serves
        return ceilings, missing
    return roofs or None, missing


def _sanity(run: LikwidRun, args: argparse.Namespace, ceilings) -> tuple[pd.DataFrame, str | None]:
    """The findings, or why no sanity check could run (the data has no level metrics)."""
    from roofline_widget import sanity_check

    chosen = {key: value for key, value in _selection(args).items()
              if value and not (key == "group_ranks" and value == "auto")}
    try:
        return sanity_check(run, ceilings=ceilings, levels=args.levels, **chosen), None
    except ValueError as exc:
        if chosen or args.levels:
            raise  # what the user asked for is wrong: an input error
        return pd.DataFrame(), one_line(exc)


def check(args: argparse.Namespace) -> Outcome:
    """``roofline-widget check``: LIKWID's STAT sums and the sanity checks."""
    from roofline_widget import StatSumMismatchWarning, stat_comparisons
    from roofline_widget.cli.explain import guidance_lines, guidance_records, guidance_table

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", StatSumMismatchWarning)  # reported below instead
        run = read_run(args.files, args.format)
    comparisons = stat_comparisons(run)
    mismatches = comparisons[~comparisons["agree"].astype(bool)] if len(comparisons) else comparisons
    ceilings = _check_ceilings(args)
    findings, skipped = _sanity(run, args, ceilings)
    judging, missing = _advice_ceilings(args, run, ceilings)
    advice = guidance_table(run, judging, _selection(args))
    data = {"files": list(run.sources),
            "stat_sums": {"compared": len(comparisons), "mismatches": records(mismatches)},
            "sanity": {"ran": skipped is None, "not_run_because": skipped,
                       "findings": records(findings)},
            "guidance": guidance_records(advice), "ceiling_notes": missing}
    if not len(comparisons):
        text = ["STAT sums: none to compare (LIKWID prints STAT tables only for more than one "
                "thread)"]
    elif not len(mismatches):
        text = [f"STAT sums: {len(comparisons)} compared with the sum of the threads read, "
                "all agree"]
    else:
        text = [f"STAT sums: {len(mismatches)} of {len(comparisons)} differ from the sum of the "
                "threads read beyond the printed precision:"]
        text += [f"  {printable(r['source'])}: {printable(r['region'])} {printable(r['name'])!r}: "
                 f"threads sum to {r['summed']:.7g}, STAT Sum {r['stat_sum']:.7g}"
                 for r in mismatches.to_dict("records")]
    if skipped is not None:
        text.append(f"sanity checks: not run: {skipped}")
    elif not len(findings):
        text.append("sanity checks: no findings")
    else:
        text.append(f"sanity checks: {len(findings)} finding(s):")
        text += _finding_lines(findings.to_dict("records"))
    text.append(f"guidance ({len(advice)} point(s); advice, not findings):" if len(advice)
                else "guidance: no point placed")
    text += missing  # why there is no theoretical roof
    text += guidance_lines(advice, indent="  ")
    found = len(mismatches) + len(findings)
    return Outcome(data, text, EXIT_FINDINGS if found else EXIT_OK)


# --------------------------------------------------------------------------
# machine
# --------------------------------------------------------------------------
def _provenance_line(provenance: dict | None) -> str:
    if not provenance or "kernel" not in provenance:  # a theoretical, ERT or rocprof roof
        return "" if not provenance or "file" not in provenance else \
            f"{Path(str(provenance['file'])).name}" + (
                f":{provenance['line']}" if provenance.get("line") else "")
    where = f"{Path(str(provenance.get('file', '?'))).name}:{provenance.get('line', '?')}"
    parts = [where, f"kernel {provenance.get('kernel')}", f"{provenance.get('threads')} threads"]
    if provenance.get("level_decided_by"):
        parts.append(f"level by {provenance['level_decided_by']}")
    return "; ".join(parts)


def machine(args: argparse.Namespace) -> Outcome:
    """``roofline-widget machine``: the ceiling table with provenance, each level's ridge."""
    from roofline_widget import machine_roofline
    from roofline_widget.analysis.machine import level_ridges

    files = bench_files(args.paths)
    roofline = machine_roofline(files, precision=args.precision, label=args.label,
                                level=args.level, figure=args.figure, peak_flops=args.peak_flops)
    if any(roof.level == "MEM" for roof in roofline.bandwidth):  # as plot judges LIKWID's points
        roofline = roofline.with_main(level="MEM")
    roofs = [{**summary, "level": getattr(roof, "level", None), "provenance": roof.provenance}
             for roof, summary in zip(roofline, roofline.to_dicts())]
    ridge, ridges = roofline.ridge_point(), level_ridges(roofline)
    data = {"files": files, "precision": args.precision, "figure": args.figure,
            "ridge_point": ridge, "level_ridges": ridges, "ceilings": roofs}
    text = [f"read {len(files)} file(s): {', '.join(Path(f).name for f in files)}"]
    text += _ceiling_lines(roofs, ridge)
    text.append("ridge point per level (its roof against the compute roof, as plot judges the "
                "level's points): " + ", ".join(f"{level} {value:.4g}"
                                               for level, value in ridges.items())
                + " FLOP/byte")
    for roof in roofs:
        line = _provenance_line(roof["provenance"])
        if line:
            level = f" [{roof['level']}]" if roof["level"] else ""
            text.append(f"  {printable(roof['name'])}{level} from {printable(line)}")
        for note in (roof["provenance"] or {}).get("notes", []):
            text.append(f"    note: {printable(note)}")
    return Outcome(data, text)


# --------------------------------------------------------------------------
# points
# --------------------------------------------------------------------------
def _csv_lines(table) -> list[str]:
    """``table`` as CSV lines, formula cells neutralised (a line break inside a quoted cell
    starts a line, which the terminal rejoins)."""

    return spreadsheet_safe(table).to_csv(index=False, lineterminator="\n").removesuffix(
        "\n").split("\n")


def points(args: argparse.Namespace) -> Outcome:
    """``roofline-widget points``: the points table, and what was left out."""
    from roofline_widget import left_out_regions, points_dataframe

    run = read_run(args.files, args.format)
    chosen = _selection(args)
    table = points_dataframe(run, **chosen)
    left_out = left_out_regions(run, **chosen)
    data = {"files": list(run.sources), "points": records(table), "left_out": records(left_out)}
    if args.csv:
        return Outcome(data, _csv_lines(table))
    metrics = (f"FLOP metric {table['flops_metric'].iloc[0]!r}, bandwidth metric "
               f"{table['bandwidth_metric'].iloc[0]!r}") if len(table) else "no point placed"
    text = [f"{len(table)} point(s) of {printable(run.label)}: {metrics}"]
    if len(table):
        text += table_text(table, _POINT_COLUMNS)
    text += _left_out_lines(left_out)
    return Outcome(data, text)


# --------------------------------------------------------------------------
# explain
# --------------------------------------------------------------------------
def explain(args: argparse.Namespace) -> Outcome:
    """``roofline-widget explain``: what limits each region and what to try."""
    from roofline_widget.cli.explain import explain_run

    run = read_run(args.files, args.format)
    ceilings, missing = _advice_ceilings(args, run, _check_ceilings(args))
    outcome = explain_run(args.region, run, ceilings, _selection(args))
    outcome.data["ceiling_notes"] = missing
    outcome.text += missing  # why there is no theoretical roof
    return outcome


# --------------------------------------------------------------------------
# scaling
# --------------------------------------------------------------------------
_SCALING_COLUMNS = {"region": "region", "threads": "threads", "ranks": "ranks", "size": "size",
                    "case": "case", "runtime_seconds": "runtime [s]", "speedup": "speed-up",
                    "efficiency_percent": "efficiency %", "performance_gflops": "GFLOP/s",
                    "note": "note"}


def _group_lines(table: pd.DataFrame) -> list[str]:
    """The scaling table as text, one block per group, the columns that say something."""
    shown = table.assign(efficiency_percent=100 * table["efficiency"])
    columns = {name: heading for name, heading in _SCALING_COLUMNS.items()
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
    """``roofline-widget scaling``: the scaling table of a study, and its figure with ``-o``."""
    from roofline_widget import scaling_table

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


COMMANDS: dict[str, Callable[[argparse.Namespace], Outcome]] = {
    "plot": plot, "compare": compare, "check": check, "machine": machine, "points": points,
    "explain": explain,
    "scaling": scaling,
}
