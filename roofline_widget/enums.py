"""String enumerations: members that are, and print as, their plain string value.

Kinds of units, devices and reader layouts are :class:`StrEnum` members, so
``Device.CPU == "cpu"`` holds, ``str(Device.CPU)`` and f-strings give
``"cpu"`` (on every Python >= 3.10), and pandas columns built from them hold
the same values as before.
"""

from __future__ import annotations

import enum

__all__ = ["StrEnum"]


class StrEnum(str, enum.Enum):
    """A ``str`` enumeration whose members format as their value.

    Examples
    --------
    >>> class Colour(StrEnum):
    ...     RED = "red"
    >>> Colour.RED == "red", f"{Colour.RED}", str(Colour.RED)
    (True, 'red', 'red')
    >>> Colour("red") is Colour.RED
    True
    """

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)
