"""Fixtures for the browser tests: isolated Jupyter servers and a headless Chromium.

Every server runs from the interpreter that runs pytest (the project's venv), on
127.0.0.1 with a random free port and a random token, with all of Jupyter's
state (config, data, runtime, settings, workspaces, IPython, HOME) in a
throw-away directory, and its whole process group is killed at teardown.

Outside CI a missing Chromium or Playwright skips these tests; with ``CI=true``
it fails them, so that CI can never pass without running them.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import time
from pathlib import Path

import pytest

from .servers import isolated_env, start_server

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = REPO / "notebooks"
CHROMIUM = Path(os.environ.get("ROOFLINE_CHROMIUM", "/usr/lib/chromium/chromium"))
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
#: Browser console errors that come from upstream (JupyterLab, Notebook 7, Voila, their
#: widget managers) and not from this package; any other console error fails the test.
#: Where each one comes from: README, "Browser console messages".
KNOWN_CONSOLE_NOISE = tuple(re.compile(p) for p in (
    # Notebook 7.6's shortcuts plugin reads registry.plugins[shortcuts.id].schema before the
    # settings registry has it (jupyter/notebook#7862); a blank notebook shows it too.
    r"Cannot read properties of undefined \(reading 'schema'\)",
    r"Failed to load resource: the server responded with a status of 404",
    r"Could not find a widget manager",
    r"Failed to load resource: net::ERR_NAME_NOT_RESOLVED",  # no network: CDN fonts, icons
))
#: Console errors these tests must never see again (the page fixture fails on any error
#: not in ``KNOWN_CONSOLE_NOISE``; the Voila test also checks these by name):
#: a saved widget view of a dead kernel (autosave is off in the tests' settings), and
#: Notebook 7's lab extension loaded into Voila (denied in ``voila_server``).
GONE_CONSOLE_ERRORS = tuple(re.compile(p) for p in (
    r"widget model not found",
    r"The getter for the shared module is not a function",
))
#: Voila's lab extensions it must not load: Notebook 7's (``notebook`` is in the test
#: extra) needs JupyterLab 4.6 modules Voila 0.5.13's page does not share.
VOILA_DENIED_EXTENSIONS = ("@jupyter-notebook/lab-extension",)
#: Widths (CSS px) the quickstart's screenshots are taken at.
SCREENSHOT_WIDTHS = (900, 1400)
ARTIFACTS_KEY = pytest.StashKey[Path]()
START_KEY = pytest.StashKey[float]()
IN_CI = os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def _missing_browser_tools() -> str | None:
    """Say what is missing to run a browser test, or ``None`` if nothing is."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError as exc:
        return f"the Python package 'playwright' is not importable ({exc}); pip install -e '.[test]'"
    if not os.access(CHROMIUM, os.X_OK):
        return f"no Chromium executable at {CHROMIUM}; apt-get install -y chromium"
    return None


def _require_browser_tools() -> None:
    missing = _missing_browser_tools()
    if missing is None:
        return
    message = f"browser tests cannot run: {missing}"
    if IN_CI:
        pytest.fail(message + " (CI=true: refusing to skip)", pytrace=False)
    pytest.skip(message)


def _serve(tmp: Path, name: str, args: list[str], token_option: str, ready_path: str):
    """Start ``python -m <args>`` as a server (``servers.start_server``); yield it, stop it after."""
    state_file = tmp / f"{name}-state.json"
    server = start_server(args, root_dir=tmp / "notebooks",
                          env=isolated_env(tmp / f"{name}-jupyter", state_file),
                          log_path=tmp / f"{name}.log", state_file=state_file,
                          token_option=token_option, ready_path=ready_path)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def browser_tmp(tmp_path_factory) -> Path:
    """Session directory of the servers, with a temp copy of ``notebooks/``.

    The copy of the quickstart gets the kernel-state cell (``kernel_state.py``) appended.
    """
    from .kernel_state import add_state_cell

    _require_browser_tools()
    tmp = tmp_path_factory.mktemp("browser")
    shutil.copytree(NOTEBOOKS, tmp / "notebooks")
    add_state_cell(tmp / "notebooks" / "quickstart.ipynb")
    return tmp


@pytest.fixture(scope="session")
def lab_server(browser_tmp):
    """JupyterLab whose root is the temp copy of ``notebooks/``."""
    args = [
        "jupyterlab", "--no-browser", "--ip=127.0.0.1", "--allow-root",
        f"--ServerApp.root_dir={browser_tmp / 'notebooks'}",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
    ]
    yield from _serve(browser_tmp, "lab", args, "IdentityProvider.token", "api/status")


@pytest.fixture(scope="session")
def notebook7_server(browser_tmp):
    """Notebook 7 (``jupyter notebook``, ``notebook>=7``) on the temp copy of ``notebooks/``."""
    pytest.importorskip("notebook", minversion="7", reason="Notebook 7 is not installed; "
                        "pip install -e '.[test]'")
    args = [
        "notebook", "--no-browser", "--ip=127.0.0.1", "--allow-root",
        f"--ServerApp.root_dir={browser_tmp / 'notebooks'}",
    ]
    yield from _serve(browser_tmp, "notebook7", args, "IdentityProvider.token", "api/status")


@pytest.fixture
def notebook7(notebook7_server):
    """The Notebook 7 server, with a fresh state file and every kernel stopped after the test."""
    from .ui import shutdown_kernels

    notebook7_server.state_file.unlink(missing_ok=True)
    try:
        yield notebook7_server
    finally:
        shutdown_kernels(notebook7_server)


def _voila_args(notebook: str) -> list[str]:
    return ["voila", notebook, "--no-browser", "--Voila.ip=127.0.0.1",
            f"--VoilaConfiguration.extension_denylist={json.dumps(list(VOILA_DENIED_EXTENSIONS))}"]


@pytest.fixture(scope="session")
def voila_server(browser_tmp):
    """Voila rendering the temp copy of ``notebooks/quickstart.ipynb`` as an app."""
    yield from _serve(browser_tmp, "voila", _voila_args("quickstart.ipynb"), "Voila.token",
                      "voila/static/voila.js")


@pytest.fixture(scope="session")
def voila_webgl_server(browser_tmp):
    """Voila rendering the notebook of 5,000 WebGL points (``webgl_page.py``) as an app."""
    from .webgl_page import write_notebook

    notebook = write_notebook(browser_tmp / "notebooks")
    yield from _serve(browser_tmp, "voila-webgl", _voila_args(notebook), "Voila.token",
                      "voila/static/voila.js")


@pytest.fixture(scope="session")
def playwright_driver(browser_tmp):
    """The Playwright driver of the session (one per process: every browser is launched from it)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        yield playwright


def launch_chromium(playwright, profile: Path, extra_args: tuple[str, ...] = ()):
    """A headless Chromium (persistent context in the fresh user-data directory ``profile``)."""
    context = playwright.chromium.launch_persistent_context(
        str(profile),
        executable_path=str(CHROMIUM),
        headless=True,
        args=[*CHROMIUM_ARGS, *extra_args],
        viewport={"width": 1400, "height": 1000},
    )
    context.set_default_timeout(60_000)
    return context


@pytest.fixture(scope="session")
def browser_context(browser_tmp, playwright_driver):
    """A headless Chromium (persistent context in a fresh user-data directory)."""
    context = launch_chromium(playwright_driver, browser_tmp / "chromium-profile")
    try:
        yield context
    finally:
        context.close()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    """Remember each phase's report on the test item (for the ``page`` fixture)."""
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report


def assert_no_gone_console_errors(page) -> None:
    """Assert the page's console showed none of ``GONE_CONSOLE_ERRORS`` and no denied extension."""
    seen = [text for _kind, text in getattr(page, "console_messages_seen", [])]
    for pattern in GONE_CONSOLE_ERRORS:
        assert not [t for t in seen if pattern.search(t)], f"console shows {pattern.pattern!r}"
    for name in VOILA_DENIED_EXTENSIONS:
        assert not [t for t in seen if name in t], f"console names {name}: {seen}"


def real_console_errors(messages: list[str]) -> list[str]:
    """The console errors not in ``KNOWN_CONSOLE_NOISE``."""
    return [m for m in messages if not any(p.search(m) for p in KNOWN_CONSOLE_NOISE)]


@pytest.fixture
def page(request, browser_context, artifacts_dir):
    """A new browser tab.

    If the test fails, its console errors are printed (pytest shows them) and a
    screenshot of the whole page is saved in ``artifacts_dir``.  If it passed but
    the console shows an error that is not known upstream noise
    (``KNOWN_CONSOLE_NOISE``), the test errors at teardown.
    """
    tab = browser_context.new_page()
    errors: list[str] = []
    tab.console_messages_seen = []  # (type, text) of every console message, for the tests
    tab.on("console", lambda msg: tab.console_messages_seen.append((msg.type, msg.text)))
    tab.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    tab.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
    try:
        yield tab
    finally:
        report = getattr(request.node, "report_call", None)
        if report is not None and report.failed:
            shot = artifacts_dir / f"failure-{request.node.name}.png"
            tab.screenshot(path=str(shot), full_page=True)
            print(f"screenshot of the failed page: {shot}")
            for line in errors:
                print("browser console:", line)
        tab.close()
    real = real_console_errors(errors)
    if real and report is not None and report.passed:
        pytest.fail("JavaScript errors in the browser console:\n" + "\n".join(real),
                    pytrace=False)


def screenshot_widths(page, locator, path_stem: Path) -> list[Path]:
    """Screenshots of ``locator`` at each of ``SCREENSHOT_WIDTHS``: ``<stem>-<width>px.png``.

    At each width the figure must fit the widget, and every ceiling and ridge label
    must lie inside the plot area, apart from the others (``assert_labels_inside_and_apart``).
    """
    from .ui import assert_labels_inside_and_apart

    size = page.viewport_size or {"width": 1400, "height": 1000}
    paths = []
    try:
        for width in SCREENSHOT_WIDTHS:
            page.set_viewport_size({"width": width, "height": size["height"]})
            page.wait_for_timeout(500)  # bqplot lays itself out again on resize
            widget, figure = locator.bounding_box(), locator.locator(".roofline-figure").first.bounding_box()
            assert figure["x"] + figure["width"] <= widget["x"] + widget["width"] + 4, (  # 4: borders
                f"at {width} px the figure overflows the widget: {figure} in {widget}")
            assert_labels_inside_and_apart(locator.locator(".roofline-figure").first, width)
            path = path_stem.with_name(f"{path_stem.name}-{width}px.png")
            locator.screenshot(path=str(path))
            paths.append(path)
    finally:
        page.set_viewport_size(size)
    return paths


@pytest.fixture(scope="session")
def artifacts_dir(request) -> Path:
    """Where screenshots go: ``$ROOFLINE_BROWSER_ARTIFACTS`` or a new temp dir, kept after the run.

    The tests write ``screenshot-{jupyterlab,voila,notebook7}-{900,1400}px.png``
    there (``SCREENSHOT_WIDTHS``); the terminal summary lists them.
    """
    given = os.environ.get("ROOFLINE_BROWSER_ARTIFACTS")
    path = Path(given) if given else Path(tempfile.mkdtemp(prefix="roofline-browser-"))
    path.mkdir(parents=True, exist_ok=True)
    print(f"\nbrowser test screenshots and failure pictures: {path}")
    request.config.stash[ARTIFACTS_KEY] = path
    request.config.stash[START_KEY] = time.time()
    return path


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """Say where the screenshots went and, when browser tests were skipped, why."""
    path = config.stash.get(ARTIFACTS_KEY, None)
    if path is not None:
        start = config.stash.get(START_KEY, 0.0)
        shots = sorted(p.name for p in path.glob("*.png") if p.stat().st_mtime >= start - 1)
        terminalreporter.write_line(
            f"browser screenshots ({len(shots)}) in {path}: {', '.join(shots) or 'none'}")
    reasons: dict[str, int] = {}
    for report in terminalreporter.stats.get("skipped", []):
        if "browser" not in report.keywords:
            continue
        longrepr = report.longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
        reason = reason.removeprefix("Skipped: ")
        reasons[reason] = reasons.get(reason, 0) + 1
    for reason, count in reasons.items():
        terminalreporter.write_line(f"browser tests skipped ({count}): {reason}")


@pytest.fixture
def lab(lab_server):
    """The JupyterLab server, with every kernel stopped after the test.

    Deletes the state file first, so the test only reads what its own kernel wrote.
    """
    from .ui import shutdown_kernels

    lab_server.state_file.unlink(missing_ok=True)
    try:
        yield lab_server
    finally:
        shutdown_kernels(lab_server)
