"""Units parsed from LIKWID metric names."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from roofline_widget.errors import LikwidFormatError
from roofline_widget.units import UnitKind, parse_unit, split_metric_name


@pytest.mark.parametrize(("name", "kind", "to_giga"), [
    # LIKWID >= 5.0 group names
    ("DP [MFLOP/s]", UnitKind.FLOP_RATE, 1e-3),
    ("AVX512 DP [MFLOP/s]", UnitKind.FLOP_RATE, 1e-3),
    ("FP rate [MFLOP/s]", UnitKind.FLOP_RATE, 1e-3),
    ("Packed [MUOPS/s]", UnitKind.UOP_RATE, 1e-3),
    ("Memory bandwidth [MBytes/s]", UnitKind.BYTE_RATE, 1e-3),
    ("L3|MEM evict bandwidth [MBytes/s]", UnitKind.BYTE_RATE, 1e-3),
    ("Memory bandwidth (channels 0-3) [MBytes/s]", UnitKind.BYTE_RATE, 1e-3),
    ("UPI bandwidth [MByte/s]", UnitKind.BYTE_RATE, 1e-3),
    ("Memory data volume [GBytes]", UnitKind.BYTE_VOLUME, 1.0),
    # LIKWID 4.x names without brackets, likwid-bench spellings
    ("DP MFLOP/s", UnitKind.FLOP_RATE, 1e-3),
    ("AVX DP MFLOP/s", UnitKind.FLOP_RATE, 1e-3),
    ("MFLOP/s", UnitKind.FLOP_RATE, 1e-3),
    ("DP MFLOP/s (AVX assumed)", UnitKind.FLOP_RATE, 1e-3),
    ("Packed MUOPS/s", UnitKind.UOP_RATE, 1e-3),
    ("VSX MFlops/s", UnitKind.FLOP_RATE, 1e-3),
    ("MFlops/s", UnitKind.FLOP_RATE, 1e-3),
    ("MByte/s", UnitKind.BYTE_RATE, 1e-3),
    # Larger prefixes, which the reference implementation scales as plain FLOP/s
    ("Peak [TFLOP/s]", UnitKind.FLOP_RATE, 1e3),
    ("Peak [PFLOP/s]", UnitKind.FLOP_RATE, 1e6),
    ("Peak [GFLOPS]", UnitKind.FLOP_RATE, 1.0),
    ("HBM bandwidth [TB/s]", UnitKind.BYTE_RATE, 1e3),
    # IEC prefixes: TiB/s is 2**40 B/s = 1099.511627776 GB/s, not 1024
    ("HBM bandwidth [TiB/s]", UnitKind.BYTE_RATE, 1099.511627776),
    ("X [GiB/s]", UnitKind.BYTE_RATE, 1.073741824),
    ("X [MiB/s]", UnitKind.BYTE_RATE, 0.001048576),
    ("X [kB/s]", UnitKind.BYTE_RATE, 1e-6),
])
def test_rates_and_volumes(name, kind, to_giga):
    unit = parse_unit(name)
    assert unit.kind == kind
    assert unit.to_giga == pytest.approx(to_giga, rel=1e-15)


@pytest.mark.parametrize(("name", "kind"), [
    ("Operational intensity", UnitKind.INTENSITY),
    ("Operational intensity [FLOP/Byte]", UnitKind.INTENSITY),
    ("Runtime (RDTSC) [s]", UnitKind.TIME),
    ("CPI", UnitKind.OTHER),
    ("Clock [MHz]", UnitKind.OTHER),
    ("Energy [J]", UnitKind.OTHER),
    ("Vectorization ratio [%]", UnitKind.OTHER),
    ("Vectorization ratio", UnitKind.OTHER),
    ("Flops per DP instr", UnitKind.OTHER),
])
def test_metrics_that_are_not_rates(name, kind):
    unit = parse_unit(name)
    assert unit.kind == kind
    assert not unit.is_rate
    assert math.isnan(unit.to_giga)


def test_split_keeps_suffixes():
    assert split_metric_name("DP [MFLOP/s] (scalar assumed)") == ("DP", "MFLOP/s", "(scalar assumed)")
    assert split_metric_name("CPI") == ("CPI", "", "")


_DECIMAL = {"": 1.0, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}
_BINARY = {"Ki": 1024.0, "Mi": 1024.0**2, "Gi": 1024.0**3, "Ti": 1024.0**4, "Pi": 1024.0**5}


@given(prefix=st.sampled_from(sorted(_DECIMAL)), spelling=st.sampled_from(["FLOP/s", "Flops/s", "FLOPS/s"]),
       stem=st.sampled_from(["DP", "SP", "AVX512 DP", "FP rate"]))
def test_flop_prefixes_convert_exactly(prefix, spelling, stem):
    unit = parse_unit(f"{stem} [{prefix}{spelling}]")
    assert unit.kind == UnitKind.FLOP_RATE
    assert unit.to_giga == _DECIMAL[prefix] / 1e9


@given(prefix=st.sampled_from(sorted({**_DECIMAL, **_BINARY})),
       spelling=st.sampled_from(["Bytes/s", "Byte/s", "B/s"]))
def test_byte_prefixes_convert_exactly(prefix, spelling):
    unit = parse_unit(f"Memory bandwidth [{prefix}{spelling}]")
    assert unit.kind == UnitKind.BYTE_RATE
    assert unit.to_giga == {**_DECIMAL, **_BINARY}[prefix] / 1e9


def test_error_message_names_file_line_and_expectation():
    err = LikwidFormatError("run.txt", 12, "a table row with 5 cells", "| a | b |")
    assert isinstance(err, ValueError)
    assert str(err) == "run.txt, line 12: expected a table row with 5 cells, found '| a | b |'"
    assert (err.source, err.line) == ("run.txt", 12)
    whole_file = LikwidFormatError("empty.txt", None, "LIKWID output", "an empty file")
    assert str(whole_file) == "empty.txt: expected LIKWID output, found 'an empty file'"
