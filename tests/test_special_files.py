"""Paths that are not files, at every entry point: refused with the package's error, never a hang.

A FIFO used to hang ``points_dataframe``, ``RooflineWidget``, ``plot_roofline``,
``read_likwid(..., format="scope-h5")``, ``machine_roofline``, ``View.load``
and ``RooflineWidget(view=)`` (the HDF5 detection opened the path);
``/dev/zero`` made ``machine_roofline`` and ``View.load`` read until
``MemoryError``; a directory gave ``IsADirectoryError``, a symbolic link
loop a bare ``OSError``.  Each call here runs under an alarm, so that a
regression fails instead of hanging the test run.
"""

from __future__ import annotations

import os
import signal

import pytest
from time_limits import alarm

from roofline_widget import RooflineWidget, machine_roofline, plot_roofline, points_dataframe, read_likwid
from roofline_widget.errors import LikwidFormatError, ViewError
from roofline_widget.views import View

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGALRM"), reason="needs SIGALRM")

SAMPLE = "gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt"


@pytest.fixture(params=["fifo", "device", "directory", "symlink loop"])
def not_a_file(request, tmp_path):
    """A path that is not a regular file, and what the error says about it."""
    if request.param == "fifo":
        if not hasattr(os, "mkfifo"):
            pytest.skip("no FIFOs here")
        path = tmp_path / "results.h5"
        os.mkfifo(path)
        return path, "a FIFO, socket or device"
    if request.param == "device":
        if not os.path.exists("/dev/zero"):
            pytest.skip("no /dev/zero here")
        return "/dev/zero", "a FIFO, socket or device"
    if request.param == "directory":
        path = tmp_path / "results"
        path.mkdir()
        return path, "not a directory"
    first, second = tmp_path / "loop_a", tmp_path / "loop_b"
    first.symlink_to(second)
    second.symlink_to(first)
    return first, "symbolic links"


def _sample():
    from roofline_widget import sample_path

    return sample_path(SAMPLE)


ENTRY_POINTS = {
    "points_dataframe": lambda path: points_dataframe(path),
    "RooflineWidget": lambda path: RooflineWidget(path),
    "RooflineWidget([path])": lambda path: RooflineWidget([_sample(), path]),
    "plot_roofline": lambda path: plot_roofline(path),
    "read_likwid": lambda path: read_likwid(path),
    "read_likwid scope-h5": lambda path: read_likwid(path, format="scope-h5"),
    "machine_roofline": lambda path: machine_roofline(path),
}


@pytest.mark.parametrize("entry", list(ENTRY_POINTS))
def test_data_entry_points_refuse_what_is_no_file(entry, not_a_file):
    path, said = not_a_file
    if entry == "machine_roofline" and os.path.isdir(path):
        said = "a folder without regular files"  # a folder of logs is read; this one is empty
    with alarm(30), pytest.raises(LikwidFormatError) as info:
        ENTRY_POINTS[entry](path)
    assert str(path) in str(info.value)
    assert said in str(info.value)


def test_views_refuse_what_is_no_file(not_a_file):
    path, said = not_a_file
    with alarm(30), pytest.raises(ViewError, match=said) as info:
        View.load(path)
    assert info.value.source == os.fspath(path)
    with alarm(30), pytest.raises(ViewError, match=said):
        RooflineWidget(_sample(), view=path)
