"""rocprof-compute's ``sysinfo.csv``: the GPU and the machine a workload was profiled on.

One header line and one row per workload: ``gpu_model`` (``MI200``,
``MI300X_A1``), ``gpu_arch`` (``gfx90a``), ``cu_per_gpu``,
``lds_banks_per_cu``, ``wave_size``, ``max_sclk`` (MHz), ``hbm_bw`` (GB/s),
``num_xcd``, ``hostname``, ``rocm_version``, the profiled ``command``, ...
(columns differ between versions; those missing are None).
:func:`parse_sysinfo` reads the first row into a :class:`SysInfo`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from roofline_widget.errors import LikwidFormatError
from roofline_widget.io.rocprof.table import read_table

__all__ = ["SysInfo", "parse_sysinfo"]

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
