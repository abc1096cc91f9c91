"""The options of ``roofline-widget scaling`` (the command itself: :mod:`roofline_widget.cli.scaling`).

:func:`add_scaling_command` adds the subcommand to the parser
(:func:`~roofline_widget.cli.parser.build_parser` calls it); nothing heavy
is imported here, so that ``--help`` stays quick.
"""

from __future__ import annotations

import argparse

from roofline_widget.cli.option_types import add_ranks_option

__all__ = ["SCALING_HELP", "STUDY_KEYS", "add_scaling_command"]

#: The keys ``--group-by`` takes (:data:`roofline_widget.analysis.study_keys.KEYS`).
STUDY_KEYS = ("threads", "ranks", "size", "case")

SCALING_HELP = "per region and run: speed-up, parallel efficiency and GFLOP/s of a study"
_EPILOG = """\
Each FILE is a run; a FILE of several runs (a sweep appended to one log) gives each of them.
What differs between the runs (threads, ranks, problem size, a case) is read from the data, the
run headers and the file names; runs that differ in two ways are grouped by all but one.

examples:
  {program} scaling lulesh_1t.txt lulesh_2t.txt lulesh_8t.txt
  {program} scaling sweep.txt --group-by case -o scaling.png
  {program} scaling sweep.txt --group-by threads --csv > cases.csv
  {program} scaling points.csv --include Calc --ranks 'f0702, 144' --json

{exit_codes}"""
def add_scaling_command(commands, program: str, exit_codes: str) -> argparse.ArgumentParser:
    """Add ``scaling`` to the subcommands (the ``add_subparsers`` object) of the parser.

    ``program`` and ``exit_codes`` are the command's name and the exit codes' text, for the help.
    """
    parser = commands.add_parser("scaling", help=SCALING_HELP,
                                 description=SCALING_HELP[0].upper() + SCALING_HELP[1:] + ".",
                                 epilog=_EPILOG.format(program=program, exit_codes=exit_codes),
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+", metavar="FILE",
                        help="LIKWID output (or a CSV/Parquet table of points) of the study's runs")
    parser.add_argument("--group-by", nargs="+", choices=STUDY_KEYS, metavar="KEY",
                        help=f"group the runs by these of {', '.join(STUDY_KEYS)}, so that each group "
                             "varies in one (default: all but the first that differs)")
    parser.add_argument("-o", "--output", metavar="IMAGE",
                        help="also draw the figure: .png, .svg, .pdf (speed-up against threads "
                             "with the ideal line; GFLOP/s where the runs differ in size)")
    parser.add_argument("--csv", action="store_true", help="print the table as CSV on stdout")
    parser.add_argument("--format", metavar="FORMAT", default=None,
                        help="the files' layout (read_likwid's formats); detected when omitted")
    group = parser.add_argument_group("selection")
    group.add_argument("--flops-metric", metavar="NAME",
                       help="exact LIKWID FLOP metric, e.g. 'DP [MFLOP/s]' (detected when omitted)")
    add_ranks_option(group)
    group.add_argument("--include", metavar="REGEX",
                       help="only regions whose name matches at its start")
    group.add_argument("--exclude", metavar="REGEX", help="leave out regions matching at their start")
    output = parser.add_argument_group("output")
    output.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    output.add_argument("--debug", action="store_true", help="show the full traceback of an error")
    output.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    return parser
