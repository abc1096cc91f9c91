"""Open the quickstart notebook in JupyterLab: ``python -m roofline_widget.demo``.

The launcher copies the bundled quickstart notebook into a folder of the
user's (``~/roofline-widget-demo`` unless ``--dir`` says otherwise), so that
running it never writes outputs into a checkout or an installed package, and
starts JupyterLab there with the notebook as its landing page: the URL that
JupyterLab prints opens the notebook itself, not the file browser.  As root
(containers, many HPC login nodes) it passes ``--allow-root``, which JupyterLab
otherwise demands.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

NOTEBOOK_NAME = "quickstart.ipynb"
DEFAULT_FOLDER = Path("~/roofline-widget-demo")


def bundled_notebook() -> Path:
    """Path of the quickstart notebook that comes with the package.

    A wheel carries it inside the package (``roofline_widget/notebooks``); an
    editable install of a checkout finds it in the checkout's ``notebooks/``.

    Raises
    ------
    FileNotFoundError
        If neither place holds it.
    """
    package = Path(str(resources.files("roofline_widget")))
    for candidate in (package / "notebooks" / NOTEBOOK_NAME,
                      package.parent / "notebooks" / NOTEBOOK_NAME):
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(f"the quickstart notebook {NOTEBOOK_NAME} is not installed with "
                            f"roofline_widget (looked in {package / 'notebooks'} and "
                            f"{package.parent / 'notebooks'})")


def prepare_folder(folder: Path, *, fresh: bool = False) -> tuple[Path, bool]:
    """Copy the quickstart notebook into ``folder`` unless a copy is there.

    Parameters
    ----------
    folder : pathlib.Path
        Where the notebook goes (created if missing).
    fresh : bool, default False
        Replace an existing copy (the user's edits to it are lost).

    Returns
    -------
    notebook : pathlib.Path
        The notebook to open.
    copied : bool
        False when an existing copy was kept.
    """
    folder.mkdir(parents=True, exist_ok=True)
    notebook = folder / NOTEBOOK_NAME
    if notebook.exists() and not fresh:
        return notebook, False
    shutil.copyfile(bundled_notebook(), notebook)
    return notebook, True


def is_root() -> bool:
    """Whether this process runs as root (POSIX; never on Windows)."""
    return hasattr(os, "geteuid") and os.geteuid() == 0


def jupyter_command(folder: Path, *, as_root: bool, extra: Sequence[str] = ()) -> list[str]:
    """The JupyterLab command line that opens the notebook in ``folder``.

    Parameters
    ----------
    folder : pathlib.Path
        The server's root folder, holding :data:`NOTEBOOK_NAME`.
    as_root : bool
        Add ``--allow-root``.
    extra : sequence of str
        More JupyterLab options (``--no-browser``, ``--port=9999``, ...).

    Returns
    -------
    list of str

    Examples
    --------
    >>> cmd = jupyter_command(Path("/tmp/demo"), as_root=True)
    >>> cmd[1:3], cmd[-1]
    (['-m', 'jupyterlab'], '--allow-root')
    >>> "--LabApp.default_url=/lab/tree/quickstart.ipynb" in cmd
    True
    """
    command = [sys.executable, "-m", "jupyterlab",
               f"--ServerApp.root_dir={folder}",
               f"--LabApp.default_url=/lab/tree/{NOTEBOOK_NAME}",
               *extra]
    if as_root:
        command.append("--allow-root")
    return command


def main(argv: Sequence[str] | None = None) -> int:
    """Run the launcher; the exit code is JupyterLab's."""
    parser = argparse.ArgumentParser(
        prog="python -m roofline_widget.demo",
        description="Open roofline-widget's quickstart notebook (real LIKWID data) in JupyterLab.",
        epilog="Options after '--' go to JupyterLab, e.g. -- --no-browser --port=9999")
    parser.add_argument("--dir", type=Path, default=DEFAULT_FOLDER,
                        help=f"folder for your copy of the notebook (default {DEFAULT_FOLDER})")
    parser.add_argument("--fresh", action="store_true",
                        help="replace an existing copy of the notebook with the bundled one")
    args, extra = parser.parse_known_args(argv)
    extra = [a for a in extra if a != "--"]
    try:
        import jupyterlab  # noqa: F401
    except ImportError:
        print("JupyterLab is not installed: pip install 'roofline-widget[demo]'", file=sys.stderr)
        return 2
    notebook, copied = prepare_folder(args.dir.expanduser(), fresh=args.fresh)
    print(("Copied the quickstart notebook to " if copied else
           "Opening your existing copy (--fresh replaces it): ") + str(notebook), flush=True)
    try:
        return subprocess.call(jupyter_command(notebook.parent, as_root=is_root(), extra=extra))
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    sys.exit(main())
