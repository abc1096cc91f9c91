"""One roof: a compute ceiling (GFLOP/s) or a bandwidth ceiling (GB/s), and what it bounds.

A roof says what it bounds, so that a point is judged against the roof of
*its* memory level, device and precision (:meth:`Roofline.roofs_for
<roofline_widget.roofs.roofline.Roofline.roofs_for>`):

``level`` (bandwidth roofs)
    The memory level whose traffic the roof bounds (``"L1"``, ``"L2"``,
    ``"L3"``, ``"MEM"``); None: any level (a user's peak for the plotted metric).
``device``
    ``"cpu"`` or ``"gpu"``; None: any device.
``family``
    Whose device: ``"cpu"``, ``"nvidia"`` or ``"amd"`` (a point's
    ``device_family``); None: any of its device.  NVIDIA kernels and AMD kernels
    on one plot are each judged against their own GPU's roofs.
``precision`` (compute roofs)
    ``"DP"``, ``"SP"``, ``"HP"`` or a GPU matrix unit's (``"Tensor"``, ``"MFMA F64"``,
    ...: :data:`~roofline_widget.metric_names.PRECISIONS`); None: any precision.

Every roof records where its number came from (``source``): ``"user"``,
``"spec sheet"``, ``"likwid-bench <kernel>, <n> threads"``,
``"theoretical"`` -- FLOP per cycle of the CPU's cores (the table of
:mod:`roofline_widget.cpu_cores`) x clock x cores, drawn dashed, a limit at
the clock it names (turbo can exceed a base clock) -- or ``"empirical"`` --
the largest observation of the plotted data, useful to compare regions but
never a machine limit, and labelled as such everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from roofline_widget.metric_names import LEVELS, PRECISIONS
from roofline_widget.model import Device, DeviceFamily
from roofline_widget.settings.rules import number

__all__ = ["DEVICES", "DEVICE_FAMILIES", "DEVICE_NAMES", "EMPIRICAL", "ROOF_TOLERANCE", "THEORETICAL",
           "USER", "BandwidthRoof", "ComputeRoof", "decimal_value", "positive_finite"]

EMPIRICAL = "empirical"
#: The source of a roof worked out from the CPU table (drawn dashed).
THEORETICAL = "theoretical"
USER = "user"
#: The devices a roof can bound.
DEVICES = tuple(str(device) for device in Device)
#: The families a roof can be of (``"gpu"``, a GPU of unknown vendor, is a point's only).
DEVICE_FAMILIES = tuple(str(f) for f in DeviceFamily if f != DeviceFamily.GPU)
#: How a device is named in a roof's or a line's name.
DEVICE_NAMES = {"cpu": "CPU", "gpu": "GPU"}
#: Relative tolerance above which a point counts as above the roof.
ROOF_TOLERANCE = 1e-9


def positive_finite(value, what: str) -> float:
    """``value`` as a positive finite float; a ``SettingError`` (a ValueError) naming ``what``
    otherwise (the rule of :func:`roofline_widget.settings.rules.number`)."""
    return number()(what, value)


def decimal_value(value: float) -> float:
    """``value`` at 15 significant digits: a number worked out from decimal ones without its
    binary noise.

    A rate converted from LIKWID's units or a median of two runs is a decimal
    number with a last-bit error (41272.67 and 41258.46 MB/s give
    41.265564999999995 GB/s); every decimal of up to 15 digits survives a float
    exactly, so the ceiling reads as the numbers it came from.  Every roof's
    value but the user's (source :data:`USER`, kept as given) goes through it.

    Examples
    --------
    >>> decimal_value((41272.67 + 41258.46) / 2 / 1000), decimal_value(931.3109 / 1000)
    (41.265565, 0.9313109)
    """
    return float(f"{value:.15g}")


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
    family: str | None
    _field = ""
    unit = ""
    kind = ""

    def __post_init__(self):
        _check_text(self.name, "roof name")
        _check_text(self.source, "roof source")
        value = positive_finite(getattr(self, self._field), f"{self.kind} roof {self.name!r}")
        # a measured or worked-out ceiling reads as its numbers; the user's is kept as given
        object.__setattr__(self, self._field, value if self.source == USER else decimal_value(value))
        object.__setattr__(self, "device", _checked_choice(self.device, DEVICES,
                                                            f"device of roof {self.name!r}"))
        family = _checked_choice(self.family, DEVICE_FAMILIES, f"family of roof {self.name!r}")
        if family is not None:
            kind = str(Device.CPU if family == DeviceFamily.CPU else Device.GPU)
            if self.device not in (None, kind):
                raise ValueError(f"roof {self.name!r} of family {family!r} bounds {kind} points, "
                                 f"not {self.device}")
            object.__setattr__(self, "device", kind)
        object.__setattr__(self, "family", family)

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

    def serves(self, device: str | None, family: str | None = None) -> bool:
        """Whether the roof bounds points of ``device`` and ``family`` (a roof or a point
        without one: any; a point's family ``"gpu"``, a GPU of unknown vendor: any GPU's)."""
        kind = self.device is None or device is None or self.device == device
        return kind and (self.family is None or family in (None, str(DeviceFamily.GPU))
                         or self.family == family)


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
    precision : str, optional
        The precision of the FLOPs it bounds (None: any; one of
        :data:`~roofline_widget.metric_names.PRECISIONS`): a DP point is never
        judged against an SP peak, nor a vector one against a matrix unit's.
    family : {"cpu", "nvidia", "amd"}, optional
        Whose device (None: any of ``device``); gives ``device`` when that is None.

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
    family: str | None = None
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
    family : {"cpu", "nvidia", "amd"}, optional
        Whose device (None: any of ``device``); gives ``device`` when that is None.

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
    family: str | None = None
    _field = "gbs"
    unit = "GB/s"
    kind = "bandwidth"

    def __post_init__(self):
        super().__post_init__()
        object.__setattr__(self, "level", _checked_choice(self.level, LEVELS,
                                                           f"level of roof {self.name!r}"))
