"""What one CPU core can do: FLOP per cycle per microarchitecture, keyed by LIKWID's ``CPU type``.

LIKWID prints the microarchitecture as ``CPU type:`` (``Intel Skylake SP
processor``, ``AMD K19 (Zen3) architecture``: the strings of its
``src/topology.c``); :func:`find_core` looks a run's type up in
:data:`CORE_TABLE`, one :class:`CoreRow` per microarchitecture, and says so
when the type is not in it (nothing is guessed).

Each row lists, per instruction width (scalar, each SIMD width), how many
FMA instructions and how many add or multiply instructions a core retires
per cycle: the FP pipes of the vendor's optimisation manual, a width wider
than the datapath counted as the instructions per cycle it sustains (Zen's
256-bit instructions as two 128-bit halves).  From those,
:meth:`SimdWidth.flops_per_cycle`:

* with FMA: 2 x FMA instructions per cycle x lanes;
* without FMA: add or multiply instructions per cycle x lanes (a balanced
  mix of adds and multiplies, the pipes that take either or both counted);

lanes are the width over 64 bits (DP), 32 (SP) or 16 (HP); a scalar
instruction has one lane.  The peak is the vendors' (FMA pipes only, no
add pipe beside them); matrix engines (AMX, POWER10's MMA) are not counted:
LIKWID's FLOP groups count vector instructions.

Where parts of one type differ (the AVX-512 FMA units of Skylake SP and
Cascade Lake SP Xeons: two on Gold 6xxx and Platinum, one on Gold 5xxx but
5122/5222, Silver and Bronze), a :class:`PartRule` decides from the CPU
name; a name no rule matches leaves that width unknown
(:attr:`CoreCapabilities.unknown` says which and why) and only the
plausibility bound, which must be generous, takes the larger choice
(:meth:`CoreCapabilities.max_flops_per_cycle`).

Every row names its source, the vendor's optimisation manual or datasheet:
read there, never guessed.  Cache sizes per core (L1 data, L2) are those of
the microarchitecture (None where parts differ); L3 is per part: it comes
from likwid-topology.  :func:`base_clock_ghz` reads the clock a CPU name
states (``@ 2.60GHz``), :func:`printed_clock_ghz` LIKWID's ``CPU clock``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

__all__ = [
    "CORE_TABLE",
    "PRECISION_BITS",
    "CoreCapabilities",
    "CoreRow",
    "PartRule",
    "SimdWidth",
    "base_clock_ghz",
    "core_table",
    "find_core",
    "printed_clock_ghz",
    "widest_flops_per_cycle",
]

#: Bits of one floating-point number of each precision.
PRECISION_BITS = {"DP": 64, "SP": 32, "HP": 16}
_INTEL_MANUAL = "Intel 64 and IA-32 Architectures Optimization Reference Manual (order no. 248966)"
_ARK = "Intel ARK, '# of AVX-512 FMA Units' of each Xeon Scalable part"


@dataclass(frozen=True)
class SimdWidth:
    """What a core retires per cycle at one instruction width.

    Attributes
    ----------
    isa : str
        ``"scalar"``, ``"SSE"``, ``"AVX2"``, ``"AVX-512"``, ``"NEON"``, ``"SVE"``, ``"VSX"``.
    bits : int or None
        The vector width (None: scalar, one lane).
    fma : float or None
        FMA instructions of this width per cycle (None: decided per part).
    ops : float or None
        Add or multiply instructions per cycle, in a balanced mix.
    """

    isa: str
    bits: int | None
    fma: float | None
    ops: float | None

    @property
    def name(self) -> str:
        """``"scalar"``, ``"AVX-512 (512-bit)"``."""
        return self.isa if self.bits is None else f"{self.isa} ({self.bits}-bit)"

    def lanes(self, precision: str) -> int:
        """Numbers of ``precision`` per instruction (1 for scalar)."""
        return 1 if self.bits is None else self.bits // PRECISION_BITS[precision]

    def flops_per_cycle(self, precision: str, fma: bool = True) -> float:
        """FLOP per cycle of one core: ``2 x fma x lanes`` or ``ops x lanes``.

        Examples
        --------
        >>> SimdWidth("AVX-512", 512, fma=2, ops=2).flops_per_cycle("DP")
        32
        """
        per_cycle = self.fma if fma else self.ops
        if per_cycle is None:
            raise ValueError(f"the {self.name} throughput of this part is not known")
        value = (2 * per_cycle if fma else per_cycle) * self.lanes(precision)
        return int(value) if float(value).is_integer() else value


@dataclass(frozen=True)
class PartRule:
    """The throughput of one width on the parts whose CPU name matches ``pattern``.

    Attributes
    ----------
    pattern : str
        A regular expression searched in the CPU name (``r"Gold 6\\d{3}"``).
    isa : str
        The width it decides (its ``isa``).
    fma, ops : float
        FMA and add/multiply instructions per cycle on those parts.
    parts : str
        The parts, as a text (``"Xeon Gold 6xxx"``).
    """

    pattern: str
    isa: str
    fma: float
    ops: float
    parts: str


@dataclass(frozen=True)
class CoreRow:
    """One microarchitecture: its LIKWID ``CPU type`` strings, widths, caches and source.

    Attributes
    ----------
    name : str
        The microarchitecture (``"Intel Skylake SP"``).
    cpu_types : tuple of str
        The ``CPU type`` strings LIKWID prints for it.
    widths : tuple of SimdWidth
        Scalar first, then the SIMD widths, narrowest first.
    source : str
        Where the numbers are from (manual or datasheet, the section).
    l1d_kib, l2_kib : int or None
        Data cache per core; None where parts differ.
    half_precision : bool
        Whether the vector units compute half precision at twice the SP rate
        (AVX512-FP16, Armv8.2 FP16); only the plausibility bound uses it.
    turbo : bool
        False for a constant clock (A64FX): the printed clock is the clock.
    parts : tuple of PartRule
        Where parts of the type differ.
    note : str
        What a user should know besides (``""``).
    """

    name: str
    cpu_types: tuple[str, ...]
    widths: tuple[SimdWidth, ...]
    source: str
    l1d_kib: int | None = 32
    l2_kib: int | None = None
    half_precision: bool = False
    turbo: bool = True
    parts: tuple[PartRule, ...] = ()
    note: str = ""


@dataclass(frozen=True)
class CoreCapabilities:
    """A :class:`CoreRow` resolved for one CPU (its part rules applied to its name).

    Attributes
    ----------
    row : CoreRow
    cpu_type, cpu_name : str or None
        What the run printed.
    widths : tuple of SimdWidth
        The widths whose throughput is known for this part.
    part : str or None
        The part rule applied (``"Xeon Gold 6xxx: 2 AVX-512 FMA units"``).
    unknown : str or None
        The widths left out and why (the part is in no rule).
    choices : tuple of SimdWidth
        What a width left out may be on the parts of the type (for the bound).
    """

    row: CoreRow
    cpu_type: str | None
    cpu_name: str | None
    widths: tuple[SimdWidth, ...]
    part: str | None = None
    unknown: str | None = None
    choices: tuple[SimdWidth, ...] = field(default=(), repr=False)

    @property
    def scalar(self) -> SimdWidth:
        """The scalar width."""
        return self.widths[0]

    @property
    def widest(self) -> SimdWidth:
        """The widest known SIMD width."""
        return self.widths[-1]

    def width(self, isa: str) -> SimdWidth | None:
        """The known width of ``isa`` (``"AVX2"``), or None."""
        return next((w for w in self.widths if w.isa == isa), None)

    def flops_per_cycle(self, precision: str = "DP", isa: str | None = None,
                        fma: bool = True) -> float:
        """FLOP per cycle of one core at ``isa`` (default the widest known width).

        Examples
        --------
        >>> find_core("Intel Skylake SP processor", "Intel(R) Xeon(R) Gold 6132 CPU @ 2.60GHz"
        ...           ).flops_per_cycle("DP")
        32
        """
        width = self.widest if isa is None else self.width(isa)
        if width is None:
            raise ValueError(f"no known {isa} width on {self.row.name}")
        return width.flops_per_cycle(precision, fma)

    def max_flops_per_cycle(self) -> float:
        """The most FLOP per cycle the core does in any precision and any part of its type.

        The plausibility bound's figure: SP (HP where the vector units do
        half precision at twice the SP rate), FMA, the widest width, an
        unknown part counted with its larger choice.
        """
        precision = "HP" if self.row.half_precision else "SP"
        widths = self.widths + self.choices
        return max(w.flops_per_cycle(precision) for w in widths if w.fma is not None)

    @property
    def provenance(self) -> dict:
        """The row as plain values for a roof's provenance."""
        return {"microarchitecture": self.row.name, "cpu_type": self.cpu_type,
                "cpu_name": self.cpu_name, "table_source": self.row.source,
                "part_rule": self.part, "unknown": self.unknown}


def _w(isa: str, bits: int | None, fma: float | None, ops: float | None) -> SimdWidth:
    return SimdWidth(isa, bits, fma, ops)


_SCALAR_2 = _w("scalar", None, 2, 2)
_X86_AVX2 = (_SCALAR_2, _w("SSE", 128, 2, 2), _w("AVX2", 256, 2, 2))
_AVX512_PARTS = (  # Skylake SP and Cascade Lake SP: ARK's "# of AVX-512 FMA Units"
    PartRule(r"\bGold 5[12]22\b", "AVX-512", 2, 2, "Xeon Gold 5122 / 5222"),
    PartRule(r"\b(?:Platinum [89]\d{3}|Gold 6\d{3})", "AVX-512", 2, 2,
             "Xeon Platinum 8xxx / 9xxx, Gold 6xxx"),
    PartRule(r"\b(?:Gold 5\d{3}|Silver 4\d{3}|Bronze 3\d{3})", "AVX-512", 1, 1,
             "Xeon Gold 5xxx (not 5122/5222), Silver 4xxx, Bronze 3xxx"),
)
_ZEN_256 = (_w("scalar", None, 2, 4), _w("SSE", 128, 2, 4), _w("AVX2", 256, 2, 4))
_NEOVERSE_4X128 = (_w("scalar", None, 4, 4), _w("NEON", 128, 4, 4))

#: One row per microarchitecture (see the module docstring for what the numbers mean).
CORE_TABLE: tuple[CoreRow, ...] = (
    CoreRow("Intel Haswell", ("Intel Core Haswell processor",
                              "Intel Xeon Haswell EN/EP/EX processor"), _X86_AVX2,
            f"{_INTEL_MANUAL}, Haswell microarchitecture: FMA units on ports 0 and 1, "
            "FP add on port 1", l2_kib=256),
    CoreRow("Intel Broadwell", ("Intel Core Broadwell processor", "Intel Xeon D Broadwell processor",
                                "Intel Xeon E3 Broadwell processor",
                                "Intel Xeon Broadwell EN/EP/EX processor"), _X86_AVX2,
            f"{_INTEL_MANUAL}, Broadwell microarchitecture (the Haswell execution ports)",
            l2_kib=256),
    CoreRow("Intel Skylake (client)", ("Intel Skylake processor", "Intel Kabylake processor",
                                       "Intel Coffeelake processor", "Intel Cometlake processor"),
            _X86_AVX2, f"{_INTEL_MANUAL}, Skylake client microarchitecture: FMA, add and "
            "multiply on ports 0 and 1", l2_kib=256),
    CoreRow("Intel Skylake SP", ("Intel Skylake SP processor",),
            (*_X86_AVX2, _w("AVX-512", 512, None, None)),
            f"{_INTEL_MANUAL}, Skylake server microarchitecture: 512-bit FMA on ports 0+1 and, "
            f"on parts with two units, port 5; {_ARK}", l2_kib=1024, parts=_AVX512_PARTS),
    CoreRow("Intel Cascade Lake SP", ("Intel Cascadelake SP processor",),
            (*_X86_AVX2, _w("AVX-512", 512, None, None)),
            f"{_INTEL_MANUAL}, Cascade Lake (the Skylake server execution ports); {_ARK}",
            l2_kib=1024, parts=_AVX512_PARTS),
    CoreRow("Intel Ice Lake (client)", ("Intel Icelake processor", "Intel Rocketlake processor"),
            (*_X86_AVX2, _w("AVX-512", 512, 1, 1)),
            f"{_INTEL_MANUAL}, Ice Lake client (Sunny Cove): one 512-bit FMA unit (ports 0+1)",
            l1d_kib=48, l2_kib=512),
    CoreRow("Intel Tiger Lake", ("Intel Tigerlake processor",),
            (*_X86_AVX2, _w("AVX-512", 512, 1, 1)),
            f"{_INTEL_MANUAL}, Tiger Lake (Willow Cove): one 512-bit FMA unit (ports 0+1)",
            l1d_kib=48, l2_kib=1280),
    CoreRow("Intel Ice Lake SP", ("Intel Icelake SP processor",),
            (*_X86_AVX2, _w("AVX-512", 512, 2, 2)),
            f"{_INTEL_MANUAL}, Ice Lake server (Sunny Cove): 512-bit FMA on ports 0+1 and 5; "
            f"{_ARK} (2 on every 3rd generation Xeon Scalable part)", l1d_kib=48, l2_kib=1280),
    CoreRow("Intel Sapphire Rapids", ("Intel SapphireRapids processor",
                                      "Intel EmeraldRapids processor",
                                      "Intel GraniteRapids processor"),
            (*_X86_AVX2, _w("AVX-512", 512, 2, 2)),
            f"{_INTEL_MANUAL}, Golden Cove / Raptor Cove / Redwood Cove server cores: 512-bit "
            f"FMA on ports 0+1 and 5, AVX512-FP16; {_ARK}", l1d_kib=48, l2_kib=2048,
            half_precision=True, note="AMX tile FLOPs are not counted"),
    CoreRow("AMD Zen / Zen+", ("AMD K17 (Zen) architecture", "AMD K17 (Zen+) architecture"),
            (_w("scalar", None, 2, 4), _w("SSE", 128, 2, 4), _w("AVX2", 256, 1, 2)),
            "Software Optimization Guide for AMD Family 17h Processors (AMD pub. 55723), "
            "floating-point unit: four 128-bit pipes, FMA/multiply on pipes 0 and 1, add on 2 "
            "and 3; a 256-bit instruction runs as two 128-bit halves", l2_kib=512),
    CoreRow("AMD Zen2", ("AMD K17 (Zen2) architecture",), _ZEN_256,
            "Software Optimization Guide for AMD Family 17h Models 30h and Greater Processors "
            "(AMD pub. 56305): four 256-bit FP pipes, FMA/multiply on 0 and 1, add on 2 and 3",
            l2_kib=512),
    CoreRow("AMD Zen3", ("AMD K19 (Zen3) architecture",), _ZEN_256,
            "Software Optimization Guide for AMD EPYC 7003 Processors (AMD pub. 56665): four "
            "256-bit FP pipes, FMA/multiply on 0 and 1, add on 2 and 3", l2_kib=512),
    CoreRow("AMD Zen4", ("AMD K19 (Zen4) architecture", "AMD K19 (Zen4c) architecture"),
            (*_ZEN_256, _w("AVX-512", 512, 1, 2)),
            "Software Optimization Guide for the AMD Zen4 Microarchitecture (AMD pub. 57647): "
            "the 256-bit pipes of Zen3, a 512-bit instruction as two 256-bit halves",
            l2_kib=1024),
    CoreRow("Fujitsu A64FX", ("Fujitsu A64FX",),
            (_w("scalar", None, 2, 2), _w("NEON", 128, 2, 2), _w("SVE", 512, 2, 2)),
            "A64FX Microarchitecture Manual (Fujitsu): two 512-bit FP pipelines FLA and FLB, "
            "both FMA; Fujitsu A64FX datasheet: no turbo", l1d_kib=64, half_precision=True,
            turbo=False, note="8 MiB L2 per core memory group of 12 cores"),
    CoreRow("Arm Neoverse N1", ("ARM Neoverse N1",),
            (_w("scalar", None, 2, 2), _w("NEON", 128, 2, 2)),
            "Arm Neoverse N1 Software Optimization Guide: two FP/ASIMD pipelines V0 and V1, "
            "both FMA", l1d_kib=64, half_precision=True, note="L2 512 KiB or 1 MiB as built"),
    CoreRow("Arm Neoverse V1", ("ARM Neoverse V1",),
            (*_NEOVERSE_4X128, _w("SVE", 256, 2, 2)),
            "Arm Neoverse V1 Software Optimization Guide: four 128-bit FP/ASIMD pipelines V0-V3, "
            "a 256-bit SVE instruction on a pair", l1d_kib=64, l2_kib=1024, half_precision=True),
    CoreRow("Arm Neoverse V2 / NVIDIA Grace", ("Nvidia Grace", "ARM Neoverse V2"),
            (*_NEOVERSE_4X128, _w("SVE", 128, 4, 4)),
            "Arm Neoverse V2 Software Optimization Guide: four 128-bit FP/ASIMD/SVE pipelines "
            "V0-V3; NVIDIA Grace CPU Superchip Architecture whitepaper: Neoverse V2 cores",
            l1d_kib=64, l2_kib=1024, half_precision=True,
            note="LIKWID prints 'Nvidia Grace'; 'ARM Neoverse V2' for other V2 parts"),
    CoreRow("Marvell ThunderX2", ("Cavium Thunder X2 (ARMv8)",),
            (_w("scalar", None, 2, 2), _w("NEON", 128, 2, 2)),
            "Marvell (Cavium) ThunderX2 CN99xx product brief: two 128-bit FP/NEON units per "
            "core, both FMA", l2_kib=256),
    CoreRow("IBM POWER9 (SMT4 core)", ("POWER9 architecture",),
            (_w("scalar", None, 4, 4), _w("VSX", 128, 2, 2)),
            "POWER9 Processor User's Manual (IBM / OpenPOWER): four 64-bit FP execution slices "
            "per SMT4 core, paired for 128-bit VSX", note="an SMT8 core is two SMT4 cores"),
    CoreRow("IBM POWER10 (SMT4 core)", ("POWER10 architecture",),
            (_w("scalar", None, 4, 4), _w("VSX", 128, 4, 4)),
            "IBM Power10 processor (IBM Journal of Research and Development 2021 / Hot Chips 32): "
            "four 128-bit SIMD pipes per SMT4 core", l1d_kib=48, l2_kib=2048,
            note="MMA matrix FLOPs are not counted; LIKWID up to 5.4 names no POWER10 type"),
)

_BY_TYPE = {" ".join(t.split()).casefold(): row for row in CORE_TABLE for t in row.cpu_types}


def _apply_parts(row: CoreRow, cpu_name: str | None) -> tuple[tuple, str | None, str | None, tuple]:
    """(known widths, part applied, what is unknown, choices of an unknown width)."""
    if not row.parts:
        return row.widths, None, None, ()
    known, applied, unknown, choices = [], [], [], []
    for width in row.widths:
        if width.fma is not None:
            known.append(width)
            continue
        rules = [r for r in row.parts if r.isa == width.isa]
        rule = next((r for r in rules if cpu_name and re.search(r.pattern, cpu_name)), None)
        if rule is None:
            counts = sorted({r.fma for r in rules})
            unknown.append(f"{width.name}: the FMA units of {cpu_name or 'this part'} are not "
                           f"in the table ({' or '.join(f'{c:g}' for c in counts)} on "
                           f"{row.name} parts)")
            choices += [replace(width, fma=r.fma, ops=r.ops) for r in rules]
            continue
        known.append(replace(width, fma=rule.fma, ops=rule.ops))
        units = f"{rule.fma:g} {width.isa} FMA unit{'s' if rule.fma != 1 else ''}"
        applied.append(f"{rule.parts}: {units}")
    return (tuple(known), "; ".join(applied) or None, "; ".join(unknown) or None, tuple(choices))


def find_core(cpu_type: str | None, cpu_name: str | None = None) -> CoreCapabilities | None:
    """The table row of a LIKWID ``CPU type``, resolved for the part ``cpu_name`` names.

    Parameters
    ----------
    cpu_type : str or None
        As LIKWID printed it (case and runs of blanks do not matter).
    cpu_name : str, optional
        LIKWID's ``CPU name``: decides the rows whose parts differ.

    Returns
    -------
    CoreCapabilities or None
        None for a type not in :data:`CORE_TABLE` (or no type).

    Examples
    --------
    >>> core = find_core("Intel Cascadelake SP processor", "Intel(R) Xeon(R) Gold 5218 CPU")
    >>> core.part, core.flops_per_cycle("DP")
    ('Xeon Gold 5xxx (not 5122/5222), Silver 4xxx, Bronze 3xxx: 1 AVX-512 FMA unit', 16)
    >>> find_core("Intel Pentium M Banias processor") is None
    True
    """
    if not cpu_type:
        return None
    row = _BY_TYPE.get(" ".join(str(cpu_type).split()).casefold())
    if row is None:
        return None
    name = " ".join(str(cpu_name).split()) if cpu_name else None
    widths, part, unknown, choices = _apply_parts(row, name)
    return CoreCapabilities(row, " ".join(str(cpu_type).split()), name, widths, part, unknown,
                            choices)


def widest_flops_per_cycle() -> float:
    """The most FLOP per cycle any core of the table does (any precision, any part): 128.

    The plausibility bound of a core whose type is unknown.
    """
    return max(CoreCapabilities(row, None, None, *_apply_parts(row, None)).max_flops_per_cycle()
               for row in CORE_TABLE)


_NAME_CLOCK = re.compile(r"@\s*([0-9]+(?:\.[0-9]+)?)\s*([GM])Hz", re.IGNORECASE | re.ASCII)
_PRINTED_CLOCK = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)\s*([GM]?)Hz\s*$",
                            re.IGNORECASE | re.ASCII)


def base_clock_ghz(cpu_name: str | None) -> float | None:
    """The clock a CPU name states (``"... CPU @ 2.60GHz"``: 2.6), or None.

    Examples
    --------
    >>> base_clock_ghz("Intel(R) Xeon(R) Gold 6132 CPU @ 2.60GHz")
    2.6
    """
    match = _NAME_CLOCK.search(cpu_name or "")
    if match is None:
        return None
    value = float(match[1]) / (1000.0 if match[2].upper() == "M" else 1.0)
    return value if 0 < value < 100 else None


def printed_clock_ghz(cpu_clock: str | None) -> float | None:
    """LIKWID's ``CPU clock`` (``"2.59 GHz"``, ``"2.394300087 GHz"``) in GHz, or None.

    Examples
    --------
    >>> printed_clock_ghz("2.394300087 GHz")
    2.394300087
    """
    match = _PRINTED_CLOCK.match(str(cpu_clock or ""))
    if match is None:
        return None
    value = float(match[1]) / {"G": 1.0, "M": 1e3, "": 1e9}[match[2].upper()]
    return value if 0 < value < 100 else None


def core_table(precision: str = "DP"):
    """The table as a DataFrame: per row and width, FLOP per cycle with and without FMA.

    Parameters
    ----------
    precision : {"DP", "SP", "HP"}

    Returns
    -------
    pandas.DataFrame
        ``microarchitecture, cpu_types, width, fma_per_cycle, flops_per_cycle,
        flops_per_cycle_fma, source``; a width decided per part has one row per
        rule (``width`` names the parts), NaN FLOP where nothing is known.
    """
    import pandas as pd

    rows = []
    for row in CORE_TABLE:
        for width in row.widths:
            variants = ([(width, "")] if width.fma is not None else
                        [(replace(width, fma=r.fma, ops=r.ops), f" on {r.parts}")
                         for r in row.parts if r.isa == width.isa])
            for resolved, parts in variants:
                rows.append({"microarchitecture": row.name, "cpu_types": " | ".join(row.cpu_types),
                             "width": resolved.name + parts, "fma_per_cycle": resolved.fma,
                             "flops_per_cycle": resolved.flops_per_cycle(precision, fma=False),
                             "flops_per_cycle_fma": resolved.flops_per_cycle(precision),
                             "source": row.source})
    return pd.DataFrame(rows)
