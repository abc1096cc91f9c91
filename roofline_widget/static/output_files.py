"""Output files: every path checked before anything is written, each file written atomically.

A call that writes several files (an image and a data table) first checks
all of them with :func:`check_targets`: the file's directory exists and is
writable (no directory is ever created: a missing one is refused, named), the
path is not a directory, the suffix names a format that can be written, and
the optional package that writes it is importable.
Every problem is reported at once in one :class:`OutputPathError`, before a
byte is written.  :func:`write_atomically` then writes each file to a
temporary file in its own directory and moves them all into place with
:func:`os.replace` only once every writer has finished: a writer that raises
leaves no truncated file, no stray temporary file, and every file that was
there before untouched.

A CSV's cells are made safe for spreadsheets by
:func:`roofline_widget.escaping.spreadsheet_safe` (the writer's job).
"""

from __future__ import annotations

import functools
import importlib.util
import os
import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from roofline_widget.errors import OutputPathError

__all__ = [
    "DATA",
    "DATA_SUFFIXES",
    "HTML_FORMATS",
    "IMAGE",
    "OutputTarget",
    "check_targets",
    "data_target",
    "image_formats",
    "image_target",
    "write_atomically",
]

#: The two kinds of output file.
IMAGE, DATA = "image", "data"
#: Image suffixes written as one interactive HTML page (static/html_export.py), not by matplotlib.
HTML_FORMATS = ("html", "htm")
#: Data formats and the file suffixes each is written under.
DATA_SUFFIXES = {"csv": (".csv",), "json": (".json",), "parquet": (".parquet", ".pq")}
#: Which packages a data format needs (any one of them).
_DATA_EXTRAS = {"parquet": ("pyarrow", "fastparquet")}
#: matplotlib formats written through Pillow.
_PILLOW_FORMATS = ("gif", "jpg", "jpeg", "tif", "tiff", "webp", "avif")
_TEMP_SUFFIX = ".part"


@dataclass(frozen=True)
class OutputTarget:
    """One file a call is to write.

    Attributes
    ----------
    path : pathlib.Path
        Where the file goes.
    kind : str
        ``IMAGE`` or ``DATA`` (suffix checked against the format), or any other
        word (e.g. ``"view"``: any suffix).
    format : str
        The format it is written in (``"png"``, ``"csv"``, ...).
    """

    path: Path
    kind: str
    format: str


@functools.lru_cache(maxsize=1)
def _matplotlib_formats() -> frozenset[str]:
    """What Agg's canvas names, less ``pgf`` without its TeX system (empty without matplotlib)."""
    try:
        import matplotlib
        from matplotlib.backends.backend_agg import FigureCanvasAgg
    except ImportError:
        return frozenset()
    formats = set(FigureCanvasAgg.get_supported_filetypes())
    if shutil.which(matplotlib.rcParams["pgf.texsystem"]) is None:
        formats.discard("pgf")
    return frozenset(formats)


@functools.lru_cache(maxsize=1)
def image_formats() -> tuple[str, ...]:
    """The image formats matplotlib's Agg canvas can write here (empty without matplotlib).

    Formats whose writer is missing are left out: those written through
    Pillow when Pillow does not know the suffix, and ``pgf`` when the TeX
    system it runs (``rcParams["pgf.texsystem"]``) is not on the ``PATH``.
    """
    formats = set(_matplotlib_formats())
    if not formats:
        return ()
    try:
        from PIL import Image

        Image.init()  # loads every Pillow plugin: asked only for a format Pillow writes
        pillow = {suffix.lstrip(".").lower() for suffix in Image.registered_extensions()}
    except ImportError:  # pragma: no cover - Pillow is a dependency of matplotlib
        pillow = set()
    formats -= {f for f in _PILLOW_FORMATS if f not in pillow}
    return tuple(sorted(formats))


def _writes_image(image_format: str) -> bool:
    """Whether matplotlib writes ``image_format`` here (Pillow asked only for its formats)."""
    if image_format in _PILLOW_FORMATS:
        return image_format in image_formats()
    return image_format in _matplotlib_formats()


def image_target(path) -> OutputTarget:
    """An image file, its format taken from the suffix (checked by :func:`check_targets`)."""
    path = Path(path)
    return OutputTarget(path, IMAGE, path.suffix.lower().lstrip("."))


def data_target(path, data_format: str) -> OutputTarget:
    """A data file in ``data_format`` (``"csv"``, ``"json"``, ``"parquet"``)."""
    return OutputTarget(Path(path), DATA, str(data_format).lower())


def _format_problem(target: OutputTarget) -> str | None:
    suffix = target.path.suffix.lower()
    if target.kind == IMAGE and target.format in HTML_FORMATS:
        from roofline_widget.static.html_scripts import missing_scripts

        return missing_scripts()
    if target.kind == IMAGE:
        if _writes_image(target.format):
            return None
        formats = image_formats()
        if not formats:
            return "writing an image needs matplotlib: pip install 'roofline-widget[static]'"
        return (f"cannot write a {target.format or 'suffix-less'} image; matplotlib "
                f"writes {', '.join('.' + f for f in formats)} here, and .html is an "
                "interactive page")
    if target.kind != DATA:
        return None  # another kind (a saved view): any suffix
    suffixes = DATA_SUFFIXES.get(target.format)
    if suffixes is None:
        return (f"unknown data format {target.format!r}; use one of "
                f"{', '.join(DATA_SUFFIXES)}")
    if suffix not in suffixes:
        found = f"the suffix {suffix!r}" if suffix else "no suffix"
        return (f"{found} for data format {target.format!r}, which is written as "
                f"{' or '.join(suffixes)}")
    extras = _DATA_EXTRAS.get(target.format, ())
    if extras and not any(importlib.util.find_spec(name) for name in extras):
        return f"data format {target.format!r} needs {' or '.join(extras)}: pip install {extras[0]}"
    return None


def _place_problem(path: Path) -> str | None:
    """Why ``path`` cannot be created or replaced, or None."""
    if path.is_dir():
        return "is a directory"
    if path.exists() and not path.is_file():
        return "exists and is not a regular file"
    directory = path.parent
    if directory.is_symlink() and not directory.exists():
        return f"its directory {str(directory)!r} is a broken symbolic link"
    if not directory.exists():
        missing = directory
        while not missing.parent.exists() and missing.parent != missing:
            missing = missing.parent
        return (f"its directory {str(directory)!r} does not exist ({str(missing)!r} is missing; "
                "create it first: no directory is created for you)")
    if not directory.is_dir():
        return f"{str(directory)!r} is not a directory"
    return _probe(directory)


def _probe(directory: Path) -> str | None:
    """Why no file can be created in ``directory`` (tried and removed at once), or None.

    A real attempt rather than :func:`os.access`, which says yes to root on
    read-only and pseudo file systems.
    """
    try:
        handle, name = tempfile.mkstemp(prefix=".roofline-probe-", dir=directory)
    except OSError as exc:
        return f"directory {str(directory)!r} is not writable ({exc.strerror or exc})"
    os.close(handle)
    os.unlink(name)
    return None


def check_targets(targets: Sequence[OutputTarget]) -> tuple[OutputTarget, ...]:
    """Check every target; raise one :class:`OutputPathError` naming every bad one.

    A missing directory is an error naming the first missing one: nothing
    creates a directory the user did not make.  Two targets with the same
    path are an error too.

    Returns
    -------
    tuple of OutputTarget
        The targets, unchanged.

    Raises
    ------
    OutputPathError
        Listing each bad path and every reason.
    """
    problems = []
    seen: dict[str, str] = {}
    for target in targets:
        # A directory's "suffix" says nothing: that it is a directory is the reason.
        format_problem = None if target.path.is_dir() else _format_problem(target)
        reasons = [r for r in (_place_problem(target.path), format_problem) if r]
        key = os.path.abspath(target.path)
        if key in seen:
            reasons.append(f"the same path as the {seen[key]} file")
        seen.setdefault(key, target.kind)
        problems += [(str(target.path), target.kind, reason) for reason in reasons]
    if problems:
        raise OutputPathError(problems)
    return tuple(targets)


def _new_file_mode() -> int:
    """The mode an ordinary new file gets (0o666 less the umask).

    The umask is read from ``/proc/self/status`` where there is one (setting
    it to read it back is not thread-safe), else by setting it and back.
    """
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return 0o666 & ~int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


def write_atomically(writes: Sequence[tuple[OutputTarget, Callable[[str], None]]]) -> None:
    """Write every target through its writer, all or nothing.

    Parameters
    ----------
    writes : sequence of (OutputTarget, writer)
        ``writer(path)`` writes the whole file at the given (temporary) path,
        a sibling of the target named ``.<name>.<random>.part``.

    Notes
    -----
    All writers run first; only when every one has succeeded are the
    temporary files moved onto the targets with :func:`os.replace` (atomic on
    one file system).  No directory is created: check the targets with
    :func:`check_targets` first (a missing directory is refused there).  If a
    writer raises, every temporary file is removed and the exception
    propagates: no target is created, truncated or changed.
    """
    staged: list[tuple[str, Path]] = []
    try:
        for target, writer in writes:
            handle, temporary = tempfile.mkstemp(prefix=f".{target.path.name}.",
                                                 suffix=_TEMP_SUFFIX, dir=target.path.parent)
            os.close(handle)
            staged.append((temporary, target.path))
            writer(temporary)
            mode = (target.path.stat().st_mode & 0o7777 if target.path.is_file()
                    else _new_file_mode())
            os.chmod(temporary, mode)
    except BaseException:
        for temporary, _ in staged:
            try:
                os.unlink(temporary)
            except FileNotFoundError:
                pass
        raise
    for temporary, path in staged:
        os.replace(temporary, path)
