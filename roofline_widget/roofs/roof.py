"""One roof: a compute ceiling (GFLOP/s) or a bandwidth ceiling (GB/s), and what it bounds.

A roof says what it bounds, so that a point is judged against the roof of
*its* memory level, device and precision (:meth:`Roofline.roofs_for
<roofline_widget.ceilings.Roofline.roofs_for>`):

``level`` (bandwidth roofs)
    The memory level whose traffic the roof bounds (``"L1"``, ``"L2"``,
    ``"L3"``, ``"MEM"``); None: any level (a user's peak for the plotted metric).
``device``
    ``"cpu"`` or ``"gpu"``; None: any device.
``precision`` (compute roofs)
    ``"DP"``, ``"SP"`` or ``"HP"``; None: any precision.

Every roof records where its number came from (``source``): ``"user"``,
``"spec sheet"``, ``"likwid-bench <kernel>, <n> threads"``,
``"theoretical"`` -- FLOP per cycle of the CPU's cores (the table of
:mod:`roofline_widget.cpu_cores`) x clock x cores, drawn dashed, a limit at
the clock it names (turbo can exceed a base clock) -- or ``"empirical"`` --
the largest observation of the plotted data, useful to compare regions but
never a machine limit, and labelled as such everywhere.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from roofline_widget.metric_names import LEVELS, PRECISIONS
from roofline_widget.model import Device

__all__ = ["DEVICES", "DEVICE_NAMES", "EMPIRICAL", "PEAK_LIMITS", "ROOF_TOLERANCE", "THEORETICAL",
           "USER", "BandwidthRoof", "ComputeRoof", "check_peak", "positive_finite"]

EMPIRICAL = "empirical"
#: The source of a roof worked out from the CPU table (drawn dashed).
THEORETICAL = "theoretical"
USER = "user"
#: The devices a roof can bound.
DEVICES = tuple(str(device) for device in Device)
#: How a device is named in a roof's or a line's name.
DEVICE_NAMES = {"cpu": "CPU", "gpu": "GPU"}
#: Relative tolerance above which a point counts as above the roof.
ROOF_TOLERANCE = 1e-9
#: The range of a peak a user gives, in GFLOP/s or GB/s (1 kFLOP/s to 1 ZFLOP/s): every ridge
#: point and axis limit of two such peaks is a finite number.
PEAK_LIMITS = (1e-6, 1e9)


def positive_finite(value, what: str) -> float:
    """``value`` as a positive finite float; a ValueError naming ``what`` otherwise."""
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{what} must be a positive finite number, got {value!r}")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a positive finite number, got {value!r}") from None
    if not math.isfinite(number) or number <= 0:
        raise ValueError(f"{what} must be a positive finite number, got {value!r}")
    return number


def check_peak(value, what: str) -> float:
    """A user's peak or ceiling value as a float within :data:`PEAK_LIMITS`.

    Raises
    ------
    ValueError
        Naming ``what`` for anything but a number in that range.
    """
    number = positive_finite(value, what)
    low, high = PEAK_LIMITS
    if not low <= number <= high:
        raise ValueError(f"{what} must be between {low:g} and {high:g}, got {value!r}")
    return number


def _check_text(value, what: str) -> None:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{what} must be a non-empty string, got {value!r}")


def _checked_choice(value, choices: tuple, what: str) -> str | None:
    if value is None:
        return None
    if str(value) not in choices:
        raise ValueError(f"{what} must be one of {list(choices)} or None, got {value!r}")
    return str(value)


class _Roof:
    """What compute and bandwidth roofs share: validation, provenance, label."""

    # the dataclass fields every roof has (declared here for type checkers only)
    name: str
    source: str
    device: str | None
    _field = ""
    unit = ""
    kind = ""

    def __post_init__(self):
        _check_text(self.name, "roof name")
        _check_text(self.source, "roof source")
        value = positive_finite(getattr(self, self._field), f"{self.kind} roof {self.name!r}")
        object.__setattr__(self, self._field, value)
        object.__setattr__(self, "device", _checked_choice(self.device, DEVICES,
                                                            f"device of roof {self.name!r}"))

    @property
    def value(self) -> float:
        """The ceiling, in :attr:`unit`."""
        return getattr(self, self._field)

    @property
    def empirical(self) -> bool:
        """Whether the roof is the largest observation rather than a machine limit."""
        return self.source == EMPIRICAL

    @property
    def theoretical(self) -> bool:
        """Whether the roof is worked out from the CPU's cores and clock (drawn dashed)."""
        return self.source == THEORETICAL

    @property
    def label(self) -> str:
        """``"DRAM: 140 GB/s (likwid-bench triad, 64 threads)"``."""
        return f"{self.name}: {self.value:.4g} {self.unit} ({self.source})"

    def serves(self, device: str | None) -> bool:
        """Whether the roof bounds points of ``device`` (a roof or a point without a device: any)."""
        return self.device is None or device is None or self.device == device


@dataclass(frozen=True)
class ComputeRoof(_Roof):
    """A horizontal compute ceiling.

    Parameters
    ----------
    name : str
        Label (``"AVX-512 FMA peak"``).
    gflops : float
        The ceiling in GFLOP/s; positive and finite.
    source : str
        Provenance: ``"user"``, ``"spec sheet"``, ``"likwid-bench <kernel>,
        <n> threads"`` or ``"empirical"``.
    provenance : dict, optional
        Where the number came from in detail (file, kernel, threads, precision, ISA).
    device : {"cpu", "gpu"}, optional
        The device whose points the roof bounds (None: any).
    precision : {"DP", "SP", "HP"}, optional
        The precision of the FLOPs it bounds (None: any): a DP point is never
        judged against an SP peak.

    Raises
    ------
    ValueError
        For a non-positive or non-finite ``gflops``, an empty name/source, an
        unknown device or precision.
    """

    name: str
    gflops: float
    source: str = USER
    #: Where the number came from in detail (file, kernel, threads, precision, ISA).
    provenance: dict | None = field(default=None, compare=False, repr=False)
    device: str | None = None
    precision: str | None = None
    _field = "gflops"
    unit = "GFLOP/s"
    kind = "compute"

    def __post_init__(self):
        super().__post_init__()
        object.__setattr__(self, "precision", _checked_choice(
            self.precision, PRECISIONS, f"precision of roof {self.name!r}"))


@dataclass(frozen=True)
class BandwidthRoof(_Roof):
    """A sloped bandwidth ceiling.

    Parameters
    ----------
    name : str
        Label (``"DRAM"``, ``"L3"``).
    gbs : float
        The bandwidth in GB/s (1e9 bytes per second); positive and finite.
    source : str
        Provenance, as for :class:`ComputeRoof`.
    level : str, optional
        The memory level (``"L1"``, ``"L2"``, ``"L3"``, ``"MEM"``) the roof
        bounds (None: any level).
    provenance : dict, optional
        Where the number came from in detail (file, kernel, threads, how the level was decided).
    device : {"cpu", "gpu"}, optional
        The device whose points the roof bounds (None: any).

    Raises
    ------
    ValueError
        For a non-positive or non-finite ``gbs``, an empty name/source, an
        unknown level or device.
    """

    name: str
    gbs: float
    source: str = USER
    #: The memory level (``"L1"``, ``"L2"``, ``"L3"``, ``"MEM"``) the roof bounds, None if any.
    level: str | None = None
    #: Where the number came from in detail (file, kernel, threads, how the level was decided);
    #: see :func:`roofline_widget.analysis.machine.machine_roofline`.
    provenance: dict | None = field(default=None, compare=False, repr=False)
    device: str | None = None
    _field = "gbs"
    unit = "GB/s"
    kind = "bandwidth"

    def __post_init__(self):
        super().__post_init__()
        object.__setattr__(self, "level", _checked_choice(self.level, LEVELS,
                                                           f"level of roof {self.name!r}"))
