"""Jupyter servers for tests and benchmarks: isolated state, a random port and token, 127.0.0.1 only.

Used by the browser fixtures (``conftest.py``), the Binder test
(``tests/test_binder.py``) and ``benchmarks/bench_browser_ranks.py``; it imports
nothing of pytest, so the benchmarks can use it too.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

__all__ = ["SERVER_START_TIMEOUT_S", "Server", "free_port", "isolated_env", "start_server"]

SERVER_START_TIMEOUT_S = 90
#: Jupyter's state directories, each set to a folder of its own below the base.
_STATE_DIRS = {
    "HOME": "home",
    "JUPYTER_CONFIG_DIR": "config",
    "JUPYTER_DATA_DIR": "data",
    "JUPYTER_RUNTIME_DIR": "runtime",
    "JUPYTERLAB_SETTINGS_DIR": "settings",
    "JUPYTERLAB_WORKSPACES_DIR": "workspaces",
    "IPYTHONDIR": "ipython",
}


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Server:
    """A running Jupyter (Lab, Notebook 7 or Voila) server."""

    base_url: str
    token: str
    root_dir: Path
    log_path: Path
    state_file: Path
    process: subprocess.Popen

    def url(self, path: str) -> str:
        """Full URL of ``path`` with the token appended."""
        sep = "&" if "?" in path else "?"
        return f"{self.base_url}/{path.lstrip('/')}{sep}token={self.token}"

    def api(self, path: str, method: str = "GET"):
        """Call the server's REST API; return the decoded JSON or ``None``."""
        request = urllib.request.Request(self.url(path), method=method)
        with urllib.request.urlopen(request, timeout=10) as response:
            body = response.read()
        return json.loads(body) if body else None

    def log_tail(self, n_chars: int = 4000) -> str:
        """The end of the server's log, for error messages."""
        return self.log_path.read_text(errors="replace")[-n_chars:]

    def stop(self) -> None:
        """Terminate the server's process group; kill it if it lingers."""
        for sig, grace_s in ((signal.SIGTERM, 10), (signal.SIGKILL, 5)):
            try:
                os.killpg(self.process.pid, sig)
            except ProcessLookupError:
                return
            try:
                self.process.wait(timeout=grace_s)
                return
            except subprocess.TimeoutExpired:
                continue


def isolated_env(base: Path, state_file: Path) -> dict[str, str]:
    """Environment with every Jupyter state directory below ``base``.

    Announcements and autosave are off (a notebook saved with widget views whose
    kernel is gone shows "widget model not found" when the next test opens it);
    kernels find this interpreter's executables first and get ``state_file`` as
    ``ROOFLINE_STATE_FILE``.
    """
    env = dict(os.environ)
    for var, name in _STATE_DIRS.items():
        (base / name).mkdir(parents=True, exist_ok=True)
        env[var] = str(base / name)
    labconfig = base / "config" / "labconfig"
    labconfig.mkdir(parents=True, exist_ok=True)
    (labconfig / "page_config.json").write_text(
        json.dumps({"disabledExtensions": {"@jupyterlab/apputils-extension:announcements": True}})
    )
    docmanager = base / "settings" / "@jupyterlab" / "docmanager-extension"
    docmanager.mkdir(parents=True, exist_ok=True)
    (docmanager / "plugin.jupyterlab-settings").write_text(json.dumps({"autosave": False}))
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["ROOFLINE_STATE_FILE"] = str(state_file)
    env["JUPYTER_PLATFORM_DIRS"] = "1"
    env.pop("JUPYTER_PATH", None)
    env.pop("JUPYTER_CONFIG_PATH", None)
    return env


def start_server(args: list[str], *, root_dir: Path, env: dict[str, str], log_path: Path,
                 state_file: Path, token_option: str = "IdentityProvider.token",
                 ready_path: str = "api/status",
                 timeout_s: float = SERVER_START_TIMEOUT_S) -> Server:
    """Start ``python -m <args>`` in ``root_dir``; return it once ``ready_path`` answers.

    Parameters
    ----------
    args : list of str
        The module and its options (``--port`` and the token are added).
    root_dir, env, log_path, state_file
        Working directory, environment (:func:`isolated_env`), log file, and
        the kernels' state file.
    token_option : str
        The traitlets option that takes the token.
    ready_path : str
        A URL path that answers once the server is up, without starting a kernel.

    Raises
    ------
    RuntimeError
        The server exited or did not answer within ``timeout_s``; the message
        holds the end of its log.  The server is stopped first.
    """
    port, token = free_port(), secrets.token_hex(16)
    cmd = [sys.executable, "-m", *args, f"--port={port}", f"--{token_option}={token}"]
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            cmd, cwd=root_dir, env=env, stdin=subprocess.DEVNULL, stdout=log,
            stderr=subprocess.STDOUT, start_new_session=True,
        )
    server = Server(f"http://127.0.0.1:{port}", token, root_dir, log_path, state_file, process)
    try:
        _wait_until_ready(server, ready_path, timeout_s)
    except BaseException:
        server.stop()
        raise
    return server


def _wait_until_ready(server: Server, ready_path: str, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    last_error: Exception | None = None
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError(
                f"server exited with code {server.process.returncode}:\n{server.log_tail()}"
            )
        try:
            urllib.request.urlopen(server.url(ready_path), timeout=5).read()
            return
        except (urllib.error.URLError, ConnectionError, OSError) as exc:
            last_error = exc
            time.sleep(0.25)
    raise RuntimeError(f"server not ready after {timeout_s} s ({last_error}):\n{server.log_tail()}")
