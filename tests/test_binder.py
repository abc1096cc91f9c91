"""A Binder launch lands on the quickstart notebook.

mybinder.org (repo2docker) runs ``binder/postBuild`` from the repository root
with ``HOME`` set to the user's home, then starts a Jupyter server there.  The
test does the same in a temporary directory: it runs the real script with
``python`` replaced by a recorder (so no package is installed), checks what it
asked pip to install, starts JupyterLab with the configuration the script
wrote, and follows the server's redirect from ``/``.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
POST_BUILD = REPO / "binder" / "postBuild"
QUICKSTART_URL = "/lab/tree/notebooks/quickstart.ipynb"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def binder_home(tmp_path) -> tuple[Path, Path, Path]:
    """Run ``binder/postBuild`` in a copy of the notebooks; return (repo, home, pip log)."""
    if shutil.which("bash") is None:
        pytest.skip("bash is needed to run binder/postBuild")
    repo, home, shims = tmp_path / "repo", tmp_path / "home", tmp_path / "shims"
    shutil.copytree(REPO / "notebooks", repo / "notebooks")
    home.mkdir()
    shims.mkdir()
    pip_log = tmp_path / "pip-args.txt"
    recorder = shims / "python"
    recorder.write_text(f'#!/bin/sh\necho "$@" >> "{pip_log}"\n')
    recorder.chmod(0o755)
    env = {"HOME": str(home), "PATH": f"{shims}{os.pathsep}{os.environ.get('PATH', '')}"}
    subprocess.run(["bash", str(POST_BUILD)], cwd=repo, env=env, check=True, timeout=60)
    return repo, home, pip_log


def test_post_build_installs_the_checkout_with_the_static_extra(binder_home):
    _, _, pip_log = binder_home
    assert pip_log.read_text().split() == ["-m", "pip", "install", "--no-cache-dir", "-e", ".[static]"]


def test_the_server_binder_starts_opens_the_quickstart(binder_home):
    repo, home, _ = binder_home
    port, token = _free_port(), "binder-test-token"
    env = dict(os.environ, HOME=str(home), JUPYTER_CONFIG_DIR=str(home / ".jupyter"),
               JUPYTER_RUNTIME_DIR=str(home / "runtime"), JUPYTER_DATA_DIR=str(home / "data"))
    env.pop("JUPYTER_CONFIG_PATH", None)
    command = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1",
               f"--port={port}", f"--IdentityProvider.token={token}", "--allow-root",
               "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
    log = (repo.parent / "lab.log").open("wb")
    server = subprocess.Popen(command, cwd=repo, env=env, stdout=log, stderr=subprocess.STDOUT,
                              stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        final_url = _landing_url(f"http://127.0.0.1:{port}/?token={token}", server)
    finally:
        server.terminate()
        server.wait(timeout=20)
        log.close()
    assert final_url.split("?")[0].endswith(QUICKSTART_URL), (repo.parent / "lab.log").read_text()


def _landing_url(url: str, server: subprocess.Popen, timeout_s: float = 90.0) -> str:
    """The URL ``url`` redirects to, once the server answers."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"JupyterLab exited with code {server.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=10) as response:
                return response.geturl()
        except (urllib.error.URLError, ConnectionError, OSError):
            time.sleep(0.25)
    pytest.fail(f"JupyterLab did not answer within {timeout_s} s")
