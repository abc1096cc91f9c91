"""Open the quickstart notebook in JupyterLab: ``python -m roofline_widget.demo``.

The launcher copies the bundled quickstart notebook into a folder of the
user's (``~/roofline-widget-demo`` unless ``--dir`` says otherwise), so that
running it never writes outputs into a checkout or an installed package, and
starts JupyterLab there with the notebook as its landing page: the URL that
JupyterLab prints opens the notebook itself, not the file browser.  As root
(containers, many HPC login nodes) it passes ``--allow-root``, which JupyterLab
otherwise demands.  JupyterLab's news pop-up, which would cover the widget, is
turned off for this server only (a page config in a hidden folder beside the
notebook, added to ``JUPYTER_CONFIG_PATH``; the user's own settings stay as they
are).  Stopping the launcher (SIGINT, SIGTERM, SIGHUP) stops JupyterLab: the
signal is passed on as SIGTERM, JupyterLab's shut-down signal, and the launcher
waits for it to exit.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path

NOTEBOOK_NAME = "quickstart.ipynb"
DEFAULT_FOLDER = Path("~/roofline-widget-demo")
#: The hidden folder (in the demo folder) that holds the demo server's extra Jupyter config.
CONFIG_FOLDER = ".roofline-demo-config"
#: JupyterLab plugins the demo turns off: the news pop-up ("Would you like to get
#: notified about official Jupyter news?"), which covers the widget.
DISABLED_PLUGINS = ("@jupyterlab/apputils-extension:announcements",)
#: Signals that stop the launcher, and with it JupyterLab (those this platform has).
STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP")
                     if hasattr(signal, name))


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


def demo_config(folder: Path) -> Path:
    """Write the demo server's page config (:data:`DISABLED_PLUGINS` off); return its folder.

    The folder (``<folder>/.roofline-demo-config``) goes first on
    ``JUPYTER_CONFIG_PATH`` (:func:`server_environment`): JupyterLab merges the
    ``labconfig/page_config.json`` of every config folder, so nothing of the
    user's is replaced.
    """
    config = folder / CONFIG_FOLDER
    (config / "labconfig").mkdir(parents=True, exist_ok=True)
    page_config = {"disabledExtensions": {name: True for name in DISABLED_PLUGINS}}
    (config / "labconfig" / "page_config.json").write_text(json.dumps(page_config, indent=1))
    return config


def server_environment(config: Path, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """``environ`` (default: this process') with ``config`` first on ``JUPYTER_CONFIG_PATH``."""
    env = dict(os.environ if environ is None else environ)
    paths = [str(config), *filter(None, env.get("JUPYTER_CONFIG_PATH", "").split(os.pathsep))]
    env["JUPYTER_CONFIG_PATH"] = os.pathsep.join(paths)
    return env


def run_server(command: Sequence[str], env: Mapping[str, str] | None = None) -> int:
    """Run ``command`` (JupyterLab) until it exits; a stop signal to this process stops it too.

    While it runs, each of :data:`STOP_SIGNALS` received here is passed on to
    the server as SIGTERM (its clean shut-down: kernels stopped, port freed,
    no question asked), and the launcher waits for it.

    Returns
    -------
    int
        The server's exit code.
    """
    process = subprocess.Popen(list(command), env=None if env is None else dict(env))

    def forward(_signum, _frame) -> None:
        if process.poll() is None:
            process.terminate()  # SIGTERM (TerminateProcess on Windows)

    previous = {sig: signal.signal(sig, forward) for sig in STOP_SIGNALS}
    try:
        return process.wait()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


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
    env = server_environment(demo_config(notebook.parent))
    return run_server(jupyter_command(notebook.parent, as_root=is_root(), extra=extra), env)


if __name__ == "__main__":
    sys.exit(main())
