"""The ``roofline-widget`` command line: its options, help texts and examples (argparse).

Every subcommand's ``--help`` ends with examples and the exit codes, so that
a user can learn the tool from the terminal.  The options that are settings
(peaks, ranks, levels, ``--group-ranks``, ``--fail-below``) are checked by
:data:`roofline_widget.settings.SETTINGS` (:func:`setting_type`), with the
sentence the API gives.  A bad command line is a
:class:`~roofline_widget.errors.CommandLineError` (:class:`CommandLineParser`),
which :func:`roofline_widget.cli.main` prints as one line.  The parser only
describes the command line; :mod:`roofline_widget.cli.commands` carries the
commands out.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import NoReturn

from roofline_widget.errors import CommandLineError, SettingError
from roofline_widget.metric_names import LEVELS
from roofline_widget.schema import GROUP_RANKS_CHOICES, STUDY_KEYS
from roofline_widget.settings import SETTINGS

__all__ = ["EXIT_CODES", "EXIT_FINDINGS", "EXIT_OK", "EXIT_USAGE", "PROGRAM", "RANKS_HELP",
           "STUDY_KEYS", "CommandLineParser", "add_ranks_option", "build_parser", "parse_match",
           "setting_type"]

PROGRAM = "roofline-widget"
#: Everything worked and nothing was found.
EXIT_OK = 0
#: The command ran and found something: a STAT mismatch or sanity finding, a regression.
EXIT_FINDINGS = 1
#: A bad command line or bad input (missing or damaged file, unknown metric): nothing was done.
EXIT_USAGE = 2
EXIT_CODES = f"""\
exit codes:
  {EXIT_OK}  success (for check and compare --fail-below: nothing found)
  {EXIT_FINDINGS}  check found a STAT mismatch or a sanity finding; compare --fail-below found a
     region that slowed down past the threshold
  {EXIT_USAGE}  usage or input error (bad option, missing or damaged file, unknown metric);
     one line on stderr, the traceback only with --debug"""

_DESCRIPTION = """\
Roofline models of LIKWID measurements from the command line: static plots for job
scripts, a performance regression gate for CI, self-checks of the measurements and
the machine's ceilings from likwid-bench logs. Every command reads the outputs of
likwid-perfctr (text, -O CSV) and likwid-mpirun, plain or compressed, job logs with
other output around the tables included."""

_MAIN_EPILOG = f"""\
examples:
  {PROGRAM} plot run.txt -o roofline.svg --peak-flops 2048 --peak-bandwidth 204.8
  {PROGRAM} compare before.txt after.txt --fail-below 0.95
  {PROGRAM} check run.txt --ceilings bench_logs/
  {PROGRAM} machine bench_logs/
  {PROGRAM} points mem_dp.txt flops_dp.txt --csv > points.csv
  {PROGRAM} explain run.txt --ceilings bench_logs/

Run '{PROGRAM} COMMAND --help' for a command's options and examples.

{EXIT_CODES}"""

_FILES_HELP = ("LIKWID output files of ONE run, merged (e.g. a MEM_DP and a FLOPS_DP run of "
               "the same job); plain, gzip, bz2 or xz")

_EPILOGS = {
    "plot": f"""\
examples:
  # spec-sheet peaks (GFLOP/s, GB/s); the SVG shows each point's numbers on hover
  {PROGRAM} plot run.txt -o roofline.svg --peak-flops 2048 --peak-bandwidth 204.8
  # the machine's measured ceilings, one bandwidth roof per memory level
  {PROGRAM} plot run.txt -o roofline.png --ceilings bench_logs/
  # a hierarchical roofline of L2, L3 and MEM runs of one program, and its data
  {PROGRAM} plot l2.txt l3.txt mem_dp.txt --levels L2 L3 MEM --data levels.json
  # before and after: arrows from each region's baseline point
  {PROGRAM} plot after.txt --baseline before.txt -o compare.pdf
  # one self-contained page to share: hover, zoom, region and rank toggles, offline
  {PROGRAM} plot run.txt -o report.html --ceilings bench_logs/

Without peaks or --ceilings the largest observation is the ceiling and is labelled
empirical: useful to compare regions, never a machine limit.

{EXIT_CODES}""",
    "compare": f"""\
examples:
  {PROGRAM} compare before.txt after.txt
  # a CI gate: exit code 1 and each region named when it runs slower than 0.95x
  {PROGRAM} compare before.txt after.txt --fail-below 0.95
  {PROGRAM} compare old.txt new.txt --match solve_v1=solve --json > changes.json

The speed-up is runtime before / runtime after (LIKWID's RDTSC runtime of the region):
above 1 the region got faster. Regions found in one run only are listed, never
counted as regressions.

{EXIT_CODES}""",
    "check": f"""\
examples:
  {PROGRAM} check run.txt
  {PROGRAM} check l2.txt l3.txt mem_dp.txt --ceilings bench_logs/
  {PROGRAM} check run.txt --peak-flops 2048 --peak-bandwidth 204.8 --json

Two checks: every STAT Sum LIKWID printed against the sum of the threads read
(truncated numbers, dropped threads), and the sanity checks of the points per memory
level (intensity falling outward, points above their roof, memory traffic on one
socket of several).

{EXIT_CODES}""",
    "machine": f"""\
examples:
  {PROGRAM} machine bench_logs/
  {PROGRAM} machine flops.log l2.log mem.log --precision SP --label milan
  {PROGRAM} machine bench_logs/ --json > ceilings.json

A directory stands for its files with the suffixes {{suffixes}}: likwid-bench logs,
an Empirical Roofline Toolkit roofline.json, a rocprof-compute roofline.csv.
The level of each bandwidth benchmark comes from the likwid-perfctr group around it,
else the working set against likwid-topology's cache sizes in the same log, else
--level.  Each level's ridge point is printed: plot judges a level's points against
that level's roof.

{EXIT_CODES}""",
    "explain": f"""\
examples:
  {PROGRAM} explain run.txt
  {PROGRAM} explain run.txt --region Solve --ceilings bench_logs/
  {PROGRAM} explain mpirun.txt --peak-flops 2048 --peak-bandwidth 204.8 --json

Per point: the bound and the percent of its roof, the limiting factor and advice
citing the numbers LIKWID printed (scalar share, clock, thread runtimes, L3 against
memory traffic). Without ceilings the roofs are empirical and no advice rests on them.
Every rule, its threshold and its source: docs/guidance.md.

{EXIT_CODES}""",
    "points": f"""\
examples:
  {PROGRAM} points run.txt
  {PROGRAM} points mem_dp.txt flops_dp.txt --include 'solve' --csv > points.csv
  {PROGRAM} points mpirun.txt --ranks 0-3 --combine-ranks --json

A point sums the per-thread rates of a region (memory metrics are counted on one
thread per socket, so the sum is the socket total); intensity = GFLOP/s / GB/s.

{EXIT_CODES}""",
}

_EPILOGS["scaling"] = f"""\
Each FILE is a run; a FILE of several runs (a sweep appended to one log) gives each of them.
What differs between the runs (threads, ranks, problem size, a case) is read from the data, the
run headers and the file names; runs that differ in two ways are grouped by all but one.

examples:
  {PROGRAM} scaling lulesh_1t.txt lulesh_2t.txt lulesh_8t.txt
  {PROGRAM} scaling sweep.txt --group-by case -o scaling.png
  {PROGRAM} scaling sweep.txt --group-by threads --csv > cases.csv
  {PROGRAM} scaling points.csv --include Calc --ranks 'f0702, 144' --json

{EXIT_CODES}"""
#: The help of ``--ranks``.
RANKS_HELP = ("MPI ranks to use: ranks and ranges, host and socket names, globs, e.g. "
              "'0-71,144' or 'f0702 socket 1' (default: all)")

_HELP = {
    "plot": "draw the roofline figure (PNG, SVG, PDF, or an HTML page) and write its data",
    "compare": "per-region speed-up and changes between two runs; a regression gate",
    "check": "LIKWID's STAT sums and the sanity checks; exit 1 when anything is found",
    "machine": "the machine's ceilings from likwid-bench, ERT or rocprof-compute files, with provenance",
    "points": "the roofline points table (text, --json or --csv)",
    "explain": "what limits each region and what to try, citing the numbers measured",
    "scaling": "per region and run: speed-up, parallel efficiency and GFLOP/s of a study",
}


class CommandLineParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are a :class:`~roofline_widget.errors.CommandLineError`
    (printed as one line by :func:`roofline_widget.cli.main`, not the usage block)."""

    def error(self, message: str) -> NoReturn:
        raise CommandLineError(self.prog, message)

    def parse_args(self, args=None, namespace=None):
        """The parsed arguments; arguments no command knows are named with the command."""
        parsed, extra = self.parse_known_args(args, namespace)
        if extra:
            command = getattr(parsed, "command", None)
            raise CommandLineError(f"{self.prog} {command}" if command else self.prog,
                                   f"unrecognized arguments: {' '.join(extra)}")
        return parsed


def parse_match(text: str) -> tuple[str, str]:
    """``"old=new"`` as ``("old", "new")`` (an argparse ``type`` for renamed regions).

    Raises
    ------
    argparse.ArgumentTypeError
        Without an ``=`` or with an empty name on either side.

    Examples
    --------
    >>> parse_match("solve_v1=solve")
    ('solve_v1', 'solve')
    """
    old, equals, new = text.partition("=")
    if not equals or not old or not new:
        raise argparse.ArgumentTypeError(f"expected OLD=NEW (a region renamed), got {text!r}")
    return old, new


def _number(text: str) -> float | str:
    """A number's text as a float (``"nan"`` too), other text as it is, for the setting to refuse."""
    try:
        return float(text)
    except ValueError:
        return text


def setting_type(name: str, parse: Callable[[str], object] = _number, *,
                 item: bool = False) -> Callable[[str], object]:
    """An argparse ``type``: the text parsed, then checked by the setting ``name``.

    A value the setting refuses is an ``ArgumentTypeError`` with the setting's
    sentence (``argument --peak-flops: peak_flops is in GFLOP/s; 5e9 looks like FLOP/s``).
    ``item``: the text is one item of a list setting (``--levels L2 MEM``).
    """
    setting = SETTINGS[name]

    def checked(text: str) -> object:
        try:
            if item:
                return setting.check([parse(text)])[0]
            return setting.check(parse(text))
        except SettingError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    checked.__name__ = name  # argparse names the type in some messages
    return checked


def add_ranks_option(group) -> None:
    """Add ``--ranks`` to an argparse parser or argument group.

    The text is checked for its shape by the ``ranks`` setting (``--ranks 3-1``:
    ``argument --ranks: rank range '3-1': expected a-b with a <= b``) and kept
    as typed: the command reads it against the data's ranks, hosts and sockets
    (:func:`roofline_widget.settings.rank_text.ranks`).
    """
    group.add_argument("--ranks", type=setting_type("ranks", str), metavar="TEXT",
                       help=RANKS_HELP)


def _add_common(parser: argparse.ArgumentParser) -> None:
    """--json, --debug, --no-progress: on every subcommand."""
    group = parser.add_argument_group("output")
    group.add_argument("--json", action="store_true",
                       help="print one JSON object on stdout instead of text (warnings included)")
    group.add_argument("--debug", action="store_true",
                       help="show the full traceback of an error")
    group.add_argument("--no-progress", action="store_true",
                       help="no progress bar on stderr (a bar appears when a read takes over 1 s)")


def _add_format(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", metavar="FORMAT", default=None,
                        help="the files' layout, one of read_likwid's formats (text, csv, scope-h5, "
                             "...); detected from the content when omitted (scope-profiler HDF5 "
                             "files need --format scope-h5)")


def _add_selection(parser: argparse.ArgumentParser, *, bandwidth: bool = True,
                   grouping: bool = True) -> None:
    """The metric and region/rank selection of points_dataframe (``bandwidth``: the bandwidth
    metric too, ``grouping``: how ranks are summed too)."""
    group = parser.add_argument_group("selection")
    group.add_argument("--flops-metric", metavar="NAME",
                       help="exact LIKWID FLOP metric, e.g. 'DP [MFLOP/s]' (detected when omitted)")
    if bandwidth:
        group.add_argument("--bandwidth-metric", metavar="NAME",
                           help="exact LIKWID bandwidth metric, e.g. 'Memory bandwidth [MBytes/s]'")
    add_ranks_option(group)
    group.add_argument("--include", metavar="REGEX",
                       help="only regions whose name matches at its start")
    group.add_argument("--exclude", metavar="REGEX", help="leave out regions matching at their start")
    if not grouping:
        return
    group.add_argument("--combine-ranks", action="store_true",
                       help="one point per region, every metric summed over the ranks "
                            "(the same as --group-ranks all)")
    group.add_argument("--group-ranks", type=setting_type("group_ranks", str), default="auto",
                       metavar="{" + ",".join(GROUP_RANKS_CHOICES) + "}",
                       help="which ranks a point sums: 'auto' (default) sums the ranks of a "
                            "socket where memory is counted on one rank per socket "
                            "(likwid-mpirun), 'rank' gives one point per rank")


def _add_ceilings(parser: argparse.ArgumentParser) -> None:
    """--ceilings, --peak-flops, --peak-bandwidth, --theoretical: the roofs of plot, check, explain."""
    group = parser.add_argument_group("ceilings")
    group.add_argument("--ceilings", nargs="+", metavar="LOGS_OR_DIR",
                       help="likwid-bench logs (or a directory of them): compute roofs and one "
                            "bandwidth roof per memory level, as the machine command shows")
    group.add_argument("--peak-flops", type=setting_type("peak_flops"), metavar="GFLOPS",
                       help="peak compute in GFLOP/s (replaces the top compute roof)")
    group.add_argument("--peak-bandwidth", type=setting_type("peak_bandwidth"), metavar="GBS",
                       help="peak memory bandwidth in GB/s (replaces the top bandwidth roof)")
    group.add_argument("--theoretical", action="store_true",
                       help="without a compute roof from --ceilings or --peak-flops: the "
                            "theoretical SIMD FMA peak of the CPU LIKWID names (the table of "
                            "cores x clock x the cores used; plot draws it dashed)")


def _subparser(commands, name: str, **more) -> argparse.ArgumentParser:
    epilog = _EPILOGS[name].replace("{suffixes}", more.pop("suffixes", ""))
    summary = _HELP[name]
    return commands.add_parser(name, help=summary, description=summary[0].upper() + summary[1:] + ".",
                               epilog=epilog, formatter_class=argparse.RawDescriptionHelpFormatter)


def build_parser(bench_suffixes: tuple[str, ...] = ()) -> argparse.ArgumentParser:
    """The parser of ``roofline-widget`` and its subcommands.

    Parameters
    ----------
    bench_suffixes : tuple of str
        The suffixes a directory of likwid-bench logs is read by (for the help text).

    Returns
    -------
    argparse.ArgumentParser
    """
    from roofline_widget import __version__

    parser = CommandLineParser(
        prog=PROGRAM, description=_DESCRIPTION, epilog=_MAIN_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    plot = _subparser(commands, "plot")
    plot.add_argument("files", nargs="+", metavar="FILE", help=_FILES_HELP)
    plot.add_argument("-o", "--output", default="roofline.png", metavar="IMAGE",
                      help="the image; its suffix names the format: .png, .svg, .pdf, ..., or "
                           ".html: one interactive page that opens offline (default: roofline.png)")
    plot.add_argument("--data", metavar="TABLE",
                      help="also write the plotted data: .csv, .json or .parquet")
    plot.add_argument("--separate", action="store_true",
                      help="each FILE is a run of its own (one colour each) instead of one job's "
                           "files merged")
    plot.add_argument("--levels", nargs="+", type=setting_type("levels", str, item=True),
                      metavar="LEVEL",
                      help="hierarchical roofline: one dot per memory level (L1 L2 L3 MEM)")
    plot.add_argument("--baseline", nargs="+", metavar="FILE",
                      help="a run to compare with: hollow points and an arrow to each region")
    plot.add_argument("--no-chain", dest="chain", action="store_false",
                      help="a FILE of several runs (a scaling study in one log): every run as "
                           "points, instead of the last run's points with each region's "
                           "trajectory through the earlier runs")
    plot.add_argument("--match", nargs="+", metavar="OLD=NEW", default=[], type=parse_match,
                      help="with --baseline: regions renamed between the runs")
    plot.add_argument("--cmap", default="tab20", help="matplotlib colormap of the points")
    _add_format(plot)
    _add_ceilings(plot)
    _add_selection(plot)
    _add_common(plot)

    compare = _subparser(commands, "compare")
    compare.add_argument("before", metavar="BEFORE", help="LIKWID output of the earlier run")
    compare.add_argument("after", metavar="AFTER", help="LIKWID output of the later run")
    compare.add_argument("--fail-below", type=setting_type("fail_below"), metavar="SPEEDUP",
                         help="exit 1 naming each region whose speed-up is below this, "
                              "e.g. 0.95: more than about 5 %% slower")
    compare.add_argument("--match", nargs="+", metavar="OLD=NEW", default=[], type=parse_match,
                         help="regions renamed between the runs, matched under NEW")
    _add_format(compare)
    _add_selection(compare)
    _add_common(compare)

    check = _subparser(commands, "check")
    check.add_argument("files", nargs="+", metavar="FILE", help=_FILES_HELP)
    check.add_argument("--levels", nargs="+", type=setting_type("levels", str, item=True),
                       metavar="LEVEL",
                       help="memory levels to check (default: every level measured)")
    _add_format(check)
    _add_ceilings(check)
    _add_selection(check, bandwidth=False)
    _add_common(check)

    machine = _subparser(commands, "machine", suffixes=", ".join(bench_suffixes))
    machine.add_argument("paths", nargs="+", metavar="LOGS_OR_DIR",
                         help="likwid-bench output, alone or in job logs, or directories of them")
    machine.add_argument("--precision", choices=("DP", "SP"), default="DP",
                         help="which peakflops kernels give the compute roofs (default DP)")
    machine.add_argument("--label", help="a machine name put before every roof's name")
    machine.add_argument("--level", choices=LEVELS,
                         help="the level of benchmarks neither a group nor the cache sizes place")
    machine.add_argument("--figure", choices=("benchmark", "counted"), default="benchmark",
                         help="bandwidth from likwid-bench's MByte/s (default) or the wrapping "
                              "likwid-perfctr group's measured total")
    machine.add_argument("--peak-flops", type=float, metavar="GFLOPS",
                         help="the compute roof of logs without a peakflops kernel (a triad "
                              "alone); without it, the theoretical peak of the CPU they name")
    _add_common(machine)

    scaling = _subparser(commands, "scaling")
    scaling.add_argument("files", nargs="+", metavar="FILE",
                         help="LIKWID output (or a CSV/Parquet table of points) of the study's runs")
    scaling.add_argument("--group-by", nargs="+", choices=STUDY_KEYS, metavar="KEY",
                         help=f"group the runs by these of {', '.join(STUDY_KEYS)}, so that each "
                              "group varies in one (default: all but the first that differs)")
    scaling.add_argument("-o", "--output", metavar="IMAGE",
                         help="also draw the figure: .png, .svg, .pdf (speed-up against threads "
                              "with the ideal line; GFLOP/s where the runs differ in size)")
    scaling.add_argument("--csv", action="store_true", help="print the table as CSV on stdout")
    scaling.add_argument("--format", metavar="FORMAT", default=None,
                         help="the files' layout (read_likwid's formats); detected when omitted")
    _add_selection(scaling, bandwidth=False, grouping=False)
    output = scaling.add_argument_group("output")
    output.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    output.add_argument("--debug", action="store_true", help="show the full traceback of an error")
    output.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")

    points = _subparser(commands, "points")
    points.add_argument("files", nargs="+", metavar="FILE", help=_FILES_HELP)
    points.add_argument("--csv", action="store_true", help="print the points as CSV on stdout")
    _add_format(points)
    _add_selection(points)
    _add_common(points)

    explain = _subparser(commands, "explain")
    explain.add_argument("files", nargs="+", metavar="FILE", help=_FILES_HELP)
    explain.add_argument("--region", metavar="NAME", help="only the points of this region "
                         "(its exact name)")
    _add_format(explain)
    _add_ceilings(explain)
    _add_selection(explain)
    _add_common(explain)
    return parser
