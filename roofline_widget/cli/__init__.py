"""``roofline-widget``: the command line for job scripts and CI (``python -m roofline_widget``).

Seven commands on the public API: ``plot`` (the static figure),
``compare`` (speed-ups; ``--fail-below`` is a regression gate), ``check``
(LIKWID's STAT sums, the sanity checks and the guidance), ``machine``
(ceilings from likwid-bench logs), ``points`` (the points table),
``explain`` (what limits each region and what to try) and ``scaling`` (a
study's speed-ups and parallel efficiency).  Text for people by
default, one JSON object with ``--json``; exit code 0 when all is well, 1
when a check or the gate found something, 2 for a usage or input error,
which is printed as one line (the traceback only with ``--debug``).
"""

from __future__ import annotations

import os
import sys
import traceback
import warnings
from collections.abc import Sequence

from roofline_widget import RooflineError, RooflineWarning
from roofline_widget.errors import CommandLineError

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``roofline-widget`` with ``argv`` (default: the process's arguments).

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments after the program name.

    Returns
    -------
    int
        The exit code: 0 success, 1 findings or a regression, 2 a usage or
        input error (one line on stderr).
    """
    from roofline_widget.cli.commands import BENCH_SUFFIXES, COMMANDS
    from roofline_widget.cli.parser import EXIT_USAGE, build_parser
    from roofline_widget.cli.report import WarningLog, emit, error_line, one_line

    parser = build_parser(BENCH_SUFFIXES)
    try:
        args = parser.parse_args(argv)
        if getattr(args, "csv", False) and args.json:
            parser.error("--csv and --json: choose one")
    except CommandLineError as exc:  # the promised one line, and where the usage is
        print(f"{exc.program}: error: {one_line(exc)} ({exc.program} --help)", file=sys.stderr)
        return EXIT_USAGE
    if args.no_progress:
        os.environ["TQDM_DISABLE"] = "1"
    log = WarningLog()
    with warnings.catch_warnings():
        warnings.simplefilter("always", RooflineWarning)
        warnings.showwarning = log.show
        try:
            outcome = COMMANDS[args.command](args)
        except (RooflineError, OSError, ValueError, ImportError) as exc:
            if args.debug:
                traceback.print_exc()
            print(error_line(args.command, exc, [item["message"] for item in log.items]),
                  file=sys.stderr)
            return EXIT_USAGE
    emit(outcome, as_json=args.json, warnings=log.items, stream=sys.stdout)
    return outcome.exit_code
