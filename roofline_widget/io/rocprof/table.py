"""One rocprof-compute CSV file (``pmc_perf.csv``, ``sysinfo.csv``) to named columns, checked.

rocprof-compute writes plain comma-separated files: a header line, then one
row per kernel dispatch (``pmc_perf.csv``) or per workload (``sysinfo.csv``),
every row as wide as the header.  :func:`read_table` reads one with the
:mod:`csv` module and :func:`numbers` converts a column to floats; both raise
:class:`~roofline_widget.errors.LikwidFormatError` naming the file, the line
and what was expected.  A header naming a column twice (the counters of
several passes are written under ``Wave_Size``, ``Wave_Size_1``, ...) keeps
the first.

``sysinfo.csv`` says which GPU and machine a workload was profiled on: one row
per workload, ``gpu_model`` (``MI200``, ``MI300X_A1``), ``gpu_arch``
(``gfx90a``), ``cu_per_gpu``, ``lds_banks_per_cu``, ``wave_size``, ``max_sclk``
(MHz), ``hbm_bw`` (GB/s), ``num_xcd``, ``hostname``, ``rocm_version``, the
profiled ``command``, ... (columns differ between versions; those missing are
None).  :func:`parse_sysinfo` reads the first row into a :class:`SysInfo`.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass

import numpy as np

from roofline_widget.errors import LikwidFormatError

__all__ = ["CsvTable", "SysInfo", "numbers", "parse_sysinfo", "read_table"]

_SHOWN = 80
#: Cells that mean "not measured".
_MISSING = frozenset({"", "nan", "NaN", "N/A", "n/a", "NA", "None"})


def _shown(text: str) -> str:
    return text if len(text) <= _SHOWN else text[:_SHOWN - 3] + "..."


@dataclass(frozen=True)
class CsvTable:
    """The rows of one CSV file.

    Attributes
    ----------
    source : str
        The file.
    header : list of str
        The column names.
    rows : list of list of str
        The data rows, each as wide as the header.
    lines : list of int
        Each row's 1-based line in the file.
    """

    source: str
    header: list[str]
    rows: list[list[str]]
    lines: list[int]

    def index(self, name: str) -> int | None:
        """The position of column ``name`` (its first, if named twice), None if absent."""
        try:
            return self.header.index(name)
        except ValueError:
            return None

    def has(self, *names: str) -> bool:
        """Whether every one of ``names`` is a column."""
        return all(name in self.header for name in names)

    def cells(self, name: str) -> list[str]:
        """The cells of column ``name`` (KeyError if absent)."""
        at = self.index(name)
        if at is None:
            raise KeyError(name)
        return [row[at] for row in self.rows]


def read_table(text: str, source: str, what: str) -> CsvTable:
    """The header and rows of a CSV text, every row checked to be as wide as the header.

    Parameters
    ----------
    text : str
        The whole file.
    source : str
        Its name, for messages.
    what : str
        What the file should be (``"rocprof-compute pmc_perf.csv"``), for messages.

    Raises
    ------
    LikwidFormatError
        For an empty file, a cell the csv module refuses, or a row whose width differs
        from the header's.
    """
    reader = csv.reader(text.splitlines())
    try:
        header = next(reader, None)
        if not header or not any(cell.strip() for cell in header):
            raise LikwidFormatError(source, 1, f"{what}: a header line", "an empty file")
        header = [cell.strip() for cell in header]
        rows, lines = [], []
        line = reader.line_num
        for row in reader:
            if row and any(cell.strip() for cell in row):
                if len(row) != len(header):
                    raise LikwidFormatError(source, line + 1, f"a row of {len(header)} cells like "
                                            "the header of line 1", f"{len(row)} cells")
                rows.append(row)
                lines.append(line + 1)
            line = reader.line_num
    except csv.Error as exc:
        raise LikwidFormatError(source, reader.line_num, f"{what}: CSV rows", str(exc)) from None
    return CsvTable(source, header, rows, lines)


def _number(text: str) -> float:
    cell = text.strip()
    if cell in _MISSING:
        return math.nan
    value = float(cell)  # ValueError for what is no number
    return value if math.isfinite(value) else math.nan


def numbers(table: CsvTable, name: str) -> np.ndarray:
    """Column ``name`` as floats (an empty or ``nan`` cell is NaN).

    Raises
    ------
    LikwidFormatError
        Naming the line and the column of a cell that is no number.
    """
    cells = table.cells(name)
    out = np.empty(len(cells))
    for at, cell in enumerate(cells):
        try:
            out[at] = _number(cell)
        except ValueError:
            raise LikwidFormatError(table.source, table.lines[at], f"a number in column {name!r}",
                                    _shown(cell.strip())) from None
    return out


_WHAT = "rocprof-compute sysinfo.csv"


@dataclass(frozen=True)
class SysInfo:
    """What ``sysinfo.csv`` says of the GPU and the machine (None: not in the file).

    Attributes
    ----------
    source : str
        The file.
    gpu_model, gpu_arch : str or None
        ``"MI200"``, ``"gfx90a"``.
    cu_per_gpu, lds_banks_per_cu, wave_size, num_xcd : int or None
        Compute units of one GPU (one GCD of an MI250X), LDS banks of a CU, lanes of a
        wavefront, accelerator complex dies.
    max_sclk_mhz, hbm_bw_gbs : float or None
        The highest shader clock (MHz) and the HBM bandwidth rocprof-compute states (GB/s).
    hostname, rocm_version, command : str or None
        The machine, the ROCm release, the profiled command line.
    """

    source: str
    gpu_model: str | None = None
    gpu_arch: str | None = None
    cu_per_gpu: int | None = None
    lds_banks_per_cu: int | None = None
    wave_size: int | None = None
    num_xcd: int | None = None
    max_sclk_mhz: float | None = None
    hbm_bw_gbs: float | None = None
    hostname: str | None = None
    rocm_version: str | None = None
    command: str | None = None

    @property
    def device_name(self) -> str | None:
        """``"AMD MI200 (gfx90a, 104 CUs)"``: the model, the architecture and the CUs known."""
        if self.gpu_model is None and self.gpu_arch is None:
            return None
        details = [d for d in (self.gpu_arch, f"{self.cu_per_gpu} CUs" if self.cu_per_gpu
                               else None) if d]
        model = self.gpu_model or "GPU"
        return f"AMD {model}" + (f" ({', '.join(details)})" if details else "")


def _text(value: str | None) -> str | None:
    if value is None:
        return None
    text = value.strip()
    return text if text and text not in ("NA", "N/A", "nan") else None


def _float(value: str | None) -> float | None:
    text = _text(value)
    try:
        number = float(text) if text is not None else math.nan
    except ValueError:
        return None
    return number if math.isfinite(number) and number > 0 else None


def _int(value: str | None) -> int | None:
    number = _float(value)
    return int(number) if number is not None and number == int(number) else None


def parse_sysinfo(text: str, source: str) -> tuple[SysInfo, list[str]]:
    """The machine of a ``sysinfo.csv`` text, and notes on what was passed over.

    Parameters
    ----------
    text : str
        The file's content.
    source : str
        Its name, for messages.

    Returns
    -------
    SysInfo
        Of the first row.
    notes : list of str
        A second row (another workload) not read, numbers that are none.

    Raises
    ------
    LikwidFormatError
        For a file without a header and a row, or a row of another width.
    """
    table = read_table(text, source, _WHAT)
    if not table.rows:
        raise LikwidFormatError(source, 2, f"{_WHAT}: a row under the header", "none")
    row = dict(zip(table.header, table.rows[0]))
    notes = []
    if len(table.rows) > 1:
        notes.append(f"{source}: {len(table.rows)} rows; the first (line {table.lines[0]}) "
                     "describes the GPU, the others are not read")
    info = SysInfo(
        source=source, gpu_model=_text(row.get("gpu_model")), gpu_arch=_text(row.get("gpu_arch")),
        cu_per_gpu=_int(row.get("cu_per_gpu")), lds_banks_per_cu=_int(row.get("lds_banks_per_cu")),
        wave_size=_int(row.get("wave_size")), num_xcd=_int(row.get("num_xcd")),
        max_sclk_mhz=_float(row.get("max_sclk")), hbm_bw_gbs=_float(row.get("hbm_bw")),
        hostname=_text(row.get("hostname")), rocm_version=_text(row.get("rocm_version")),
        command=_text(row.get("command")))
    for name in ("cu_per_gpu", "lds_banks_per_cu", "wave_size"):
        if _text(row.get(name)) is not None and getattr(info, name) is None:
            notes.append(f"{source}, line {table.lines[0]}: {name} {row[name]!r} is no positive "
                         "integer; not used")
    return info, notes
