"""The ``STRUCT,Info,N`` blocks of likwid-perfctr's CSV output.

likwid-perfctr ``-O`` prints one before every (region, group) block: the CPU
header (``CPU name:``, ``CPU type:``, ``CPU clock:``), the same in every one.
LIKWID 4.0.x prints ``STRUCT,Info,5``, whose ``<gid>,<GROUP>,<region>`` line and
``Region Info`` rows tell the region, thread columns, runtime and call count
of the next ``TABLE`` (:class:`PendingInfo`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from roofline_widget.io.cells import parse_cells
from roofline_widget.io.csv_rows import (
    CALLS_ROW,
    REGION_INFO,
    RUNTIME_ROW,
    CsvRowReader,
    RegionInfo,
    split_cells,
    strip_padding,
)
from roofline_widget.io.run_marks import CPU_FIELDS

__all__ = ["STRUCT_LINE", "PendingInfo", "StructInfo"]

#: The line that opens a ``STRUCT,Info`` block of ``count`` lines.
STRUCT_LINE = re.compile(r"^STRUCT,Info,(?P<count>\d+)[,\s]*$", re.ASCII)
_GROUP_LINE = re.compile(r"^(?P<index>\d+),(?P<group>[^,]+),(?P<region>.*)$", re.ASCII)


@dataclass
class PendingInfo:
    """What a LIKWID 4.0.x ``STRUCT,Info,5`` block said about the next block."""

    group_index: int
    group: str
    region: str
    info: RegionInfo = field(default_factory=RegionInfo)


class StructInfo:
    """The CPU header of a CSV text, read from its ``STRUCT,Info`` blocks.

    Parameters
    ----------
    rows : CsvRowReader
        The text's row reader (its lines, cell checks and warnings).

    Attributes
    ----------
    info : dict of str
        ``cpu_name``, ``cpu_type``, ``cpu_clock`` as first printed.
    struct_info_5 : bool
        Whether a ``STRUCT,Info,5`` block (LIKWID 4.0.x) was read.
    """

    def __init__(self, rows: CsvRowReader) -> None:
        self.rows = rows
        self.info: dict[str, str] = {}
        self.struct_info_5 = False

    def read(self, index: int, count: int) -> tuple[int, PendingInfo | None]:
        """Read the block of the ``STRUCT,Info,<count>`` line ``index``.

        Returns
        -------
        (int, PendingInfo or None)
            The index of the line after the block, and what a 4.0.x block said
            about the next block (None for any other).
        """
        rows, lines = self.rows, self.rows.lines
        self.struct_info_5 = self.struct_info_5 or count == 5
        pending = None
        end = index + 1
        while end <= index + count and (line := lines.get(end)) is not None:
            if line.startswith(("TABLE,", "STRUCT,Info")):
                break
            cells = strip_padding(split_cells(line))
            key = cells[0] if cells else ""
            if key.rstrip(":") in CPU_FIELDS and len(cells) >= 2:
                self.set_info(key.rstrip(":"), ",".join(cells[1:]), end)
            elif key == REGION_INFO and pending is not None:
                pending.info.threads = rows.lists.threads(cells[1:], end + 1)
            elif key in (RUNTIME_ROW, CALLS_ROW) and pending is not None:
                values = rows.fit(cells, 1 + len(pending.info.threads), end, f"a {key!r} row")
                parsed = parse_cells(values[1:], rows.source, end + 1, f"values of {key!r}")
                if key == RUNTIME_ROW:
                    pending.info.runtime = parsed
                else:
                    pending.info.call_count = parsed
            elif (match := _GROUP_LINE.match(line)) is not None:
                pending = PendingInfo(int(match["index"]), match["group"],
                                      match["region"].rstrip(","))
            else:
                rows.warnings.append(f"{rows.source}, line {end + 1}: ignored an unrecognised "
                                     f"STRUCT,Info line {line[:60]!r}")
            end += 1
        return end, pending

    def set_info(self, label: str, value: str, index: int) -> None:
        """Keep the CPU header line ``label`` (``"CPU name"``) of line ``index`` (0-based)."""
        key, value = CPU_FIELDS[label], value.strip()
        if key == "cpu_clock" and value.endswith(" MHz"):
            # LIKWID 4.0.x prints clock * 1e-9 (a value in GHz) followed by "MHz".
            value = value[:-4] + " GHz"
        previous = self.info.setdefault(key, value)
        # Clocks legitimately differ in precision between the info blocks.
        if previous != value and key != "cpu_clock":
            self.rows.warnings.append(f"{self.rows.source}, line {index + 1}: {label} {value!r} "
                                      f"differs from the earlier {previous!r}; keeping the first")
