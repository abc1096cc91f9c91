"""Cells that hold no value, and cells that only look like numbers, in every LIKWID reader.

LIKWID prints ``-`` for a counter it could not read, ``nil`` where a statistic is undefined
(sample 18: the STAT ``Avg`` of ``TOPDOWN_SLOTS``), ``nan``/``-nan`` for 0/0 and ``inf`` where a
value overflowed: every one is "not measured" (NaN), never 0, in the text, CSV, likwid-mpirun and
likwid-bench readers.  Python's ``float`` also reads ``1_16.3005``, ``1e1_0`` and non-ASCII
digits, none of which LIKWID writes: they are errors naming the line (on a one-thread file no
STAT row would catch them).
"""

from __future__ import annotations

import io
import math
import warnings

import numpy as np
import pytest
from wild_samples import MPIRUN_NIL, wild_text

from roofline_widget import read_likwid, sample_path
from roofline_widget.errors import LikwidFormatError, RegionsLeftOutWarning
from roofline_widget.io.bench import read_likwid_bench
from roofline_widget.io.stat_check import stat_mismatches
from roofline_widget.io.topology import parse_topology
from roofline_widget.points import left_out_regions, points_dataframe

#: Every "no value" text LIKWID prints (and the spellings of the C library's printf and Lua's
#: tostring for them).
NO_VALUE = ["-", "nil", "nan", "-nan", "inf", "-inf", "NaN", "Inf"]
#: Texts Python's float reads but LIKWID never prints.
NOT_LIKWID_NUMBERS = ["1_16.3005", "\uff11\uff12", "\u0661\u0662\u0663", "1e1_0", "infinity",
                      "0x1f"]

MEM_DP = "gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt"
JULIA = "likwidjl_zen3_epyc7763_FLOPS_DP_1region_1t.txt"
UFPR_CSV = "ufpr_coffeelake_i5-7500_lw43_FLOPS_DP_4regions_1t_O.csv"
BENCH = "likwid_readme_bench_triad_avx_skylake_i7-6700K.txt"


def _sample(name: str) -> str:
    with open(sample_path(name), encoding="utf-8") as handle:
        return handle.read()


def _read(text: str, **keywords):
    return read_likwid(io.BytesIO(text.encode("utf-8")), **keywords)


def _cell(old: str, token: str) -> str:
    """``token`` centred in the width of the table cell ``old`` (LIKWID centres strings)."""
    return token.center(len(old))


# ------------------------------------------------------------------ sample 18: nil in a STAT table
def test_mpirun_sample_with_nil_stat_cell_reads():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no STAT mismatch, nothing passed over
        run = read_likwid(MPIRUN_NIL)
    assert len(run.table) == 24
    assert run.ranks == list(range(24))
    topdown = run.stats[(run.stats["name"] == "TOPDOWN_SLOTS:FIXC3")].iloc[0]
    # line 642: | TOPDOWN_SLOTS STAT | FIXC3 | 264566147684440 | 11012383013460 | 11030125123715 | nil |
    assert math.isnan(topdown["Avg"])
    assert topdown["Sum"] == 264566147684440
    assert topdown["Min"] == 11012383013460
    # The per-rank values sum to LIKWID's STAT Sum rows: DP [MFLOP/s] STAT Sum 321220.6676
    # (line 702), Memory bandwidth [MBytes/s] STAT Sum 53388.0431 (line 710, rank 0 only).
    assert run.table["DP [MFLOP/s]"].sum() == pytest.approx(321220.6676, abs=24 * 5e-5)
    assert run.table["Memory bandwidth [MBytes/s]"].sum() == pytest.approx(53388.0431)
    assert stat_mismatches(run) == []


# ------------------------------------------------------------------ every token, every reader
@pytest.mark.parametrize("token", NO_VALUE)
def test_no_value_in_a_text_table_is_not_measured(token):
    # Setup, HWThread 2 (Core 2): DP [MFLOP/s] 477.1800 (line 74) becomes the token.
    text = _sample(MEM_DP)
    row = "|            DP [MFLOP/s]           |  517.2402 |  478.9738 |  477.1800 |  476.6683 |"
    assert row in text
    text = text.replace(row, row.replace(" 477.1800 ", _cell(" 477.1800 ", token)), 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the STAT Sum (1950.0623) still counts the thread
        run = _read(text)
    setup = run.table[run.table["region"] == "Setup"]
    assert np.isnan(setup["DP [MFLOP/s]"].iloc[2])
    assert setup["DP [MFLOP/s]"].iloc[[0, 1, 3]].tolist() == [517.2402, 478.9738, 476.6683]
    # The point needs the FLOP rate of every thread: Setup is left out, the thread named.
    with pytest.warns(RegionsLeftOutWarning):
        points = points_dataframe(run)
    assert points["region"].tolist() == ["Solve"]
    reason = left_out_regions(run).set_index("region").loc["Setup", "reason"]
    assert "Core 2 not measured" in reason
    assert "DP [MFLOP/s]" in reason
    # Kept on request: the sum over the three measured threads, 517.2402 + 478.9738 + 476.6683.
    kept = points_dataframe(run, unmeasured="keep").set_index("region").loc["Setup"]
    assert kept["performance_gflops"] == pytest.approx(1.4728823)
    assert kept["unmeasured_threads"] == 1


@pytest.mark.parametrize("token", NO_VALUE)
def test_no_value_in_a_csv_table_is_not_measured(token):
    # multMatVet_NAO_OTIM: "DP MFLOP/s,2116.0763," (line 28), one thread.
    text = _sample(UFPR_CSV)
    assert "DP MFLOP/s,2116.0763," in text
    run = _read(text.replace("DP MFLOP/s,2116.0763,", f"DP MFLOP/s,{token},", 1))
    values = run.table.set_index("region")["DP MFLOP/s"]
    assert np.isnan(values["multMatVet_NAO_OTIM"])
    assert values["multMatVet_COM_OTIM"] == 3148.4703  # the next region is untouched


@pytest.mark.parametrize("token", NO_VALUE)
def test_no_value_in_a_likwid_mpirun_table_is_not_measured(token):
    # Rank 5 (column f0472:5:5): DP [MFLOP/s] 13449.1641 (line 678).
    text = wild_text(MPIRUN_NIL)
    lines = text.splitlines(keepends=True)
    assert "DP [MFLOP/s]" in lines[677]
    assert lines[677].count(" 13449.1641 ") == 1
    lines[677] = lines[677].replace(" 13449.1641 ", _cell(" 13449.1641 ", token))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the STAT Sum still counts rank 5
        run = _read("".join(lines))
    dp = run.table.set_index("rank")["DP [MFLOP/s]"]
    assert np.isnan(dp[5])
    assert (dp[4], dp[6]) == (13371.9352, 13371.1855)


@pytest.mark.parametrize("token", NO_VALUE)
def test_no_value_in_a_likwid_bench_result_is_nan(token):
    text = _sample(BENCH).replace("MByte/s:\t\t11163.34", f"MByte/s:\t\t{token}")
    result, = read_likwid_bench(io.BytesIO(text.encode()))
    assert math.isnan(result.gbs)
    assert result.gflops == pytest.approx(0.69771)  # MFlops/s: 697.71, untouched


# ------------------------------------------------------------------ number forms LIKWID never prints
@pytest.mark.parametrize("cell", NOT_LIKWID_NUMBERS)
def test_a_number_form_likwid_never_prints_is_an_error_in_text(cell):
    # One thread, so no STAT table: line 33 "|     DP [MFLOP/s]     |     1.0774 |".
    text = _sample(JULIA)
    row = "|     DP [MFLOP/s]     |     1.0774 |"
    assert row in text
    with pytest.raises(LikwidFormatError, match="numbers or '-'") as info:
        _read(text.replace(row, row.replace("    1.0774", cell.rjust(10)), 1))
    assert info.value.line == 33


@pytest.mark.parametrize("cell", NOT_LIKWID_NUMBERS)
def test_a_number_form_likwid_never_prints_is_an_error_in_csv(cell):
    text = _sample(UFPR_CSV)
    with pytest.raises(LikwidFormatError, match="numbers or '-'") as info:
        _read(text.replace("DP MFLOP/s,2116.0763,", f"DP MFLOP/s,{cell},", 1))
    assert info.value.line == 28


@pytest.mark.parametrize("header", ["HWThread 0_0", " HWThread \uff10 ", " HWThread \u0660 "])
def test_a_thread_header_with_digits_likwid_never_prints_is_an_error(header):
    text = _sample(JULIA)
    assert "| HWThread 0 |" in text
    text = text.replace(" HWThread 0 ", header)  # the same width: the tables stay aligned
    with pytest.raises(LikwidFormatError, match="per-thread column headers"):
        _read(text)


@pytest.mark.parametrize("cell", ["1_6", "\uff11\uff16", "16.0"])
def test_bench_and_topology_counts_are_ascii_integers(cell):
    text = _sample(BENCH).replace("Using 3 threads", f"Using {cell} threads")
    with pytest.warns(UserWarning, match="without its 'Using N threads' line"), \
            pytest.raises(LikwidFormatError, match="no likwid-bench result"):
        read_likwid_bench(io.BytesIO(text.encode()))
    topology = ("Hardware Thread Topology\n" + "*" * 80 + f"\nSockets:\t\t{cell}\n"
                "Cores per socket:\t8\nThreads per core:\t1\n")
    with pytest.raises(LikwidFormatError, match="an integer after 'Sockets:'"):
        parse_topology(topology, "topology.txt")
