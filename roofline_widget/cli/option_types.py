"""Options checked by the settings' rules: argparse ``type`` functions and the ``--ranks`` option.

:func:`setting_type` makes an argparse ``type`` of a setting of
:data:`roofline_widget.settings.SETTINGS`, so that a bad value is refused with
the sentence the API gives; :func:`add_ranks_option` adds ``--ranks`` (a text
of ranks, ranges, hosts and sockets, the rule of
:func:`roofline_widget.settings.rank_text.ranks`) to every command that
selects points.  Nothing heavy is imported here, so that ``--help`` stays quick.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from roofline_widget.errors import SettingError
from roofline_widget.settings import SETTINGS

__all__ = ["RANKS_HELP", "add_ranks_option", "setting_type"]

#: The help of ``--ranks``.
RANKS_HELP = ("MPI ranks to use: ranks and ranges, host and socket names, globs, e.g. "
              "'0-71,144' or 'f0702 socket 1' (default: all)")


def _number(text: str) -> float | str:
    """A number's text as a float (``"nan"`` too), other text as it is, for the setting to refuse."""
    try:
        return float(text)
    except ValueError:
        return text


def setting_type(name: str, parse: Callable[[str], object] = _number, *,
                 item: bool = False) -> Callable[[str], object]:
    """An argparse ``type``: the text parsed, then checked by the setting ``name``.

    A value the setting refuses is an ``ArgumentTypeError`` with the setting's
    sentence (``argument --peak-flops: peak_flops is in GFLOP/s; 5e9 looks like FLOP/s``).
    ``item``: the text is one item of a list setting (``--levels L2 MEM``).
    """
    setting = SETTINGS[name]

    def checked(text: str) -> object:
        try:
            if item:
                return setting.check([parse(text)])[0]
            return setting.check(parse(text))
        except SettingError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    checked.__name__ = name  # argparse names the type in some messages
    return checked


def add_ranks_option(group) -> None:
    """Add ``--ranks`` to an argparse parser or argument group.

    The text is checked for its shape by the ``ranks`` setting (``--ranks 3-1``:
    ``argument --ranks: rank range '3-1': expected a-b with a <= b``) and kept
    as typed: the command reads it against the data's ranks, hosts and sockets.
    """
    group.add_argument("--ranks", type=setting_type("ranks", str), metavar="TEXT",
                       help=RANKS_HELP)
