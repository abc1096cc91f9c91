"""The shared HTML page: the build step's downloads, the inlined scripts, the page and its widgets.

The page in a real browser, offline: tests/browser/test_shared_html.py.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import io
import json
import re
import tarfile
from pathlib import Path

import pytest

from roofline_widget import RooflineWidget, plot_roofline, sample_path
from roofline_widget.cli import main as cli_main
from roofline_widget.errors import HtmlScriptsError, OutputPathError
from roofline_widget.static import html_scripts, html_view
from roofline_widget.static.html_marks import ceiling_tooltip_texts, point_groups
from roofline_widget.static.html_page import STATE_TYPE, VIEW_TYPE

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = "pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt"
_spec = importlib.util.spec_from_file_location("hatch_build", ROOT / "hatch_build.py")
hatch_build = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hatch_build)


@pytest.fixture(scope="module")
def pmgpu_widget():
    return RooflineWidget(sample_path(SAMPLE), peak_flops=2048.0, peak_bandwidth=204.8)


def _state(text: str) -> dict:
    match = re.search(rf'<script type="{re.escape(STATE_TYPE)}">(.*?)</script>', text, re.S)
    return json.loads(match.group(1))["state"]


def _models(state: dict, name: str) -> list[dict]:
    return [entry["state"] for entry in state.values() if entry["model_name"] == name]


# ---------------------------------------------------------------- the build step
def _tarball(files: dict) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _integrity(data: bytes) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


class _Response(io.BytesIO):
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_the_build_step_checks_unpacks_and_then_skips(tmp_path, monkeypatch):
    tarball = _tarball({"package/dist/x.js": b"define([],1)", "package/evil": b"no"})
    spec = hatch_build.NpmFiles("@scope/pkg", "1.2.3", _integrity(tarball),
                                {"package/dist/x.js": "x.js"})
    assert spec.url == "https://registry.npmjs.org/@scope/pkg/-/pkg-1.2.3.tgz"
    calls = []
    monkeypatch.setattr(hatch_build, "PINNED", (spec,))
    monkeypatch.setattr(hatch_build.urllib.request, "urlopen",
                        lambda request, timeout: calls.append(request.full_url) or _Response(tarball))
    written = hatch_build.fetch(tmp_path, log=lambda _text: None)
    assert written == ["x.js", hatch_build.STAMP]
    assert (tmp_path / "x.js").read_bytes() == b"define([],1)"
    assert not (tmp_path / "evil").exists()  # only the named members
    assert hatch_build.fetch(tmp_path, log=lambda _text: None) == []  # up to date: no download
    assert len(calls) == 1
    (tmp_path / "x.js").write_text("changed")  # a file changed by hand is fetched again
    assert hatch_build.fetch(tmp_path, log=lambda _text: None) == ["x.js", hatch_build.STAMP]


def test_the_build_step_refuses_a_tarball_that_fails_its_pin(tmp_path, monkeypatch):
    spec = hatch_build.NpmFiles("requirejs", "2.3.8", _integrity(b"the real one"), {"a": "a"})
    monkeypatch.setattr(hatch_build, "PINNED", (spec,))
    monkeypatch.setattr(hatch_build.urllib.request, "urlopen",
                        lambda request, timeout: _Response(b"something else"))
    with pytest.raises(hatch_build.VendorError, match="does not match its pinned sha512"):
        hatch_build.fetch(tmp_path, log=lambda _text: None)
    assert not (tmp_path / "a").exists()


def test_the_checkout_has_the_pinned_files():
    # pip install -e . ran the build step; .gitignore keeps its files out of git
    assert hatch_build.up_to_date(), "run: python hatch_build.py"
    ignored = (ROOT / ".gitignore").read_text()
    assert all(f"roofline_widget/static/vendor/{pattern}" in ignored
               for pattern in ("*.js", "*.woff2", "downloaded.json"))


# ---------------------------------------------------------------- the scripts
def test_an_anonymous_bundle_gets_its_name():
    bqplot = html_scripts.widget_bundle("bqplot")
    assert bqplot.count('define("bqplot",["@jupyter-widgets/base"]') == 1
    assert not re.search(r"^//# sourceMappingURL", bqplot, re.M)  # no request for a .map file
    with pytest.raises(ValueError, match="found 2"):
        html_scripts.named_module("define([],1)\ndefine([],2)", "x")


def test_the_manager_keeps_its_modules_but_ipywidgets_7s():
    script = html_scripts.manager_script()
    named = re.findall(r'^define\("([^"]+)"', script, re.M)
    assert named == ["@jupyter-widgets/base", "@jupyter-widgets/controls",
                     "@jupyter-widgets/html-manager", "@jupyter-widgets/html-manager/dist/libembed-amd"]
    assert script.startswith("/** vim: et:ts=4:sw=4:sts=4\n * @license RequireJS 2.3.8")
    assert "libembed-amd\"],(function(e){" in script.replace("\n", "")  # the manager's start


def test_a_script_element_cannot_be_ended_by_its_text():
    element = html_scripts.script_element('x = "</script><script>alert(1)</script>"; /* <!-- */')
    assert element.count("</script>") == 1
    assert element.endswith("</script>")
    assert "\\u003c/script>\\u003cscript>" in element
    assert "\\u003c!--" in element


def test_a_missing_download_says_how_to_get_it(tmp_path, monkeypatch, pmgpu_widget):
    monkeypatch.setattr(html_scripts, "VENDOR", tmp_path)
    html_scripts.manager_script.cache_clear()
    html_scripts.font_css.cache_clear()
    try:
        with pytest.raises(HtmlScriptsError, match=r"python hatch_build\.py"):
            html_scripts.manager_script()
        with pytest.raises(OutputPathError, match=r"require\.js, which is missing"):
            pmgpu_widget.save_html(tmp_path / "x.html")
        assert not list(tmp_path.iterdir())  # nothing written
    finally:
        html_scripts.manager_script.cache_clear()
        html_scripts.font_css.cache_clear()


# ---------------------------------------------------------------- the page
def test_the_page_inlines_everything(tmp_path, pmgpu_widget):
    path = pmgpu_widget.save_html(tmp_path / "pmgpu.html")
    text = path.read_text(encoding="utf-8")
    markup = re.sub(r"<script\b[^>]*>.*?</script>", "", text, flags=re.S)  # the page's own tags
    assert text.count("<script") - text.count("<script>") == 2  # the state and the view's types
    assert not re.search(r"\b(src|href)=", markup, re.I)
    assert re.findall(r"url\(([a-z]+):", markup) == ["data"]  # the font
    assert re.findall(r'define\("(bq[a-z-]+)"', text) == ["bqscales", "bqplot"]  # no WebGL bundle
    assert "@font-face" in text
    assert "data:font/woff2;base64," in text
    state = _state(text)
    view = json.loads(re.search(rf'<script type="{re.escape(VIEW_TYPE)}">(.*?)</script>', text,
                                re.S).group(1))
    assert "roofline-shared" in state[view["model_id"]]["state"]["_dom_classes"]
    # five regions, five SVG marks, each with its points' texts; five checkboxes linked to them
    points = [m for m in _models(state, "ScatterModel") if m.get("names")]
    assert sorted(m["names"][0].split("\n")[0] for m in points) == [
        "<function_a>", "<function_b>", "<function_c>", "<function_d>", "<init_datastructures>"]
    boxes = _models(state, "CheckboxModel")
    assert sorted(b["description"].rsplit("</span> ", 1)[1] for b in boxes) == [
        "&lt;function_a&gt;", "&lt;function_b&gt;", "&lt;function_c&gt;", "&lt;function_d&gt;",
        "&lt;init_datastructures&gt;"]
    assert len(_models(state, "DirectionalLinkModel")) == 5
    # function_a: 2.134 GFLOP/s at 0.2495 FLOP/byte against 204.8 GB/s: 2.134 / (0.2495 * 204.8)
    # = 4.18 % of the bandwidth roof
    text_a = next(m["names"][0] for m in points if m["names"][0].startswith("<function_a>"))
    assert text_a.split("\n")[:2] == ["<function_a>", "4.18 % of Peak bandwidth (memory bound)"]
    # then its guidance, wrapped (tests/test_html_guidance.py): 8.554 GB/s / 204.8 = 4.2 %
    assert " ".join(text_a.split("\n")[2:]).startswith(
        "MEM access below its roof: memory bound at 4.2 % of the Peak bandwidth roof (204.8 GB/s)")
    # the figure's own hover toolbar would make its pan-zoom in the browser: off; the page's
    # toolbar holds a pan-zoom made here
    assert [m["display_toolbar"] for m in _models(state, "FigureModel")] == [False]
    (toolbar,) = _models(state, "ToolbarModel")
    assert toolbar["_panzoom"].startswith("IPY_MODEL_")
    # no kernel: no kernel-side tooltip widget
    assert not [m for m in _models(state, "HTMLModel") if "roofline-tooltip" in m.get("_dom_classes", [])]
    assert not list(tmp_path.glob(".*.part"))


def test_many_points_are_webgl_without_texts(tmp_path, monkeypatch, pmgpu_widget):
    monkeypatch.setattr(html_view, "HTML_SVG_MAX_POINTS", 4)
    text = pmgpu_widget.save_html(tmp_path / "gl.html").read_text(encoding="utf-8")
    assert 'define("bqplot-gl"' in text
    state = _state(text)
    gl = _models(state, "ScatterGLModel")
    assert len(gl) == 5
    assert not any(m.get("names") for m in gl)
    # float32 coordinates as base64 buffers, colour codes as uint8
    assert {m["x"]["dtype"] for m in gl} == {"float32"}
    assert {m["color"]["dtype"] for m in gl} == {"uint8"}


def test_ranks_get_one_slot_each_in_every_group():
    import pandas as pd

    points = pd.DataFrame({"file": ["f"] * 5, "region": ["a", "a", "b", "b", "b"],
                           "rank": [0, 2, 0, 1, 2]})
    groups = point_groups(points, True, [0, 1, 2])
    assert [(g.region, g.rows.tolist()) for g in groups] == [("a", [0, -1, 1]), ("b", [2, 3, 4])]
    assert [g.rows.tolist() for g in point_groups(points, False, None)] == [[0, 1, 2, 3, 4]]


def test_ceiling_tooltips_name_where_the_number_came_from(pmgpu_widget):
    texts = ceiling_tooltip_texts(pmgpu_widget.roofline, ["Peak 2048 GFLOP/s", "Something else"])
    assert texts[0].startswith("Peak 2048 GFLOP/s\n")
    assert "user" in texts[0]
    assert texts[1] == "Something else"


def test_a_wrong_suffix_or_a_missing_directory_is_refused(tmp_path, pmgpu_widget):
    with pytest.raises(OutputPathError, match=r"not \.html or \.htm"):
        pmgpu_widget.save_html(tmp_path / "x.png")
    with pytest.raises(OutputPathError, match="does not exist"):
        pmgpu_widget.save_html(tmp_path / "missing" / "x.html")


def test_plot_roofline_and_the_command_line_write_pages(tmp_path, capsys):
    payload = plot_roofline(sample_path(SAMPLE), filepath=tmp_path / "p.html", backend="bqplot",
                            include=["<function_a", "<function_b"], verbose=False)
    assert payload["widget"].include == "(?:<function_a)|(?:<function_b)"
    assert len(payload["points"]) == 2
    assert (tmp_path / "p.html").stat().st_size > 1_000_000
    assert cli_main(["plot", sample_path(SAMPLE), "-o", str(tmp_path / "c.html"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["image"].endswith("c.html")
    assert out["points"] == 5
    assert 'define("bqplot"' in (tmp_path / "c.html").read_text(encoding="utf-8")


def test_the_ceilings_lines_carry_their_provenance(tmp_path):
    import warnings

    from roofline_widget import CeilingWarning, machine_roofline

    logs = sorted(Path(sample_path("SOURCES.md")).parent.glob("machine_milan_epyc7763_16c/*.log"))
    milan = machine_roofline(logs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CeilingWarning)  # a Xeon's run under an EPYC's ceilings
        widget = RooflineWidget(sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt"),
                                ceilings=[*milan.compute, *milan.bandwidth])
    state = _state(widget.save_html(tmp_path / "milan.html").read_text(encoding="utf-8"))
    labels = [label for m in _models(state, "LinesModel") for label in m.get("labels", [])]
    l2 = next(label for label in labels if label.startswith("L2 771.7 GB/s\n"))
    assert "likwid-bench load, 16 threads" in l2  # where the number came from, on hover
    tooltips = _models(state, "TooltipModel")
    assert {"fields": ["name"], "show_labels": False}.items() <= next(
        t for t in tooltips if t.get("fields") == ["name"]).items()


def test_a_point_beyond_the_hardware_is_hollow_on_the_page():
    """Sample 23's host f0702 (rank 61's wrapped counter, tests/test_thread_plausibility.py) is
    drawn hollow as in the widget: its slot transparent in the points' mark (its hover text kept),
    its outline in a mark of its own under it, the other hosts parked there."""
    import warnings

    import bqplot as bq
    import numpy as np
    from wild_samples import WRAPPED_RANK

    from roofline_widget.static.html_marks import PARKED

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        widget = RooflineWidget(WRAPPED_RANK)
    flagged = widget.figure.scene.points.flagged
    assert flagged.tolist() == [True, False, False]  # f0702, f0703, f0704
    view = html_view.shared_view(widget)
    (figure,) = [child for child in view.children if isinstance(child, bq.Figure)]
    scatters = [m for m in figure.marks if isinstance(m, bq.Scatter) and len(m.x) == 3]
    hollow, points = scatters  # the outline under the points
    assert not hollow.fill
    assert hollow.interactions == {}
    assert np.asarray(hollow.x)[0] == np.float32(widget.figure.scene.points.x[0])
    assert (np.asarray(hollow.x)[1:] == PARKED).all()
    assert list(points.opacities) == [0.0, 1.0, 1.0]
    assert points.names[0].startswith("f0702\nf0702 (ranks 0-71)")  # named by its host
    assert points.interactions == {"hover": "tooltip"}


def test_a_sweeps_colour_bar_is_on_the_page_and_nothing_else_has_one(tmp_path, pmgpu_widget):
    from wild_samples import LULESH_SIZES

    # the LULESH sweep: seven problem sizes 30^3 ... 350^3 (the runs' "size" key), shaded light to dark
    sweep = RooflineWidget(LULESH_SIZES)
    state = _state(sweep.save_html(tmp_path / "sweep.html").read_text(encoding="utf-8"))
    keys = [m["value"] for m in _models(state, "HTMLModel") if "roofline-sweep-key" in m["value"]]
    assert len(keys) == 1
    assert "shade: size 30^3" in keys[0]
    assert keys[0].endswith("350^3</span>")
    assert "linear-gradient(to right, #e3e3e3" in keys[0]
    # no sweep drawn: no key
    state = _state(pmgpu_widget.save_html(tmp_path / "pmgpu.html").read_text(encoding="utf-8"))
    assert not [m for m in _models(state, "HTMLModel") if "roofline-sweep-key" in m["value"]]
