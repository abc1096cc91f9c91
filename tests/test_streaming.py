"""The text and CSV readers read a file in pieces (roofline_widget.io.stream, io.lines).

A file is read twice, chunk by chunk: once for its encoding, its layout and its likwid-topology
block, once for the parser, which holds a piece of whole lines at a time.  Every bundled sample read with
chunks of a few bytes (every line and every "\\r\\n" cut somewhere) gives the run the default
chunks give; what the whole-text reader decided on the whole file (the layout, latin-1 for a
file that is no UTF-8) is still decided on the whole file.  Peak memory is measured in
benchmarks/bench_memory.py.
"""

from __future__ import annotations

import gzip
import warnings
from pathlib import Path

import pandas as pd
import pytest
from wild_samples import LULESH_SIZES, MPIRUN_NIL

from roofline_widget import read_likwid, sample_names, sample_path
from roofline_widget.errors import LikwidFormatError
from roofline_widget.io import read_likwid_text, stream
from roofline_widget.io.lines import Pieces, read_in_pieces

GMG_MEM = "gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt"
CSV_SAMPLE = "ufpr_coffeelake_i5-7500_lw43_FLOPS_DP_4regions_1t_O.csv"


def _read(path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return read_likwid(path)


def _same_run(a, b) -> None:
    pd.testing.assert_frame_equal(a.table, b.table)
    pd.testing.assert_frame_equal(a.events, b.events)
    pd.testing.assert_frame_equal(a.stats, b.stats)
    assert (a.layout, a.cpu_name, a.warnings) == (b.layout, b.cpu_name, b.warnings)
    assert [r.label for r in a.runs] == [r.label for r in b.runs]
    assert a.topology == b.topology


READABLE = [name for name in sample_names() if "readme_bench" not in name]


@pytest.mark.parametrize("name", READABLE)
def test_tiny_chunks_read_every_sample_alike(monkeypatch, name):
    whole = _read(sample_path(name))
    monkeypatch.setattr(stream, "CHUNK", 7)  # every line, every "\r\n" cut somewhere
    _same_run(_read(sample_path(name)), whole)


def test_tiny_chunks_read_the_multi_run_csv_and_mpirun_samples_alike(monkeypatch):
    whole = [_read(LULESH_SIZES), _read(MPIRUN_NIL)]
    monkeypatch.setattr(stream, "CHUNK", 4099)
    for path, expected in zip((LULESH_SIZES, MPIRUN_NIL), whole):
        _same_run(_read(path), expected)


def test_crlf_split_between_chunks_and_lone_cr(monkeypatch, tmp_path):
    text = Path(sample_path(GMG_MEM)).read_text()
    expected = _read(sample_path(GMG_MEM))
    for newline, chunk in (("\r\n", 1), ("\r\n", 2), ("\r", 3)):
        path = tmp_path / f"newline_{chunk}.txt"
        path.write_bytes(text.replace("\n", newline).encode())
        monkeypatch.setattr(stream, "CHUNK", chunk)
        pd.testing.assert_frame_equal(_read(path).table.drop(columns="source"),
                                      expected.table.drop(columns="source"))


def test_layout_is_decided_on_the_whole_file(monkeypatch, tmp_path):
    # a CSV table after 3 MB of program output (beyond the 2 MB looked at line by line)
    path = tmp_path / "late_csv.log"
    path.write_text("Starting iteration\n" * 160_000 + Path(sample_path(CSV_SAMPLE)).read_text())
    monkeypatch.setattr(stream, "CHUNK", 65536)
    run = _read(path)
    assert run.layout == "perfctr-csv"
    assert run.regions == ["multMatVet_NAO_OTIM", "multMatVet_COM_OTIM", "multMatMat_NAO_OTIM",
                           "multMatMat_COM_OTIM"]
    assert run.table["line"].min() > 160_000  # line numbers count the output before the tables


def test_latin1_byte_late_in_the_file_decodes_the_whole_file_as_latin1(monkeypatch, tmp_path):
    # UTF-8 "é" in the first region's name, a latin-1 byte (0xE9) far behind: the file is no
    # UTF-8, so every byte is latin-1, the first name too (as decoding the whole text does)
    text = Path(sample_path(GMG_MEM)).read_text()
    path = tmp_path / "mixed.txt"
    path.write_bytes(text.replace("Region Setup,", "Region Setup\u00e9,", 1).encode()
                     + b"x" * 50_000 + b"\ncaf\xe9\n")
    monkeypatch.setattr(stream, "CHUNK", 4096)
    assert _read(path).regions == ["Setup\u00c3\u00a9", "Solve"]


def test_topology_block_beyond_the_first_chunks_keeps_its_line_numbers(monkeypatch, tmp_path):
    from likwid_render import topology

    from roofline_widget.io.topology import parse_topology

    log = "padding line\n" * 5000 + topology(sockets=2, cores=4) + "\n" \
        + Path(sample_path(GMG_MEM)).read_text()
    path = tmp_path / "job.log"
    path.write_text(log)
    monkeypatch.setattr(stream, "CHUNK", 1000)
    found = _read(path).topology
    assert found == parse_topology(log, str(path))  # what the whole text gives
    assert (found.sockets, found.cores_per_socket) == (2, 4)
    # 5000 padding lines, then an hline, CPU name, CPU type and stars: the header is line 5005
    assert found.line == 5005
    assert found.cpu_name == "Intel(R) Xeon(R) Gold 6132 CPU @ 2.60GHz"
    assert [c.level for c in found.caches] == [1, 2, 3]


def test_gzip_cut_in_the_middle_is_a_format_error_even_when_read_in_pieces(monkeypatch, tmp_path):
    data = gzip.compress(("Starting iteration\n" * 200_000).encode()
                         + Path(sample_path(GMG_MEM)).read_bytes())
    path = tmp_path / "cut.txt.gz"
    path.write_bytes(data[: len(data) // 2])
    monkeypatch.setattr(stream, "CHUNK", 4096)
    with pytest.raises(LikwidFormatError, match="a complete gzip-compressed file"):
        read_likwid(path)


def test_strings_are_read_in_pieces_too(monkeypatch):
    text = Path(sample_path(CSV_SAMPLE)).read_text()
    whole = read_likwid_text(text, "ufpr.csv")
    monkeypatch.setattr(stream, "CHUNK", 5)
    _same_run(read_likwid_text(text, "ufpr.csv"), whole)
    with pytest.raises(LikwidFormatError, match="no LIKWID table"):
        read_likwid_text("   \n\n", "blank.txt")  # a string is judged by its layout, as before


# ------------------------------------------------------------------ the pieces
def test_pieces_split_like_universal_newlines():
    pieces = Pieces([b"a\r", b"\nb\rc\n", b"\xef\xbb", b"\xbfd\n", b"e"], size=3)
    assert b"".join(pieces) == b"a\nb\nc\nd\ne"  # a mark cut between two chunks is dropped too
    assert pieces.cut_last_line
    ended = Pieces.of_text("x\r\ny\r")
    assert b"".join(ended) == b"x\ny\n"
    assert not ended.cut_last_line


def test_every_line_is_read_once_in_order_whatever_the_pieces():
    lines = [f"line {k}" for k in range(10_000)]
    seen: list[str] = []
    calls = []

    def read(piece):  # finishes every line but the last of each piece
        done = piece.count if piece.last else piece.count - 1
        seen.extend(piece.line(k) for k in range(done))
        calls.append(piece.first)
        return done

    total = read_in_pieces(Pieces.of_text("\n".join(lines) + "\n", size=1000), read)
    assert total == 10_000
    assert seen == lines


def test_a_reader_that_finishes_nothing_gets_twice_the_text_each_time():
    sizes = []

    def read(piece):  # a table that runs to the end of the text
        sizes.append(len(piece.data))
        return piece.count if piece.last else 0

    read_in_pieces(Pieces.of_text("| row |\n" * 100_000, size=1000), read)
    assert len(sizes) < 15  # 800 kB in pieces of 1 kB: doubling, not one call per piece
    assert sizes[-1] == 800_000
