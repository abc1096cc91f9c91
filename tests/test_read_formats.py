"""The readers' front end: format= choices, the shared opener, one warning class."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import warnings
from pathlib import Path

import pandas as pd
import pytest

from roofline_widget import read_likwid, sample_path
from roofline_widget.errors import LikwidFormatError, LikwidReadWarning
from roofline_widget.io import FORMATS, read_likwid_text
from roofline_widget.io.bench import read_likwid_bench
from roofline_widget.model import CPU, GPU, Device, Layout
from roofline_widget.units import UnitKind, parse_unit

TEXT = "gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt"
CSV = "ufpr_coffeelake_i5-7500_lw43_FLOPS_DP_4regions_1t_O.csv"
BENCH = "likwid_readme_bench_triad_avx_skylake_i7-6700K.txt"


def _same_run(a, b):
    pd.testing.assert_frame_equal(a.table.drop(columns="source"), b.table.drop(columns="source"))
    pd.testing.assert_frame_equal(a.events, b.events)
    assert (a.layout, a.likwid_version, a.cpu_name) == (b.layout, b.likwid_version, b.cpu_name)


def test_formats_table_lists_the_registered_formats():
    assert FORMATS == ("text", "csv", "scope-h5", "rocprof", "ncu")


@pytest.mark.parametrize(("name", "fmt"), [(TEXT, "text"), (CSV, "csv")])
def test_explicit_format_reads_like_detection(name, fmt):
    _same_run(read_likwid(sample_path(name), format=fmt), read_likwid(sample_path(name)))


def test_wrong_format_is_a_format_error_not_a_crash():
    with pytest.raises(LikwidFormatError, match="TABLE"):
        read_likwid(sample_path(TEXT), format="csv")


def test_unknown_format_lists_the_valid_ones():
    with pytest.raises(ValueError, match=r"'xml'.*'text', 'csv', 'scope-h5', 'rocprof', 'ncu'"):
        read_likwid(sample_path(TEXT), format="xml")
    with pytest.raises(ValueError, match="valid formats"):
        read_likwid_text("+--+", format="perfctr")


@pytest.mark.parametrize(("compress", "suffix"), [(gzip.compress, ".gz"), (bz2.compress, ".bz2"),
                                              (lzma.compress, ".xz")])
@pytest.mark.parametrize("name", [TEXT, CSV])
def test_compressed_files_read_to_identical_tables(tmp_path, compress, suffix, name):
    plain = read_likwid(sample_path(name))
    # the suffix is not what decides: a misleading name reads the same
    for target in (tmp_path / (name + suffix), tmp_path / name):
        target.write_bytes(compress(Path(sample_path(name)).read_bytes()))
        packed = read_likwid(target)
        _same_run(packed, plain)
        assert packed.sources == (str(target),)
        # the Sum of DRAM bandwidth, hand-checked against the plain file's table
        assert packed.table.iloc[:, 12:].sum().sum() == pytest.approx(
            plain.table.iloc[:, 12:].sum().sum())


def test_damaged_compressed_file_is_a_format_error(tmp_path):
    path = tmp_path / "cut.txt.gz"
    path.write_bytes(gzip.compress(Path(sample_path(TEXT)).read_bytes())[:200])
    with pytest.raises(LikwidFormatError, match="gzip") as info:
        read_likwid(path)
    assert info.value.source == str(path)


def test_file_objects_text_and_binary():
    plain = read_likwid(sample_path(TEXT))
    with open(sample_path(TEXT), "rb") as handle:
        binary = read_likwid(handle)
    assert binary.sources == (sample_path(TEXT),)
    _same_run(binary, plain)
    text = read_likwid(io.StringIO(Path(sample_path(TEXT)).read_text()), label="mem")
    assert text.sources == ("<stream>",)
    assert text.label == "mem"
    _same_run(text, plain)
    merged = read_likwid([io.BytesIO(Path(sample_path(TEXT)).read_bytes())])
    assert len(merged.table) == len(plain.table)


def test_bom_and_latin1(tmp_path):
    raw = Path(sample_path(TEXT)).read_bytes()
    bom = tmp_path / "bom.txt"
    bom.write_bytes(b"\xef\xbb\xbf" + raw)
    _same_run(read_likwid(bom), read_likwid(sample_path(TEXT)))
    latin = tmp_path / "latin.txt"
    latin.write_bytes(raw + b"Caf\xe9: application output after the tables\n")
    _same_run(read_likwid(latin), read_likwid(sample_path(TEXT)))


def test_empty_stream_and_directory(tmp_path):
    with pytest.raises(LikwidFormatError, match="an empty file"):
        read_likwid(io.BytesIO(b""))
    with pytest.raises(LikwidFormatError, match="not a directory"):
        read_likwid(tmp_path)
    with pytest.raises(LikwidFormatError, match="not a directory"):
        read_likwid_bench(tmp_path)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(LikwidFormatError, match="a regular file"):
        read_likwid(fifo)


def test_bench_warns_likwid_read_warning(tmp_path):
    readme = Path(sample_path(BENCH)).read_text()
    path = tmp_path / "killed.txt"
    path.write_text(readme + readme.split("Cycles:")[0])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        results = read_likwid_bench(path)
    assert [r.kernel for r in results] == ["triad_avx"]
    assert [w.category for w in caught] == [LikwidReadWarning]
    assert str(caught[0].message).startswith(f"{path}: read, but passed over 1 part(s)")
    assert "line 52: likwid-bench run without" in str(caught[0].message)


def test_bench_reads_compressed_and_file_objects(tmp_path):
    (plain,) = read_likwid_bench(sample_path(BENCH))
    path = tmp_path / "bench.xz"
    path.write_bytes(lzma.compress(Path(sample_path(BENCH)).read_bytes()))
    (packed,) = read_likwid_bench(path)
    assert (packed.kernel, packed.gbs, packed.gflops) == ("triad_avx", 11.16334, 0.69771)
    assert packed == BenchResultLike(plain, str(path))
    with open(sample_path(BENCH), encoding="utf-8") as handle:
        (streamed,) = read_likwid_bench(handle)
    assert streamed.gbs == plain.gbs


def BenchResultLike(result, source):
    from dataclasses import replace
    return replace(result, source=source)


def test_enums_equal_their_strings():
    assert CPU is Device.CPU
    assert CPU == "cpu"
    assert GPU == "gpu"
    assert f"{GPU}" == "gpu"
    assert UnitKind.FLOP_RATE == "flop_rate"
    assert UnitKind.BYTE_RATE == "byte_rate"
    assert UnitKind.UOP_RATE == "uop_rate"
    assert parse_unit("DP [MFLOP/s]").kind is UnitKind.FLOP_RATE
    run = read_likwid(sample_path(CSV))
    assert run.layout is Layout.PERFCTR_CSV
    assert run.layout == "perfctr-csv"
    # the table holds plain strings, as before
    assert list(run.table["device"].cat.categories) == ["cpu"]
    assert type(run.table["device"].cat.categories[0]) is str


# ------------------------------------------------------------------ special files, cap
class _Endless(io.RawIOBase):
    """A file object like /dev/zero: every read returns as many zeros as asked."""

    name = "endless-stream"

    def __init__(self):
        self.asked = []

    def readable(self):
        return True

    def read(self, size=-1):
        assert size is not None, "reads in bounded chunks"
        assert 0 < size <= 16 * 2**20, "reads in bounded chunks"
        self.asked.append(size)
        return b"0" * size


def test_endless_file_object_stops_at_the_cap(monkeypatch):
    from roofline_widget.io import opener
    monkeypatch.setattr(opener, "MAX_BYTES", 40 * 2**20)
    stream = _Endless()
    with pytest.raises(LikwidFormatError, match=r"endless-stream: expected at most 41,943,040 "
                                                r"bytes of LIKWID output .*MAX_BYTES"):
        read_likwid(stream)
    assert sum(stream.asked) == 40 * 2**20 + 1  # never more than the cap and one byte


def test_text_file_object_is_capped_too(monkeypatch):
    from roofline_widget.io import opener
    monkeypatch.setattr(opener, "MAX_BYTES", 1000)
    with open(sample_path(TEXT), encoding="utf-8") as handle:
        with pytest.raises(LikwidFormatError, match="at most 1,000 bytes"):
            read_likwid(handle)


def test_file_over_the_cap_is_refused_by_its_size(monkeypatch, tmp_path):
    from roofline_widget.io import opener
    size = Path(sample_path(TEXT)).stat().st_size
    monkeypatch.setattr(opener, "MAX_BYTES", size - 1)
    with pytest.raises(LikwidFormatError, match=f"{TEXT}: expected at most {size - 1:,} bytes"):
        read_likwid(sample_path(TEXT))
    monkeypatch.setattr(opener, "MAX_BYTES", size)  # exactly the cap is read
    assert read_likwid(sample_path(TEXT)).regions == ["Setup", "Solve"]


def test_compression_bomb_stops_at_the_cap(monkeypatch, tmp_path):
    from roofline_widget.io import opener
    monkeypatch.setattr(opener, "MAX_BYTES", 2**20)
    bomb = tmp_path / "bomb.gz"
    bomb.write_bytes(gzip.compress(b"0" * (8 * 2**20)))
    assert bomb.stat().st_size < 2**20  # the file itself is under the cap
    with pytest.raises(LikwidFormatError, match=r"bomb\.gz: expected at most 1,048,576 bytes"):
        read_likwid(bomb)


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero here")
def test_dev_zero_is_refused_without_reading():
    with pytest.raises(LikwidFormatError, match=r"a regular file.*device"):
        read_likwid("/dev/zero")
    with pytest.raises(LikwidFormatError, match="a regular file"):
        read_likwid_bench("/dev/zero")


# ------------------------------------------------------------------ encodings
@pytest.mark.parametrize("codec", ["utf-16", "utf-16-le", "utf-16-be", "utf-32"])
def test_utf16_and_utf32_files_with_a_byte_order_mark(tmp_path, codec):
    text = Path(sample_path(TEXT)).read_text(encoding="utf-8")
    path = tmp_path / "utf16.txt"
    bom = {"utf-16-le": b"\xff\xfe", "utf-16-be": b"\xfe\xff"}.get(codec, b"")
    path.write_bytes(bom + text.encode(codec))
    _same_run(read_likwid(path), read_likwid(sample_path(TEXT)))


def test_utf16_cut_inside_a_character_is_a_format_error(tmp_path):
    path = tmp_path / "odd.txt"
    path.write_bytes("CPU name:\tx\n".encode("utf-16")[:-1])
    with pytest.raises(LikwidFormatError, match="UTF-16 text"):
        read_likwid(path)


@pytest.mark.filterwarnings("ignore::roofline_widget.errors.LikwidReadWarning")
def test_byte_order_mark_in_the_middle_of_a_file(tmp_path):
    """``cat a.txt b.txt`` where b.txt starts with a BOM: the BOM is dropped, both runs read."""
    first = Path(sample_path("likwidjl_zen3_epyc7763_FLOPS_DP_1region_1t.txt")).read_bytes()
    text = Path(sample_path(TEXT)).read_bytes()
    second = text[text.index(b"Region Setup"):]  # b.txt starts at the first region header
    plain, marked = tmp_path / "plain.txt", tmp_path / "bom.txt"
    plain.write_bytes(first + second)
    marked.write_bytes(first + b"\xef\xbb\xbf" + second)
    run = read_likwid(marked)
    assert run.regions == ["saxpy", "Setup", "Solve"]
    _same_run(run, read_likwid(plain))
    assert run.warnings == read_likwid(plain).warnings


def test_a_file_that_mentions_mflops_is_no_bench_output(tmp_path):
    path = tmp_path / "app.log"
    path.write_text("my solver reached MFlops/s: 1234 on 4 cores\ndone\n")
    with pytest.raises(LikwidFormatError) as info:
        read_likwid(path)
    assert "likwid-bench" not in str(info.value)
    assert info.value.found == "no LIKWID table"
    bench = Path(sample_path(BENCH))
    with pytest.raises(LikwidFormatError, match="holds only likwid-bench results"):
        read_likwid(bench)


@pytest.mark.skipif(not os.path.isfile("/proc/self/status"), reason="no /proc here")
def test_file_longer_than_its_stat_size_is_read_to_the_end_and_capped(monkeypatch):
    """/proc files say size 0 and hold more, like a log that grows while it is read."""
    from roofline_widget.io import opener
    assert os.stat("/proc/self/status").st_size == 0
    data = opener.read_bytes("/proc/self/status")
    assert data.startswith(b"Name:")
    assert b"\nPid:" in data
    with pytest.raises(LikwidFormatError, match="/proc/self/status: expected at most 10 bytes"):
        opener.read_bytes("/proc/self/status", limit=10)
