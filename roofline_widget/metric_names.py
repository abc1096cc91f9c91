"""What a metric's name says about the roof it is judged against: the memory level, the precision.

A point's bandwidth metric names the memory level its bytes crossed
(:func:`metric_level`: ``Memory bandwidth`` is MEM traffic, ``L2 bandwidth``
L2 traffic), its FLOP metric the precision of its operations
(:func:`flops_precision`: ``DP [MFLOP/s]``).  A roofline judges each point
against the bandwidth roof of its level and the compute roof of its
precision (:class:`~roofline_widget.roofs.roofline.Roofline`); the memory-level
detection of :mod:`roofline_widget.analysis.levels` and the FLOP-metric
ranking of :mod:`roofline_widget.points.detection` read names here too.

The work of a GPU's matrix units is a precision of its own
(:data:`MATRIX_PRECISIONS`: ``Tensor`` for NVIDIA's tensor cores, ``MFMA F64``,
``MFMA F32``, ``MFMA F16``, ``MFMA BF16`` for AMD's matrix cores), named at the
start of the metric (``MFMA F64 [MFLOP/s]``): a matrix kernel is judged
against a matrix roof of its kind, never against the vector FP64 peak.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from roofline_widget.units import UnitKind, parse_unit, split_metric_name

__all__ = ["LEVELS", "MATRIX_PRECISIONS", "PRECISIONS", "VECTOR_PRECISIONS", "LevelMetric",
           "flops_precision", "metric_level"]

#: The memory levels, inner to outer.
LEVELS = ("L1", "L2", "L3", "MEM")
#: The precisions of vector (SIMD, CUDA-core, stream-processor) floating-point work.
VECTOR_PRECISIONS = ("DP", "SP", "HP")
#: The work of GPU matrix units, each kind its own precision (see the module docstring).
MATRIX_PRECISIONS = ("Tensor", "MFMA F64", "MFMA F32", "MFMA F16", "MFMA BF16")
#: The floating-point precisions a FLOP metric or a compute roof can be of.
PRECISIONS = VECTOR_PRECISIONS + MATRIX_PRECISIONS

_CACHE = re.compile(r"\bl([123])[di]?\b", re.IGNORECASE)
_MEMORY = re.compile(r"\b(?:memory|mem|dram|hbm|mcdram|nvm|pmm)\b", re.IGNORECASE)
_SYSTEM = re.compile(r"\bsystem\b", re.IGNORECASE)
_PART = re.compile(r"\b(?:read|write|load|store|evict|victim|writeback|fill)\b"
                   r"|(?<!<)->|<-(?!>)|\bto\b(?!/)", re.IGNORECASE)
_OUTGOING = re.compile(r"\b(?:write|store|evict|victim|writeback)\b|->", re.IGNORECASE)
_NOT_A_LEVEL = re.compile(r"\b(?:prefetch|dropped|numa|upi|qpi|pcie?|mmio|io)\b", re.IGNORECASE)
_PRECISION = {p: re.compile(rf"(?<![A-Z]){p}(?![A-Z])") for p in VECTOR_PRECISIONS}
_MATRIX = {p: re.compile(rf"^\s*{p}(?![A-Z0-9])", re.IGNORECASE) for p in MATRIX_PRECISIONS}


@dataclass(frozen=True)
class LevelMetric:
    """How one bandwidth metric relates to a memory level.

    Attributes
    ----------
    name : str
        The metric, exactly as LIKWID printed it.
    level : str
        ``"L1"``, ``"L2"``, ``"L3"`` or ``"MEM"``.
    tier : int
        0 for the level's plain total, 1 another total (``HBM bandwidth``, a
        channel sum, ``L3 to/from system``), 2 an incoming part (load, read),
        3 an outgoing part (evict, write).  Lower is preferred.
    """

    name: str
    level: str
    tier: int

    @property
    def total(self) -> bool:
        return self.tier <= 1


def _stem(name: str) -> str:
    return split_metric_name(name)[0].replace("|MEM", "").replace("|mem", "").strip()


def metric_level(name: str) -> LevelMetric | None:
    """The level a bandwidth metric measures, or None (not a byte rate, not one level).

    Examples
    --------
    >>> metric_level("L1 to/from L2 bandwidth [MBytes/s]")
    LevelMetric(name='L1 to/from L2 bandwidth [MBytes/s]', level='L2', tier=0)
    >>> metric_level("L2D load bandwidth [MBytes/s]").tier
    2
    >>> metric_level("Memory bandwidth [MBytes/s]").level
    'MEM'
    """
    if parse_unit(name).kind != UnitKind.BYTE_RATE:
        return None
    stem = _stem(name)
    if _NOT_A_LEVEL.search(stem):
        return None
    caches = [int(level) for level in _CACHE.findall(stem)]
    if _MEMORY.search(stem) or _SYSTEM.search(stem):
        level = "MEM"
    elif caches:
        level = f"L{max(caches)}"
    else:
        return None
    if _PART.search(stem):
        tier = 3 if _OUTGOING.search(stem) else 2
    elif level == "MEM" and stem.lower() != "memory bandwidth":
        tier = 1
    else:
        tier = 0
    return LevelMetric(name, level, tier)


def flops_precision(name: str) -> str | None:
    """The precision a FLOP metric counts (``"DP"``, ``"SP"``, ``"HP"``, or a matrix precision
    named first: ``"Tensor"``, ``"MFMA F64"``, ...), None if it names none or several.

    Examples
    --------
    >>> flops_precision("AVX DP [MFLOP/s]"), flops_precision("SP [MFLOP/s]")
    ('DP', 'SP')
    >>> flops_precision("MFMA F64 [MFLOP/s]"), flops_precision("Tensor [MFLOP/s]")
    ('MFMA F64', 'Tensor')
    >>> flops_precision("flops") is None
    True
    """
    matrix = next((p for p, pattern in _MATRIX.items() if pattern.match(str(name))), None)
    if matrix is not None:
        return matrix
    upper = str(name).upper()
    found = [p for p, pattern in _PRECISION.items() if pattern.search(upper)]
    return found[0] if len(found) == 1 else None
