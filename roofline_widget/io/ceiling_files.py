"""Ceiling files of other tools: the Empirical Roofline Toolkit's roofline.json, rocprof-compute's roofline.csv.

Both measure a machine's ceilings with micro-benchmarks, as likwid-bench
does; each roof read keeps where it came from (``source``, ``provenance``).

ERT ``roofline.json`` (:func:`read_ert_roofline`)
    ``{"empirical": {"gbytes": {"data": [["L1", 8259.44], ["L2", 3120.85],
    ["DRAM", 200.3]], "metadata": {...}}, "gflops": {"data": [["FP64 GFLOPs",
    2772.78]], "metadata": {...}}}, "spec": {...}}``: one bandwidth roof per
    ``gbytes`` entry (``L1``, ``L2``, ``L3``; ``DRAM``, ``HBM``, ``MCDRAM``
    are MEM), one compute roof per ``gflops`` entry (``FP64`` is DP, ``FP32``
    SP, ``FP16`` HP).  ERT writes its ``META_DATA`` lines per block (the
    version, the OpenMP threads and MPI processes, the host, the build
    configuration): they are kept in each roof's provenance (``metadata``,
    ``openmp_threads``, ``mpi_processes``, ``ert_version``, ``hostname``),
    and ``ERT_GPU`` in the configuration says the device.  The ``spec`` block
    (datasheet values) is read too, with the source ``"spec sheet"``.
rocprof-compute (Omniperf) ``roofline.csv`` (:func:`read_rocprof_roofline`)
    One row per GPU (``device``): ``HBMBw``, ``L2Bw``, ``L1Bw``, ``LDSBw``
    (GB/s), ``FP32Flops``, ``FP64Flops``, ``MFMA{BF16,F16,F32,F64}Flops``
    (GFLOP/s), each with ``...Low`` and ``...High`` columns (the benchmark's
    range, kept as the roof's ``provenance["range"]``).  HBM is the MEM
    level; LDS (the local data share, a scratchpad) bounds no cache level:
    its roof has no level.  The vector roofs are ``DP`` and ``SP``, the
    matrix cores' ``MFMA F64``, ``MFMA F32``, ``MFMA F16`` and ``MFMA BF16``
    (the precisions of the kernels' ``MFMA F64 [MFLOP/s]`` ... metrics);
    every roof is of the family ``"amd"``, so that on a plot with NVIDIA
    kernels it judges only AMD kernels.  ``MFMAI8Ops`` counts integer
    operations, no FLOPs: not a roof.  The
    header's spelling varies (``hbmBwHigh``, ``MFMAFI8OpsLow``): columns are
    matched without case.

Bad content is a :class:`~roofline_widget.errors.CeilingFileError` naming
the file, the line where there is one, and what was expected.
"""

from __future__ import annotations

import csv
import json
import math
import re
from pathlib import Path

from roofline_widget.errors import CeilingFileError
from roofline_widget.io.opener import PathOrBuffer, open_text, peek
from roofline_widget.roofs.roofline import BandwidthRoof, ComputeRoof

__all__ = ["ERT_LEVELS", "ROCPROF_COMPUTE", "ROCPROF_FAMILY", "ROCPROF_LEVELS", "ceiling_file_kind",
           "read_ert_roofline", "read_rocprof_roofline"]

#: ERT's bandwidth names (upper case) -> memory level.
ERT_LEVELS = {"L1": "L1", "L2": "L2", "L3": "L3", "DRAM": "MEM", "HBM": "MEM", "MCDRAM": "MEM",
              "MEM": "MEM", "MEMORY": "MEM"}
_ERT_PRECISIONS = (("FP64", "DP"), ("FP32", "SP"), ("FP16", "HP"), ("DP", "DP"), ("SP", "SP"))
#: rocprof-compute's bandwidth columns -> (roof name, memory level or None).
ROCPROF_LEVELS = {"hbmbw": ("HBM", "MEM"), "l2bw": ("L2", "L2"), "l1bw": ("vL1D", "L1"),
                  "ldsbw": ("LDS", None)}
#: rocprof-compute's compute columns -> (roof name, precision): the vector units' ``DP``
#: and ``SP``, the matrix cores' own precisions
#: (:data:`~roofline_widget.metric_names.MATRIX_PRECISIONS`), as the reader of the kernels
#: names them (``MFMA F64 [MFLOP/s]``): a matrix kernel is judged against a matrix roof of its
#: kind, a vector kernel never against a matrix core's peak.
ROCPROF_COMPUTE = {"fp64flops": ("FP64", "DP"), "fp32flops": ("FP32", "SP"),
                   "mfmaf64flops": ("MFMA FP64", "MFMA F64"),
                   "mfmaf32flops": ("MFMA FP32", "MFMA F32"),
                   "mfmaf16flops": ("MFMA FP16", "MFMA F16"),
                   "mfmabf16flops": ("MFMA BF16", "MFMA BF16")}
#: The device family of every rocprof-compute roof: an AMD GPU's.
ROCPROF_FAMILY = "amd"
#: At most this many entries are read from one ERT block, and devices from one rocprof file.
MAX_ENTRIES = 10_000


def ceiling_file_kind(path) -> str | None:
    """``"ert"``, ``"rocprof"`` or None (likwid-bench output, or anything else) for a file.

    Told by the first bytes: a JSON object, or a CSV header starting
    ``device,`` with an ``HBMBw`` column.
    """
    try:
        start = peek(path, 512).lstrip(b"\xef\xbb\xbf \t\r\n")
    except (OSError, ValueError):
        return None
    if start.startswith(b"{"):
        return "ert"
    first = start.split(b"\n", 1)[0].lower()
    return "rocprof" if first.startswith(b"device,") and b"hbmbw" in first else None


# ---------------------------------------------------------------- ERT
def _ert_metadata(block: dict) -> list[str]:
    """ERT's META_DATA lines of one block (``{"": [lines], "TIMESTAMP_DB": ...}``)."""
    metadata = block.get("metadata")
    if not isinstance(metadata, dict):
        return []
    lines = []
    for value in list(metadata.values())[:MAX_ENTRIES]:
        if isinstance(value, list):
            lines += [str(line) for line in value[:MAX_ENTRIES] if str(line) != "META_DATA"]
    return lines


def _ert_facts(lines: list[str]) -> dict:
    """The metadata a roof's scope needs, from ERT's ``KEY  value`` lines."""
    facts: dict = {}
    for line in lines:
        key, _, value = line.strip().partition(" ")
        value = value.strip()
        if key == "OPENMP_THREADS" and value.isdigit():
            facts["openmp_threads"] = int(value)
        elif key == "MPI_PROCS" and value.isdigit():
            facts["mpi_processes"] = int(value)
        elif key == "ERT_VERSION":
            facts["ert_version"] = value
        elif key == "HOSTNAME":
            facts["hostname"] = value
        elif key == "CONFIG" and "'ERT_GPU': [True]" in value:
            facts["device"] = "gpu"
        elif key == "CONFIG" and "'ERT_GPU': [False]" in value:
            facts["device"] = "cpu"
    return facts


def _ert_number(value, source: str, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value) or value <= 0:
        raise CeilingFileError(source, None, f"a positive number for {what}", repr(value)[:80])
    return float(value)


def _ert_entries(block, source: str, kind: str) -> list[tuple[str, float]]:
    data = block.get("data") if isinstance(block, dict) else None
    if not isinstance(data, list):
        raise CeilingFileError(source, None, f"a '{kind}' block with a 'data' list of "
                               "[name, value] pairs", repr(block)[:80])
    entries = []
    for entry in data[:MAX_ENTRIES]:
        if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str)):
            raise CeilingFileError(source, None, f"a [name, value] pair in '{kind}.data'",
                                   repr(entry)[:80])
        entries.append((entry[0], _ert_number(entry[1], source, f"{kind} {entry[0]!r}")))
    return entries


def _ert_precision(name: str) -> str | None:
    upper = name.upper()
    return next((p for token, p in _ERT_PRECISIONS if token in upper), None)


def _ert_roofs(section: dict, source: str, origin: str) -> list:
    roofs: list = []
    for kind in ("gflops", "gbytes"):
        block = section.get(kind)
        if block is None:
            continue
        entries = _ert_entries(block, source, kind)
        lines = _ert_metadata(block)
        facts = _ert_facts(lines)
        device = facts.pop("device", None)
        scope = (f", {facts['openmp_threads']} OpenMP threads" if "openmp_threads" in facts
                 else "")
        for name, value in entries:
            provenance = {"file": source, "tool": "Empirical Roofline Toolkit", "block": kind,
                          "entry": name, "metadata": lines, **facts}
            text = f"ERT {origin} {name}{scope} ({Path(source).name})" if origin == "empirical" \
                else "spec sheet"
            if kind == "gflops":
                roofs.append(ComputeRoof(f"{name} (ERT)", value, text, provenance=provenance,
                                         device=device, precision=_ert_precision(name)))
            else:
                level = ERT_LEVELS.get(name.strip().upper())
                roofs.append(BandwidthRoof(f"{name} (ERT)", value, text, level=level,
                                           provenance=provenance, device=device))
    return roofs


def read_ert_roofline(path: PathOrBuffer) -> list:
    """The roofs of an Empirical Roofline Toolkit ``roofline.json``.

    Parameters
    ----------
    path : str, path-like or file object

    Returns
    -------
    list of ComputeRoof and BandwidthRoof
        The ``empirical`` block's roofs (source ``"ERT empirical <name>, <n>
        OpenMP threads (<file>)"``), then the ``spec`` block's (``"spec
        sheet"``); provenance: file, block, entry, the META_DATA lines and
        the facts read from them.

    Raises
    ------
    CeilingFileError
        For a file that is no JSON object with an ``empirical`` block, an
        entry that is no ``[name, positive number]`` pair, or no roof at all.
    """
    opened = open_text(path, "an ERT roofline.json")
    source = opened.name
    try:
        document = json.loads(opened.text)
    except json.JSONDecodeError as exc:
        raise CeilingFileError(source, exc.lineno, "an ERT roofline.json (JSON)",
                               exc.msg) from None
    if not isinstance(document, dict) or not isinstance(document.get("empirical"), dict):
        raise CeilingFileError(source, None, "an ERT roofline.json: a JSON object with an "
                               "'empirical' block of 'gflops' and 'gbytes'")
    roofs = _ert_roofs(document["empirical"], source, "empirical")
    if isinstance(document.get("spec"), dict):
        roofs += _ert_roofs(document["spec"], source, "spec")
    if not roofs:
        raise CeilingFileError(source, None, "at least one 'gflops' or 'gbytes' entry",
                               "no ceiling")
    return roofs


# ---------------------------------------------------------------- rocprof-compute
def _rocprof_value(row: dict, column: str, source: str, line: int) -> float | None:
    text = (row.get(column) or "").strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        raise CeilingFileError(source, line, f"a number in column {column!r}", text) from None
    return value if math.isfinite(value) and value > 0 else None


def _rocprof_range(row: dict, columns: dict, base: str, source: str, line: int) -> tuple | None:
    ends = [columns.get(f"{base}{end}") for end in ("low", "high")]
    values = [None if c is None else _rocprof_value(row, c, source, line) for c in ends]
    return None if None in values else (values[0], values[1])


def _rocprof_roofs(row: dict, columns: dict, source: str, line: int, device: str) -> list:
    roofs: list = []
    where = f"rocprof-compute roofline.csv, GPU {device} ({Path(source).name})"
    for base, (name, what) in [*ROCPROF_LEVELS.items(), *ROCPROF_COMPUTE.items()]:
        value = _rocprof_value(row, columns[base], source, line) if base in columns else None
        if value is None:
            continue
        provenance = {"file": source, "line": line, "tool": "rocprof-compute", "gpu": device,
                      "column": columns[base],
                      "range": _rocprof_range(row, columns, base, source, line)}
        if base in ROCPROF_LEVELS:
            roofs.append(BandwidthRoof(f"GPU {device} {name}", value, where, level=what,
                                       provenance=provenance, family=ROCPROF_FAMILY))
        else:
            roofs.append(ComputeRoof(f"GPU {device} {name}", value, where, provenance=provenance,
                                     precision=what, family=ROCPROF_FAMILY))
    return roofs


def read_rocprof_roofline(path: PathOrBuffer, device: str | int | None = None) -> list:
    """The roofs of a rocprof-compute (Omniperf) ``roofline.csv``, per GPU.

    Parameters
    ----------
    path : str, path-like or file object
    device : str or int, optional
        Only this GPU's row (its ``device`` cell); None: every GPU's.

    Returns
    -------
    list of ComputeRoof and BandwidthRoof
        Per GPU (``"GPU 0 HBM"``, ``"GPU 0 MFMA FP64"``; device ``"gpu"``, family
        ``"amd"``): HBM (MEM), L2, vL1D (L1) and LDS (no level) bandwidth roofs,
        the FP64 (``DP``), FP32 (``SP``) and MFMA (``MFMA F64``, ...) compute roofs;
        provenance: file, line, GPU, column and ``range`` (the ``Low``/``High``
        columns, or None).

    Raises
    ------
    CeilingFileError
        For a header without ``device`` and ``HBMBw``, a cell that is no
        number, no row of ``device``, or no roof.
    """
    opened = open_text(path, "a rocprof-compute roofline.csv")
    source = opened.name
    try:
        rows = list(csv.reader(opened.text.splitlines()[:MAX_ENTRIES]))
    except csv.Error as exc:
        raise CeilingFileError(source, None, "rocprof-compute CSV", str(exc)) from None
    header = [name.strip() for name in (rows[0] if rows else [])]
    columns = {re.sub(r"[^a-z0-9]", "", name.lower()): name for name in header}
    if "device" not in columns or "hbmbw" not in columns:
        raise CeilingFileError(source, 1, "a rocprof-compute roofline.csv header "
                               "('device,HBMBw,...')", ",".join(header)[:80])
    roofs: list = []
    devices: list[str] = []
    for line, cells in enumerate(rows[1:], start=2):
        row = dict(zip(header, cells))
        name = (row.get(columns["device"]) or "").strip()
        devices.append(name)
        if device is not None and name != str(device).strip():
            continue
        roofs += _rocprof_roofs(row, columns, source, line, name)
    if not roofs:
        found = "no ceiling" if device is None or str(device).strip() in devices else (
            f"no row of device {device} (devices: {', '.join(devices[:20]) or 'none'})")
        raise CeilingFileError(source, None, "a row of positive ceilings", found)
    return roofs
