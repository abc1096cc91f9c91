"""The demo launcher: the notebook copied out of the checkout, a URL that lands on it, root allowed."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from roofline_widget import demo

REPO = Path(__file__).resolve().parents[1]


def test_bundled_notebook_is_the_checkouts_quickstart():
    assert demo.bundled_notebook().read_bytes() == (REPO / "notebooks" / "quickstart.ipynb").read_bytes()


def test_prepare_folder_copies_once_and_keeps_the_users_copy(tmp_path):
    notebook, copied = demo.prepare_folder(tmp_path / "demo")
    assert copied
    assert notebook.read_bytes() == demo.bundled_notebook().read_bytes()
    notebook.write_text("my edits")
    again, copied = demo.prepare_folder(tmp_path / "demo")
    assert again == notebook
    assert not copied
    assert notebook.read_text() == "my edits"
    _, copied = demo.prepare_folder(tmp_path / "demo", fresh=True)
    assert copied
    assert notebook.read_bytes() == demo.bundled_notebook().read_bytes()


def test_command_allows_root_only_as_root(tmp_path):
    as_user = demo.jupyter_command(tmp_path, as_root=False, extra=["--no-browser"])
    as_root = demo.jupyter_command(tmp_path, as_root=True)
    assert "--allow-root" not in as_user
    assert "--no-browser" in as_user
    assert as_root[-1] == "--allow-root"
    assert f"--ServerApp.root_dir={tmp_path}" in as_root


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_printed_url_opens_the_notebook(tmp_path):
    """Start the real launcher (as whoever runs the tests, root in CI) and open the URL it prints."""
    pytest.importorskip("jupyterlab")
    env = dict(os.environ, HOME=str(tmp_path / "home"), JUPYTER_CONFIG_DIR=str(tmp_path / "cfg"),
               JUPYTER_DATA_DIR=str(tmp_path / "data"), JUPYTER_RUNTIME_DIR=str(tmp_path / "rt"),
               JUPYTERLAB_WORKSPACES_DIR=str(tmp_path / "ws"))
    port = _free_port()
    log = tmp_path / "server.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "roofline_widget.demo", "--dir", str(tmp_path / "demo"), "--",
             "--no-browser", "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
             "--ServerApp.port_retries=0"],
            stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    try:
        url = None
        deadline = time.monotonic() + 60
        while url is None and time.monotonic() < deadline and process.poll() is None:
            found = re.search(r"http://127\.0\.0\.1:\d+/\S*token=[0-9a-f]+", log.read_text(errors="replace"))
            url = found.group(0) if found else None
            time.sleep(0.3)
        text = log.read_text(errors="replace")
        assert url is not None, f"no URL printed; log:\n{text[-3000:]}"
        assert "Running as root is not recommended" not in text
        assert url.startswith(f"http://127.0.0.1:{port}/lab/tree/quickstart.ipynb?token="), url
        with urllib.request.urlopen(url, timeout=20) as response:
            page = response.read().decode()
        assert response.status == 200
        assert "JupyterLab" in page
        token = url.rsplit("token=", 1)[1]
        api = f"http://127.0.0.1:{port}/api/contents/quickstart.ipynb?content=0&token={token}"
        with urllib.request.urlopen(api, timeout=20) as response:
            assert json.loads(response.read())["type"] == "notebook"
        assert (tmp_path / "demo" / "quickstart.ipynb").is_file()
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)


def test_shipped_notebook_carries_no_outputs():
    """A user's clone stays clean: the tracked quickstart has no outputs or execution counts."""
    import nbformat

    nb = nbformat.read(REPO / "notebooks" / "quickstart.ipynb", as_version=4)
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    assert code
    assert all(not cell.outputs and cell.execution_count is None for cell in code)
