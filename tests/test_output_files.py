"""Output files of ``plot_roofline``: every path checked first, each file written atomically.

``plot_roofline(run, filepath="f.png", data_filepath="/some/dir")``
wrote the PNG, then raised ``IsADirectoryError``.  Expected numbers come from the
pmgpu sample's MEM_DP tables (lines 37/38, 71/72, 105/106, 139/140, 173/174).
"""

from __future__ import annotations

import os
import struct
import sys

import pandas as pd
import pytest

import roofline_widget
from roofline_widget import plot_roofline, sample_path
from roofline_widget.errors import OutputPathError
from roofline_widget.static import exports
from roofline_widget.static.output_files import (
    DATA_SUFFIXES,
    check_targets,
    data_target,
    image_formats,
    image_target,
    write_atomically,
)

PMGPU = sample_path("pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
#: (region, DP [MFLOP/s], Memory bandwidth [MBytes/s]) as printed in the sample's MEM_DP tables.
SAMPLE_ROWS = [("<init_datastructures>", 6.864286e-06, 14905.7212),
               ("<function_d>", 1616.3005, 28580.9575),
               ("<function_b>", 759.4276, 9270.3090),
               ("<function_a>", 2134.1472, 8554.1612),
               ("<function_c>", 495.4019, 8775.4462)]


def _plot(**keywords):
    keywords.setdefault("verbose", False)
    return plot_roofline(PMGPU, **keywords)


def _listing(directory) -> list[str]:
    return sorted(p.name for p in directory.iterdir())


@pytest.fixture
def unwritable_dir(tmp_path):
    """A directory no file can be created in (root ignores modes: then sysfs, which refuses all)."""
    if os.geteuid() != 0:
        locked = tmp_path / "locked"
        locked.mkdir()
        locked.chmod(0o500)
        yield locked
        locked.chmod(0o700)
    elif sys.platform.startswith("linux") and os.path.isdir("/sys/kernel"):
        yield type(tmp_path)("/sys")
    else:  # pragma: no cover - root on a system without sysfs
        pytest.skip("no directory is unwritable for root here")


# --------------------------------------------------------------------------
# checked before anything is written
# --------------------------------------------------------------------------
def test_data_path_a_directory_writes_nothing_not_even_the_png(tmp_path):
    png = tmp_path / "f.png"
    with pytest.raises(OutputPathError) as caught:
        _plot(filepath=png, data_filepath=tmp_path)
    assert isinstance(caught.value, ValueError)
    assert caught.value.problems == [(str(tmp_path), "data", "is a directory")]
    assert str(tmp_path) in str(caught.value)
    assert "is a directory" in str(caught.value)
    assert _listing(tmp_path) == []  # no PNG, no temporary file


def test_every_bad_path_is_named_at_once(tmp_path, unwritable_dir):
    image = unwritable_dir / "f.png"
    data = tmp_path / "points.xlsx"
    with pytest.raises(OutputPathError) as caught:
        _plot(filepath=image, data_filepath=data, data_format="csv")
    problems = {(path, kind): reason for path, kind, reason in caught.value.problems}
    assert set(problems) == {(str(image), "image"), (str(data), "data")}
    assert problems[(str(image), "image")].startswith(
        f"directory {str(unwritable_dir)!r} is not writable")
    assert problems[(str(data), "data")] == (
        "the suffix '.xlsx' for data format 'csv', which is written as .csv")
    assert str(caught.value).startswith("cannot write 2 output file(s); nothing was written")
    assert _listing(tmp_path) == []
    assert not image.exists()


def test_a_missing_directory_is_refused_by_name_never_created(tmp_path, unwritable_dir):
    """``filepath="/nonexistent/dir/x.png"`` once created ``/nonexistent/dir/``."""
    image = tmp_path / "nonexistent" / "dir" / "x.png"
    data = unwritable_dir / "new" / "sub" / "points.csv"
    with pytest.raises(OutputPathError) as caught:
        _plot(filepath=image, data_filepath=data)
    problems = {kind: reason for _path, kind, reason in caught.value.problems}
    assert problems["image"] == (
        f"its directory {str(image.parent)!r} does not exist ({str(tmp_path / 'nonexistent')!r} "
        "is missing; create it first: no directory is created for you)")
    assert problems["data"].startswith(f"its directory {str(data.parent)!r} does not exist "
                                       f"({str(unwritable_dir / 'new')!r} is missing")
    assert _listing(tmp_path) == []  # nothing written, no directory made
    assert not (unwritable_dir / "new").exists()
    # once the user makes the directory, the same call writes there
    image.parent.mkdir(parents=True)
    _plot(filepath=image)
    assert _listing(image.parent) == ["x.png"]


def test_unknown_image_suffix_and_suffix_less_paths(tmp_path):
    with pytest.raises(OutputPathError) as caught:
        _plot(filepath=tmp_path / "f.docx", data_filepath=tmp_path / "points",
              data_format="json")
    reasons = [reason for _, _, reason in caught.value.problems]
    assert reasons[0].startswith("cannot write a docx image; matplotlib writes ")
    assert ".png" in reasons[0]
    assert ".svg" in reasons[0]
    assert reasons[1] == "no suffix for data format 'json', which is written as .json"
    assert _listing(tmp_path) == []


def test_a_file_in_place_of_a_directory_and_one_path_twice(tmp_path):
    blocker = tmp_path / "not_a_dir"
    blocker.write_text("x")
    with pytest.raises(OutputPathError, match="not_a_dir' is not a directory"):
        _plot(filepath=blocker / "f.png")
    same = tmp_path / "same.json"
    with pytest.raises(OutputPathError) as caught:
        check_targets([data_target(same, "json"), image_target(same)])
    assert (str(same), "image", "the same path as the data file") in caught.value.problems
    assert _listing(tmp_path) == ["not_a_dir"]


def test_missing_parquet_writer_is_an_output_path_error(tmp_path, monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name in ("pyarrow", "fastparquet")
                        else real(name, *a))
    with pytest.raises(OutputPathError, match="needs pyarrow or fastparquet"):
        _plot(filepath=tmp_path / "f.png", data_filepath=tmp_path / "p.parquet",
              data_format="parquet")
    assert _listing(tmp_path) == []


def test_image_formats_are_matplotlibs():
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    formats = image_formats()
    assert {"png", "svg", "pdf", "eps", "ps"} <= set(formats)
    assert set(formats) <= set(FigureCanvasAgg.get_supported_filetypes())
    assert set(DATA_SUFFIXES) == {"csv", "json", "parquet"}
    assert roofline_widget.OutputPathError is OutputPathError


# --------------------------------------------------------------------------
# atomic writes
# --------------------------------------------------------------------------
def _failing_to_csv(monkeypatch):
    """DataFrame.to_csv that writes part of the file, then fails (a full disk)."""
    def half_written(self, path, **keywords):
        with open(path, "w") as handle:
            handle.write("file,region,rank\nhalf")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(pd.DataFrame, "to_csv", half_written)


def test_a_writer_failing_midway_leaves_earlier_files_intact_and_no_temp_file(tmp_path,
                                                                                monkeypatch):
    png, csv = tmp_path / "f.png", tmp_path / "points.csv"
    _plot(filepath=png, data_filepath=csv)
    before = {p.name: p.read_bytes() for p in (png, csv)}
    _failing_to_csv(monkeypatch)
    with pytest.raises(OSError, match="No space left"):
        _plot(filepath=png, data_filepath=csv, peak_flops=100.0, peak_bandwidth=50.0)
    # the new PNG was written (to a temporary file) but is not moved in: both files are
    # the complete ones of the first call, and nothing else is in the directory
    assert _listing(tmp_path) == ["f.png", "points.csv"]
    assert {p.name: p.read_bytes() for p in (png, csv)} == before
    assert pd.read_csv(csv)["region"].tolist() == [r for r, _, _ in SAMPLE_ROWS]


@pytest.mark.parametrize("name", ["f.png", "f.svg"])
def test_a_failing_image_writer_creates_nothing(tmp_path, monkeypatch, name):
    from matplotlib.figure import Figure
    from PIL import Image

    def broken(self, path, *args, **keywords):
        with open(path, "wb") as handle:
            handle.write(PNG_MAGIC)
        raise RuntimeError("renderer crashed")

    def broken_encoder(*args, **keywords):  # the file is open: a PNG cut from the canvas
        raise RuntimeError("renderer crashed")

    monkeypatch.setattr(Figure, "savefig", broken)
    monkeypatch.setattr(Image.Image, "save", broken)
    monkeypatch.setattr(exports, "png_bytes", broken_encoder)  # (static.exports)
    with pytest.raises(RuntimeError, match="renderer crashed"):
        _plot(filepath=tmp_path / name, data_filepath=tmp_path / "points.csv")
    assert _listing(tmp_path) == []  # no file, no temporary file


def test_write_atomically_moves_only_after_every_writer_succeeded(tmp_path):
    first, second = data_target(tmp_path / "a.json", "json"), data_target(tmp_path / "b.json", "json")
    seen = []

    def write_first(path):
        with open(path, "w") as handle:
            handle.write("{}")
        seen.append(sorted(os.listdir(tmp_path)))

    def write_second(path):
        assert not first.path.exists()  # not moved in while a later file is still written
        raise ValueError("bad payload")

    with pytest.raises(ValueError, match="bad payload"):
        write_atomically([(first, write_first), (second, write_second)])
    assert len(seen[0]) == 1
    assert seen[0][0].startswith(".a.json.")
    assert seen[0][0].endswith(".part")
    assert _listing(tmp_path) == []
    write_atomically([(first, write_first)])
    assert first.path.read_text() == "{}"
    assert first.path.stat().st_mode & 0o777 == 0o666 & ~_umask()


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


# --------------------------------------------------------------------------
# round trip of what was written
# --------------------------------------------------------------------------
def test_written_png_and_csv_read_back(tmp_path):
    png, csv = tmp_path / "out" / "f.png", tmp_path / "out" / "points.csv"
    png.parent.mkdir()
    payload = _plot(filepath=png, data_filepath=csv)
    head = png.read_bytes()[:24]
    assert head[:8] == PNG_MAGIC
    assert head[12:16] == b"IHDR"
    width, height = struct.unpack(">II", head[16:24])
    assert width > 500
    assert height > 350
    frame = pd.read_csv(csv)
    assert frame["region"].tolist() == [r for r, _, _ in SAMPLE_ROWS]
    expected_gflops = [flops / 1000 for _, flops, _ in SAMPLE_ROWS]
    expected_gbs = [bw / 1000 for _, _, bw in SAMPLE_ROWS]
    assert frame["performance_gflops"].tolist() == pytest.approx(expected_gflops, rel=1e-12)
    assert frame["bandwidth_gbs"].tolist() == pytest.approx(expected_gbs, rel=1e-12)
    assert frame["arithmetic_intensity_flops_per_byte"].tolist() == pytest.approx(
        [f / b for f, b in zip(expected_gflops, expected_gbs)], rel=1e-12)
    # the empirical peak is <function_a>'s 2134.1472 MFLOP/s: 100 % efficiency there
    assert frame.loc[3, "efficiency_percent"] == pytest.approx(100.0)
    assert payload["peak_flops_gflops"] == pytest.approx(2.1341472)
    assert _listing(png.parent) == ["f.png", "points.csv"]


def test_json_and_parquet_round_trip(tmp_path):
    import json

    _plot(data_filepath=tmp_path / "p.json", data_format="json")
    document = json.loads((tmp_path / "p.json").read_text())
    assert [p["region"] for p in document["points"]] == [r for r, _, _ in SAMPLE_ROWS]
    assert document["points"][1]["bandwidth_gbs"] == pytest.approx(28.5809575)
    pytest.importorskip("pyarrow")
    _plot(data_filepath=tmp_path / "p.parquet", data_format="parquet")
    frame = pd.read_parquet(tmp_path / "p.parquet")
    assert frame["performance_gflops"].tolist() == pytest.approx(
        [flops / 1000 for _, flops, _ in SAMPLE_ROWS], rel=1e-12)
    assert _listing(tmp_path) == ["p.json", "p.parquet"]


def test_a_saved_view_goes_through_the_same_checks(tmp_path, monkeypatch):
    from roofline_widget import View

    view = View(flops_metric="DP [MFLOP/s]", peak_flops=2048.0)
    with pytest.raises(OutputPathError, match="is a directory"):
        view.save(tmp_path)
    path = view.save(tmp_path / "my.view")  # a view may have any suffix
    assert View.load(path) == view
    before = path.read_bytes()

    def full_disk(self, text, **keywords):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(type(path), "write_text", full_disk)
    with pytest.raises(OSError, match="No space left"):
        View(peak_flops=1.0).save(path)
    assert path.read_bytes() == before
    assert _listing(tmp_path) == ["my.view"]
