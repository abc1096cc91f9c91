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


class Launcher:
    """``python -m roofline_widget.demo`` started in its own session, on a free port."""

    def __init__(self, tmp_path: Path) -> None:
        env = dict(os.environ, HOME=str(tmp_path / "home"), JUPYTER_CONFIG_DIR=str(tmp_path / "cfg"),
                   JUPYTER_DATA_DIR=str(tmp_path / "data"), JUPYTER_RUNTIME_DIR=str(tmp_path / "rt"),
                   JUPYTERLAB_WORKSPACES_DIR=str(tmp_path / "ws"))
        env.pop("JUPYTER_CONFIG_PATH", None)
        self.port = _free_port()
        self.log = tmp_path / "server.log"
        with open(self.log, "wb") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "roofline_widget.demo", "--dir", str(tmp_path / "demo"),
                 "--", "--no-browser", "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={self.port}",
                 "--ServerApp.port_retries=0"],
                stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)

    def url(self) -> str:
        """The URL the launcher printed (waits for it)."""
        url = None
        deadline = time.monotonic() + 60
        while url is None and time.monotonic() < deadline and self.process.poll() is None:
            found = re.search(r"http://127\.0\.0\.1:\d+/\S*token=[0-9a-f]+", self.text())
            url = found.group(0) if found else None
            time.sleep(0.3)
        assert url is not None, f"no URL printed; log:\n{self.text()[-3000:]}"
        return url

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def serving(self) -> bool:
        """Whether something accepts connections on the launcher's port."""
        with socket.socket() as sock:
            sock.settimeout(2)
            return sock.connect_ex(("127.0.0.1", self.port)) == 0

    def stop(self) -> None:
        """Kill whatever is left of the launcher's session (the test's own processes)."""
        if self.process.poll() is None or self.serving():
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.process.wait(timeout=30)


@pytest.fixture
def launcher(tmp_path):
    pytest.importorskip("jupyterlab")
    started = Launcher(tmp_path)
    try:
        yield started
    finally:
        started.stop()


def test_printed_url_opens_the_notebook_without_the_news_pop_up(tmp_path, launcher):
    """Start the real launcher (as whoever runs the tests, root in CI) and open the URL it prints."""
    url = launcher.url()
    text = launcher.text()
    assert "Running as root is not recommended" not in text
    port = launcher.port
    assert url.startswith(f"http://127.0.0.1:{port}/lab/tree/quickstart.ipynb?token="), url
    with urllib.request.urlopen(url, timeout=20) as response:
        page = response.read().decode()
    assert response.status == 200
    assert "JupyterLab" in page
    # The page config JupyterLab hands the browser turns the news pop-up off.
    config = json.loads(re.search(r'<script id="jupyter-config-data" type="application/json">'
                                  r"(.*?)</script>", page, re.S).group(1))
    assert "@jupyterlab/apputils-extension:announcements" in config["disabledExtensions"]
    token = url.rsplit("token=", 1)[1]
    api = f"http://127.0.0.1:{port}/api/contents/quickstart.ipynb?content=0&token={token}"
    with urllib.request.urlopen(api, timeout=20) as response:
        assert json.loads(response.read())["type"] == "notebook"
    assert (tmp_path / "demo" / "quickstart.ipynb").is_file()
    # the user's own config folder is left alone
    assert not (tmp_path / "cfg" / "labconfig").exists()


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_stopping_the_launcher_stops_jupyterlab(launcher, stop):
    """Only the launcher gets the signal (as from ``kill`` or a process manager)."""
    launcher.url()
    assert launcher.serving()
    os.kill(launcher.process.pid, stop)
    assert launcher.process.wait(timeout=60) == 0, launcher.text()[-3000:]
    deadline = time.monotonic() + 30
    while launcher.serving() and time.monotonic() < deadline:
        time.sleep(0.3)
    assert not launcher.serving(), "JupyterLab still serves its port after the launcher stopped"
    assert "Shutting down" in launcher.text()


def test_demo_config_goes_first_and_keeps_the_users_paths(tmp_path):
    config = demo.demo_config(tmp_path)
    page = json.loads((config / "labconfig" / "page_config.json").read_text())
    assert page == {"disabledExtensions": {"@jupyterlab/apputils-extension:announcements": True}}
    env = demo.server_environment(config, {"JUPYTER_CONFIG_PATH": os.pathsep.join(["/a", "/b"]),
                                           "PATH": "/bin"})
    assert env["JUPYTER_CONFIG_PATH"].split(os.pathsep) == [str(config), "/a", "/b"]
    assert env["PATH"] == "/bin"
    assert demo.server_environment(config, {})["JUPYTER_CONFIG_PATH"] == str(config)


def test_shipped_notebook_carries_no_outputs():
    """A user's clone stays clean: the tracked quickstart has no outputs or execution counts."""
    import nbformat

    nb = nbformat.read(REPO / "notebooks" / "quickstart.ipynb", as_version=4)
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    assert code
    assert all(not cell.outputs and cell.execution_count is None for cell in code)
