"""Datasheet peaks of common HPC GPUs, NVIDIA's and AMD's: fallback ceilings and plausibility bounds.

The fallback ceilings of :func:`~roofline_widget.gpu_ceilings`, and the bound
of a kernel's rate on a GPU the data names
(:func:`~roofline_widget.roofs.hardware_bounds.gpu_bound`): the table sits
beside the table of CPU cores (:mod:`roofline_widget.cpu_cores`), below the
roofs and the analysis that both read it.

Each entry gives the vendor's peak double- and single-precision rates of the
vector (CUDA-core / stream-processor) units at the boost clock, for AMD's
Instinct parts also the peaks of the matrix cores (MFMA) per type, the peak
memory bandwidth, the datasheet they come from and how sure the number is.
They are *spec-sheet* ceilings: a kernel reaches them only at the boost clock
(Summit's V100s ran the kernels of sample N1 at 1.30 GHz of 1.53 GHz), and
STREAM-like kernels reach 80-90 % of the bandwidth.  Measured peaks (the
export's ``.peak_sustained`` metrics, rocprof-compute's ``roofline.csv``, a
benchmark) are better ceilings.

========================  ======  ======  =======================================  ========
GPU                       FP64    FP32    matrix (MFMA) FP64 / FP32 / FP16 / BF16  memory
                          TFLOP/s TFLOP/s TFLOP/s                                  TB/s
========================  ======  ======  =======================================  ========
V100-SXM2 (16/32 GB)      7.8     15.7                                             0.9
V100-PCIE (16/32 GB)      7.0     14.0                                             0.9
A100-SXM4-40GB            9.7     19.5                                             1.555
A100-SXM4-80GB            9.7     19.5                                             2.039
A100-PCIE-40GB            9.7     19.5                                             1.555
A100-PCIE-80GB            9.7     19.5                                             1.935
H100-SXM5                 34      67                                               3.35
H100-PCIE                 26      51                                               2.0
H200-SXM                  34      67                                               4.8
MI100 (120 CUs)           11.5    23.1    - / 46.1 / 184.6 / 92.3                  1.2288
MI210 (104 CUs)           22.6    22.6    45.3 / 45.3 / 181.0 / 181.0              1.6384
MI250X (2 GCDs, 220 CUs)  47.9    47.9    95.7 / 95.7 / 383.0 / 383.0              3.2768
MI250X GCD (110 CUs)      23.95   23.95   47.85 / 47.85 / 191.5 / 191.5            1.6384
MI300X (304 CUs)          81.7    163.4   163.4 / 163.4 / 1307.4 / 1307.4          5.3
MI300A (228 CUs)          61.3    122.6   122.6 / 122.6 / 980.6 / 980.6            5.3
========================  ======  ======  =======================================  ========

Sources and how sure: the NVIDIA figures as NVIDIA's datasheets quote them
("sure"; "fairly sure" where revisions of the datasheet differ, H100 PCIe).
The AMD figures are those of AMD's Instinct datasheets (MI100, MI210, MI250X,
MI300X, MI300A), cross-checked against the product of compute units, FLOPs
per clock and CU, and peak engine clock (MI100: 120 CUs, 1502 MHz, 64 FP64 /
128 FP32 FLOPs per clock and CU, no FP64 matrix unit; CDNA 2: 128 FP64 and
FP32 vector, 256 matrix FP64/FP32, 1024 matrix FP16 per clock and CU at
1700 MHz; CDNA 3: 128 FP64, 256 FP32 vector, 256 matrix FP64/FP32, 2048 dense
matrix FP16 per clock and CU at 2100 MHz), and the HBM bandwidth against the
bus width times the data rate (MI210: 4096 bits x 3.2 Gb/s = 1638.4 GB/s).
FP16 matrix peaks are dense (without structured sparsity).  An MI250X shows
up as two devices, one per GCD (graphics compute die): a kernel runs on one,
so its points are judged against the *MI250X GCD* entry, half the package's
figures; an MI250's GCD and an MI210 have the same peaks (104 CUs, 1700 MHz).

rocprof-compute's ``sysinfo.csv`` names the architecture and the compute
units of the GPU a kernel ran on (``gfx90a``, 104 CUs); :func:`find_amd_gpu`
finds the entry of that pair, :func:`find_gpu` also in a name such as
``"AMD MI200 (gfx90a, 104 CUs)"``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["GPU_SPECS", "GpuSpec", "find_amd_gpu", "find_gpu"]


@dataclass(frozen=True)
class GpuSpec:
    """Datasheet peaks of one GPU model.

    Attributes
    ----------
    name : str
        The table's key (``"V100-SXM2"``, ``"MI250X GCD"``).
    dp_gflops, sp_gflops : float
        Peak vector FP64 and FP32 rates, GFLOP/s.
    memory_gbs : float
        Peak memory (HBM) bandwidth, GB/s.
    datasheet : str
        Where the numbers come from.
    confidence : str
        ``"sure"`` or ``"fairly sure"`` (see the module docstring).
    pattern : str
        A regular expression matching the device's name as the driver reports it.
    vendor : {"nvidia", "amd"}
        The device family of the GPU's roofs (:data:`~roofline_widget.model.DeviceFamily`).
    matrix_gflops : tuple of (str, float)
        Peaks of the matrix units by precision (``("MFMA F64", 45_300.0)``, ...), GFLOP/s.
    arch, compute_units : str or None, int or None
        The architecture (``"gfx90a"``) and compute units, as rocprof-compute's
        ``sysinfo.csv`` gives them (AMD only).
    """

    name: str
    dp_gflops: float
    sp_gflops: float
    memory_gbs: float
    datasheet: str
    confidence: str
    pattern: str
    vendor: str = "nvidia"
    matrix_gflops: tuple[tuple[str, float], ...] = ()
    arch: str | None = None
    compute_units: int | None = None

    def gflops(self, precision: str) -> float | None:
        """The peak of ``precision``: ``"DP"``, ``"SP"``, or a matrix precision the table has
        (``"MFMA F64"``); None for others."""
        vector = {"DP": self.dp_gflops, "SP": self.sp_gflops}
        return vector.get(precision, dict(self.matrix_gflops).get(precision))

    @property
    def precisions(self) -> list[str]:
        """The precisions the entry has a peak of: ``DP``, ``SP``, then the matrix ones."""
        return ["DP", "SP", *(p for p, _ in self.matrix_gflops)]


_V100 = "NVIDIA Tesla V100 GPU datasheet"
_A100 = "NVIDIA A100 Tensor Core GPU datasheet"
_H100 = "NVIDIA H100 Tensor Core GPU datasheet"


def _mfma(f64: float | None, f32: float, f16: float, bf16: float) -> tuple[tuple[str, float], ...]:
    peaks = (("MFMA F64", f64), ("MFMA F32", f32), ("MFMA F16", f16), ("MFMA BF16", bf16))
    return tuple((p, v) for p, v in peaks if v is not None)


def _amd(name: str, dp: float, sp: float, memory: float, matrix, arch: str, cus: int,
         pattern: str, datasheet: str) -> GpuSpec:
    return GpuSpec(name, dp, sp, memory, f"AMD Instinct {datasheet} accelerator datasheet",
                   "sure", pattern, vendor="amd", matrix_gflops=matrix, arch=arch,
                   compute_units=cus)


#: The table, one entry per model.
GPU_SPECS: tuple[GpuSpec, ...] = (
    GpuSpec("V100-SXM2", 7_800, 15_700, 900, _V100, "sure", r"V100[- ]?SXM2"),
    GpuSpec("V100-PCIE", 7_000, 14_000, 900, _V100, "sure", r"V100[- ]?PCIE"),
    GpuSpec("A100-SXM4-40GB", 9_700, 19_500, 1_555, _A100, "sure", r"A100[- ]SXM4[- ]40GB"),
    GpuSpec("A100-SXM4-80GB", 9_700, 19_500, 2_039, _A100, "sure", r"A100[- ]SXM4[- ]80GB"),
    GpuSpec("A100-PCIE-40GB", 9_700, 19_500, 1_555, _A100, "sure", r"A100[- ]PCIE[- ]40GB"),
    GpuSpec("A100-PCIE-80GB", 9_700, 19_500, 1_935, _A100, "sure",
            r"A100[- ]PCIE[- ]80GB|A100 80GB PCIE"),
    GpuSpec("H100-SXM5", 34_000, 67_000, 3_350, _H100, "sure", r"H100[- ]SXM5?|H100 80GB HBM3"),
    GpuSpec("H100-PCIE", 26_000, 51_000, 2_000, _H100, "fairly sure", r"H100[- ]PCIE"),
    GpuSpec("H200-SXM", 34_000, 67_000, 4_800, "NVIDIA H200 Tensor Core GPU datasheet", "sure",
            r"\bH200\b(?!.*NVL)"),
    _amd("MI100", 11_500, 23_100, 1_228.8, _mfma(None, 46_100, 184_600, 92_300), "gfx908", 120,
         r"MI100\b", "MI100"),
    _amd("MI210", 22_600, 22_600, 1_638.4, _mfma(45_300, 45_300, 181_000, 181_000), "gfx90a",
         104, r"MI210\b", "MI210"),
    _amd("MI250X", 47_900, 47_900, 3_276.8, _mfma(95_700, 95_700, 383_000, 383_000), "gfx90a",
         220, r"MI250X\b(?! ?GCD)", "MI250X"),
    GpuSpec("MI250X GCD", 23_950, 23_950, 1_638.4,
            "AMD Instinct MI250X accelerator datasheet, halved (one of its two GCDs)", "sure",
            r"MI250X ?GCD", vendor="amd", matrix_gflops=_mfma(47_850, 47_850, 191_500, 191_500),
            arch="gfx90a", compute_units=110),
    _amd("MI300X", 81_700, 163_400, 5_300, _mfma(163_400, 163_400, 1_307_400, 1_307_400),
         "gfx942", 304, r"MI300X", "MI300X"),
    GpuSpec("MI300A", 61_300, 122_600, 5_300, "AMD Instinct MI300A APU datasheet",
            "fairly sure", r"MI300A", vendor="amd",
            matrix_gflops=_mfma(122_600, 122_600, 980_600, 980_600), arch="gfx942",
            compute_units=228),
)

_ARCH_CUS = re.compile(r"\b(gfx[0-9a-f]+)\b.*?\b(\d+) ?CUs?\b", re.IGNORECASE)


def _normal(text: str) -> str:
    return re.sub(r"[\s_]+", " ", text.strip().upper())


def find_amd_gpu(arch: str, compute_units: int) -> GpuSpec | None:
    """The AMD entry of an architecture and a compute-unit count (one GPU, one GCD), or None.

    Examples
    --------
    >>> find_amd_gpu("gfx90a", 104).name  # an MI210, or one GCD of an MI250: the same peaks
    'MI210'
    >>> find_amd_gpu("gfx90a", 110).name
    'MI250X GCD'
    """
    return next((s for s in GPU_SPECS if s.arch == arch.strip().lower()
                 and s.compute_units == int(compute_units)), None)


def find_gpu(name: str) -> GpuSpec:
    """The table entry of a GPU: a key (``"H200-SXM"``), a device name (``"Tesla
    V100-SXM2-16GB"``), or rocprof-compute's (``"AMD MI200 (gfx90a, 104 CUs)"``).

    Raises
    ------
    ValueError
        If no entry matches, or several do (``"V100"``: SXM2 or PCIe?); the
        message lists the candidates or the table.

    Examples
    --------
    >>> find_gpu("Tesla V100-SXM2-16GB").name
    'V100-SXM2'
    >>> find_gpu("NVIDIA H100 80GB HBM3").memory_gbs
    3350
    >>> find_gpu("AMD MI200 (gfx90a, 104 CUs)").name
    'MI210'
    """
    wanted = _normal(name)
    for spec in GPU_SPECS:
        if wanted == _normal(spec.name):
            return spec
    found = [s for s in GPU_SPECS if re.search(s.pattern, wanted, re.IGNORECASE)]
    if len(found) == 1:
        return found[0]
    described = _ARCH_CUS.search(name)
    if not found and described:
        amd = find_amd_gpu(described[1], int(described[2]))
        if amd is not None:
            return amd
    prefixed = [s for s in GPU_SPECS if _normal(s.name).startswith(wanted.replace(" ", "-"))]
    candidates = found or prefixed
    if len(candidates) > 1:
        raise ValueError(f"GPU {name!r} is ambiguous in the table: say which of "
                         f"{[s.name for s in candidates]}")
    if candidates:
        return candidates[0]
    raise ValueError(f"GPU {name!r} is not in the table of datasheet peaks "
                     f"({', '.join(s.name for s in GPU_SPECS)}); pass ceilings= instead")
