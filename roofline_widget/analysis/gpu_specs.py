"""Datasheet peaks of common HPC GPUs: the fallback ceilings of :func:`.gpu.gpu_ceilings`.

Each entry gives the vendor's peak double- and single-precision rates of the
vector (CUDA-core / stream-processor) units, not the tensor or matrix
cores, at the boost clock, and the peak memory bandwidth; the datasheet it
comes from; and how sure the number is.  They are *spec-sheet* ceilings:
a kernel reaches them only at the boost clock (Summit's V100s ran the
kernels of sample N1 at 1.30 GHz of 1.53 GHz), and STREAM-like kernels
reach 80-90 % of the bandwidth.  Measured peaks (the export's
``.peak_sustained`` metrics, or a benchmark) are better ceilings.

========================  ======  ======  ========  =============================================
GPU                       DP      SP      memory    datasheet; how sure
                          TFLOP/s TFLOP/s TB/s
========================  ======  ======  ========  =============================================
V100-SXM2 (16/32 GB)      7.8     15.7    0.9       NVIDIA Tesla V100 datasheet; sure
V100-PCIE (16/32 GB)      7.0     14.0    0.9       NVIDIA Tesla V100 datasheet; sure
A100-SXM4-40GB            9.7     19.5    1.555     NVIDIA A100 datasheet; sure
A100-SXM4-80GB            9.7     19.5    2.039     NVIDIA A100 datasheet; sure
A100-PCIE-40GB            9.7     19.5    1.555     NVIDIA A100 datasheet; sure
A100-PCIE-80GB            9.7     19.5    1.935     NVIDIA A100 datasheet; sure
H100-SXM5                 34      67      3.35      NVIDIA H100 datasheet; sure
H100-PCIE                 26      51      2.0       NVIDIA H100 datasheet; fairly sure (revisions)
H200-SXM                  34      67      4.8       NVIDIA H200 datasheet; sure
MI250X (both GCDs)        47.9    47.9    3.2768    AMD Instinct MI250X datasheet; sure
MI300A                    61.3    122.6   5.3       AMD Instinct MI300A datasheet; fairly sure
========================  ======  ======  ========  =============================================

The numbers were written from the datasheets as remembered, not checked
against a copy here: "sure" means the figure is quoted the same way in the
vendor's datasheet and architecture whitepaper; "fairly sure" that
revisions of the datasheet differ (H100 PCIe) or that the SP figure is the
vector, not the packed rate (MI300A).  An MI250X shows up as two devices (one
per GCD), each with half of these figures.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["GPU_SPECS", "GpuSpec", "find_gpu"]


@dataclass(frozen=True)
class GpuSpec:
    """Datasheet peaks of one GPU model.

    Attributes
    ----------
    name : str
        The table's key (``"V100-SXM2"``).
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
    """

    name: str
    dp_gflops: float
    sp_gflops: float
    memory_gbs: float
    datasheet: str
    confidence: str
    pattern: str

    def gflops(self, precision: str) -> float | None:
        """The peak of ``"DP"`` or ``"SP"`` (None for other precisions)."""
        return {"DP": self.dp_gflops, "SP": self.sp_gflops}.get(precision)


_V100 = "NVIDIA Tesla V100 GPU datasheet"
_A100 = "NVIDIA A100 Tensor Core GPU datasheet"
_H100 = "NVIDIA H100 Tensor Core GPU datasheet"

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
    GpuSpec("MI250X", 47_900, 47_900, 3_276.8, "AMD Instinct MI250X accelerator datasheet",
            "sure", r"MI250X"),
    GpuSpec("MI300A", 61_300, 122_600, 5_300, "AMD Instinct MI300A APU datasheet",
            "fairly sure", r"MI300A"),
)


def _normal(text: str) -> str:
    return re.sub(r"[\s_]+", " ", text.strip().upper())


def find_gpu(name: str) -> GpuSpec:
    """The table entry of a GPU: a key (``"H200-SXM"``) or a device name (``"Tesla V100-SXM2-16GB"``).

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
    """
    wanted = _normal(name)
    for spec in GPU_SPECS:
        if wanted == _normal(spec.name):
            return spec
    found = [s for s in GPU_SPECS if re.search(s.pattern, wanted, re.IGNORECASE)]
    if len(found) == 1:
        return found[0]
    prefixed = [s for s in GPU_SPECS if _normal(s.name).startswith(wanted.replace(" ", "-"))]
    candidates = found or prefixed
    if len(candidates) > 1:
        raise ValueError(f"GPU {name!r} is ambiguous in the table: say which of "
                         f"{[s.name for s in candidates]}")
    if candidates:
        return candidates[0]
    raise ValueError(f"GPU {name!r} is not in the table of datasheet peaks "
                     f"({', '.join(s.name for s in GPU_SPECS)}); pass ceilings= instead")
