"""A likwid-perfctr CPU header printed again: read at once, with the effect of its lines read one by one.

likwid-perfctr prints its CPU header (a line of ``-``, ``CPU name:``, ``CPU type:``, ``CPU
clock:``, a line of ``-``) before each run, and some outputs before every region.  The text
reader reads a header that repeats one read before (every value known) in one step
(``likwid_text.CpuHeader``); these tests hold it to what the lines say one by one: a run mark at
every ``CPU name:`` line with the program output after it, a warning at every line whose value
differs, a command line in a header marked, the same result in pieces of any size.

Data: sample ``pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt`` (its header at lines 2-6,
printed again at lines 180-184 before the FLOPS_DP run), and that sample with its header
printed before each of its ten region blocks.
"""

from __future__ import annotations

import io
import warnings

import numpy as np
import pandas as pd
import pytest

from roofline_widget import read_likwid, sample_path
from roofline_widget.errors import LikwidFormatError
from roofline_widget.io.likwid_text import parse_text
from roofline_widget.io.lines import Pieces
from roofline_widget.io.run_marks import RunMark

SAMPLE = "pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt"
TEXT = open(sample_path(SAMPLE), encoding="utf-8").read()
LINES = TEXT.splitlines(keepends=True)
HEADER = LINES[179:184]  # lines 180-184: '-' * 80, CPU name, CPU type, CPU clock, '-' * 80
NAME = "AMD EPYC 7702 64-Core Processor"
OUTPUT = "For correctness checking, partial results have been written to partial_results.out"


def _every_region(header: list[str] = HEADER, change: dict | None = None) -> str:
    """The sample with ``header`` before each ``Region <...>`` line (``change``: region number
    -> the header printed before that one instead)."""
    out, number = [], 0
    for line in LINES:
        if line.startswith("Region <"):
            out += (change or {}).get(number, header)
            number += 1
        out.append(line)
    return "".join(out)


def _lines_starting(text: str, prefix: str) -> list[int]:
    return [k + 1 for k, line in enumerate(text.splitlines()) if line.startswith(prefix)]


def _summary(parsed) -> tuple:
    return (parsed.marks, parsed.warnings, parsed.cpu_name, parsed.cpu_type, parsed.cpu_clock,
            [(b.region, b.group, b.line, b.metric_names, b.metrics.tolist(), b.event_names,
              b.events.tolist(), None if b.runtime is None else b.runtime.tolist())
             for b in parsed.blocks])


def test_the_samples_second_header_marks_its_run_as_its_lines_do():
    parsed = parse_text(TEXT, SAMPLE)
    # Line 3 and line 181 are the CPU name lines; line 7 and line 185 the program's output
    # after each header; the region lines 9 and 187 end each context (not kept).
    assert parsed.marks == [RunMark(3, "header", NAME, (OUTPUT,)),
                            RunMark(181, "header", NAME, (OUTPUT,))]
    assert [b.line for b in parsed.blocks] == [9, 43, 77, 111, 145, 187, 216, 245, 274, 303]
    assert parsed.warnings == []
    assert (parsed.cpu_name, parsed.cpu_clock) == (NAME, "2.00 GHz")


def test_a_header_before_every_region_gives_a_mark_at_every_cpu_name_line():
    text = _every_region()
    parsed = parse_text(text, "every.txt")
    names = _lines_starting(text, "CPU name:")
    assert len(names) == 12  # the sample's two headers and one before each of 10 regions
    regions = _lines_starting(text, "Region <")
    assert [b.line for b in parsed.blocks] == regions
    # A header right before a region: no output between them, an empty context; the sample's
    # own two headers keep the output line printed after them.
    expected = []
    for line in names:
        follows_output = text.splitlines()[line + 3] == OUTPUT  # 4 lines below the name line
        expected.append(RunMark(line, "header", NAME, (OUTPUT,) if follows_output else ()))
    assert parsed.marks == expected
    assert sum(1 for m in parsed.marks if m.context) == 2
    assert parsed.warnings == []


@pytest.mark.parametrize("size", [61, 97, 256, 1000, 4096])
def test_pieces_of_any_size_read_the_same(size):
    text = _every_region()
    whole = _summary(parse_text(text, "every.txt"))
    assert _summary(parse_text(Pieces.of_text(text, size), "every.txt")) == whole


def test_the_same_table_as_the_sample_with_its_headers_once():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        once = read_likwid(sample_path(SAMPLE))
        every = read_likwid(io.BytesIO(_every_region().encode()))
    assert len(once.each_run()) == len(every.each_run()) == 1
    columns = [c for c in once.table.columns if c not in ("line", "source")]
    pd.testing.assert_frame_equal(once.table[columns], every.table[columns], check_exact=True)
    # every region block moved down by the 5 header lines printed before it and all before
    moved = np.array([5 * k for k in range(1, 11)])
    assert (every.table["line"].to_numpy() - once.table["line"].to_numpy() == moved).all()


def test_a_header_with_another_cpu_name_warns_at_each_of_its_lines():
    other = [HEADER[0], "CPU name:\tAMD EPYC 7763 64-Core Processor\n", *HEADER[2:]]
    text = _every_region(change={3: other, 4: other})  # before the 4th and 5th region
    parsed = parse_text(text, "every.txt")
    changed = [line for line in _lines_starting(text, "CPU name:")
               if text.splitlines()[line - 1].endswith("7763 64-Core Processor")]
    assert len(changed) == 2
    assert parsed.warnings == [
        f"line {line}: cpu name 'AMD EPYC 7763 64-Core Processor' differs from "
        f"'{NAME}' printed earlier; keeping the first" for line in changed]
    assert [m.text for m in parsed.marks].count("AMD EPYC 7763 64-Core Processor") == 2
    assert parsed.cpu_name == NAME


def test_a_command_in_a_header_is_marked_at_every_header():
    command = "likwid-perfctr -C 64 -g MEM_DP -m ./pmgpu"
    header = [HEADER[0], f"CPU name:\t{NAME} {command}\n", *HEADER[2:]]
    text = _every_region(header)
    parsed = parse_text(text, "every.txt")
    headers = [m for m in parsed.marks if m.kind == "header"]
    commands = [m for m in parsed.marks if m.kind == "command"]
    assert len(headers) == 12
    assert len(commands) == 10  # the sample's own two headers: no command
    assert [m.line for m in commands] == [m.line for m in headers
                                          if m.text.endswith(command)]
    assert {m.text for m in commands} == {command}


def test_a_region_without_tables_before_a_header_is_an_error_at_its_line():
    # the 2nd region's header at once followed by a header again: its tables are gone
    text = _every_region()
    lines = text.splitlines(keepends=True)
    second = _lines_starting(text, "Region <")[1]
    end = next(k for k in range(second, len(lines)) if lines[k].startswith("CPU name:")) - 1
    damaged = "".join(lines[:second] + lines[end:])  # region line kept, its tables cut
    with pytest.raises(LikwidFormatError) as raised:
        parse_text(damaged, "damaged.txt")
    assert raised.value.line == second
    assert "an Event or Metric table after this region header" in str(raised.value)
