"""The documentation site: built with ``sphinx-build -W`` and opened in Chromium.

Every page is opened with the network blocked (``offline.Offline``: a request that leaves the
machine is aborted and counted; none may be, and none may fail): the widgets of the gallery and
guide pages are drawn by the site's own copy of ipywidgets' HTML manager and the widgets' bundles
(``docs/conf.py``), never by a CDN's.

The build runs the guide pages, the gallery and the quickstart notebook (myst-nb,
cached in ``docs/_build/.jupyter_cache``, which ``.ci/run``'s own docs build then
reuses).  In the built pages the API reference lists every public name and links
``RooflineWidget``, and each guide page shows its pictures: every ``<img>`` loaded
(``naturalWidth > 0``).  A screenshot of each page opened is saved in the
browser tests' artifacts directory.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import roofline_widget

from .conftest import REPO
from .offline import Offline

pytestmark = pytest.mark.browser

#: Guide and gallery pages and the least number of pictures each shows.
PAGES_WITH_PICTURES = {
    "guide/reading": 1, "guide/ceilings": 1, "guide/hierarchical": 2, "guide/compare": 2,
    "guide/ranks": 1, "gallery/thread-scaling": 1, "index": 1, "guidance": 2, "guide/sharing": 1,
}


@pytest.fixture(scope="session")
def docs_site(tmp_path_factory):
    """The site built from this checkout with warnings as errors; its html folder."""
    pytest.importorskip("sphinx")
    html = tmp_path_factory.mktemp("docs") / "html"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO),
                                                                     os.environ.get("PYTHONPATH")])))
    # serial: with -j, one process met a jupyter-cache record whose notebook another had not
    # written yet (KeyError "Notebook file does not exist for cache record")
    done = subprocess.run([sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html",
                           str(REPO / "docs"), str(html)], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=900, check=False)
    assert done.returncode == 0, f"sphinx-build -W failed:\n{done.stderr[-5000:]}"
    return html


#: Pages with live widgets (drawn offline by the site's own copy of the widget manager) and the
#: least number of points each draws in its figures.
PAGES_WITH_ROOFLINES = {
    "gallery/quickstart": 7, "gallery/thread-scaling": 2, "gallery/efficiency": 5,
    "guide/reading": 5, "guide/ceilings": 2, "guide/hierarchical": 2, "guide/compare": 2,
    "guide/cli": 5, "guide/sharing": 5,
}


def _open(page, docs_site, name: str) -> Offline:
    """Open a page of the site with the network blocked; the requests blocked and failed."""
    offline = Offline(page)
    page.goto((docs_site / f"{name}.html").as_uri())
    page.wait_for_load_state("load")
    return offline


def test_api_page_lists_every_public_name(page, docs_site, artifacts_dir):
    offline = _open(page, docs_site, "api/index")
    listed = page.eval_on_selector_all("table.autosummary a code, table.autosummary a span",
                                       "els => els.map(e => e.textContent.trim())")
    missing = [name for name in roofline_widget.__all__ if name not in listed]
    assert not missing, f"public names not on the API page: {missing}"
    link = page.get_by_role("link", name="RooflineWidget", exact=True).first
    assert link.is_visible()
    page.screenshot(path=str(artifacts_dir / "docs-api.png"), full_page=True)
    link.click()
    page.wait_for_load_state("load")
    assert "/api/generated/roofline_widget.RooflineWidget.html" in page.url
    assert page.locator("dt#roofline_widget\\.RooflineWidget").is_visible()
    assert offline.problems() == []


@pytest.mark.parametrize("name", list(PAGES_WITH_PICTURES))
def test_pages_show_their_pictures(page, docs_site, artifacts_dir, name):
    offline = _open(page, docs_site, name)
    page.wait_for_function("() => [...document.images].every(img => img.complete)")
    widths = page.eval_on_selector_all("article img", "imgs => imgs.map(img => img.naturalWidth)")
    assert len(widths) >= PAGES_WITH_PICTURES[name], f"{name}: {widths}"
    assert all(width > 0 for width in widths), f"{name}: an image did not load: {widths}"
    page.screenshot(path=str(artifacts_dir / f"docs-{name.replace('/', '-')}.png"), full_page=True)
    assert offline.problems() == []


@pytest.mark.parametrize("name", list(PAGES_WITH_ROOFLINES))
def test_pages_draw_live_rooflines_offline(page, docs_site, artifacts_dir, name):
    """Every widget on the page is drawn with the network off: roofs, labels and points."""
    offline = _open(page, docs_site, name)
    figure = page.locator(".roofline-figure").first
    figure.locator(".dot").first.wait_for(state="attached", timeout=120_000)
    page.wait_for_timeout(1000)  # the widgets lay themselves out again once all are in
    dots = page.locator(".roofline-figure .dot").count()
    assert dots >= PAGES_WITH_ROOFLINES[name], f"{name}: {dots} points drawn"
    # the roofline: a line of several vertices, and its labels
    paths = figure.locator("path.line").evaluate_all("els => els.map(e => e.getAttribute('d') || '')")
    assert any(d.count("L") >= 2 for d in paths), paths
    labels = figure.locator("text.label").evaluate_all("els => els.map(e => e.textContent)")
    assert any("GFLOP/s" in text for text in labels), labels
    figure.screenshot(path=str(artifacts_dir / f"docs-live-{name.replace('/', '-')}.png"))
    assert offline.problems() == []


def test_notes_page_lists_the_measurements(page, docs_site):
    offline = _open(page, docs_site, "notes/index")
    assert page.locator("article strong", has_text="Current figures first.").is_visible()
    links = page.eval_on_selector_all("article .toctree-wrapper a", "els => els.map(e => e.href)")
    # every top-level note of docs/ is listed, whoever added it
    notes = sorted(p.stem for p in (REPO / "docs").glob("*.md")
                   if p.stem not in ("index", "getting-started", "guidance", "changelog"))
    assert sorted(link.rsplit("/", 1)[1].removesuffix(".html") for link in links) == notes
    assert "performance" in notes
    assert offline.problems() == []
