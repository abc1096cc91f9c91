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
import subprocess
import urllib.request
from pathlib import Path

import pytest
from browser.servers import isolated_env, start_server

REPO = Path(__file__).resolve().parents[1]
POST_BUILD = REPO / "binder" / "postBuild"
QUICKSTART_URL = "/lab/tree/notebooks/quickstart.ipynb"


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
    env = isolated_env(repo.parent / "jupyter", repo.parent / "state.json")
    # the home and configuration directory postBuild wrote to, as on Binder
    env.update(HOME=str(home), JUPYTER_CONFIG_DIR=str(home / ".jupyter"))
    server = start_server(
        ["jupyterlab", "--no-browser", "--ip=127.0.0.1", "--allow-root",
         "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
        root_dir=repo, env=env, log_path=repo.parent / "lab.log",
        state_file=repo.parent / "state.json")
    try:
        with urllib.request.urlopen(server.url("/"), timeout=10) as response:
            landing = response.geturl()
    finally:
        server.stop()
    assert landing.split("?")[0].endswith(QUICKSTART_URL), server.log_tail()
