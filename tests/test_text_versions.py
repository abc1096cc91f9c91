"""One version of a LIKWID text or CSV file per read (issue 37, the text side of test_file_versions).

The text reader opens a file three times per read (a look at its first bytes, the first pass
over it, then the pieces the parser reads: ``roofline_widget.io.stream``).  Before the fix a
file replaced (``os.replace``), appended to or rewritten in place between two of those, or
between two pieces, gave a run mixing two versions (the layout told by one, the tables of the
other; the first lines of one, the rest of the other) or the old version under a path that
names the new one.  Here the change is made by a hook in ``TextFile.chunks`` after a given
chunk of a given opening, with chunks of 1 KiB so that the bundled samples come in many
pieces; every read must give what reading the file alone gives now (the version the path
names), or the package's error naming the file.
"""

from __future__ import annotations

import os
import shutil
import warnings
from pathlib import Path

import pandas as pd
import pytest

from roofline_widget import read_likwid, sample_path
from roofline_widget.errors import LikwidFormatError
from roofline_widget.io import stream

GMG_4T = "gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt"  # regions Setup, Solve
GMG_2T = "gmgpolar_skx4s_lw50_MEM_DP_compact2t_1537x2048_give.txt"
CSV_SAMPLE = "ufpr_coffeelake_i5-7500_lw43_FLOPS_DP_4regions_1t_O.csv"  # four multMat regions
#: The openings of a UTF-8 file in one read: 1 its first bytes, 2 the first pass, 3 the pieces.
PROBE, FIRST_PASS, PIECES = 1, 2, 3
#: Where a change is made: (opening, chunks it gave before; 0: before it is opened).
DURING_THE_FIRST_PASS = (FIRST_PASS, 1)
BETWEEN_THE_PASSES = (PIECES, 0)
BETWEEN_TWO_PIECES = (PIECES, 1)
PHASES = [DURING_THE_FIRST_PASS, BETWEEN_THE_PASSES, BETWEEN_TWO_PIECES]
PHASE_IDS = ["during-first-pass", "between-passes", "between-pieces"]


def _read(path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return read_likwid(path)


def _same_run(a, b) -> None:
    pd.testing.assert_frame_equal(a.table, b.table)
    pd.testing.assert_frame_equal(a.events, b.events)
    assert (a.layout, a.cpu_name, a.regions, len(a.runs)) == (b.layout, b.cpu_name, b.regions,
                                                             len(b.runs))


@pytest.fixture
def change_during_read(monkeypatch):
    """``hook(change, opening, after)``: ``change()`` once, when the ``opening``-th opening of
    the file in the test has given ``after`` chunks (of 1 KiB); returns the openings made."""
    monkeypatch.setattr(stream, "CHUNK", 1024)
    chunks = stream.TextFile.chunks
    state = {"openings": 0, "pending": []}

    def hooked(self):
        state["openings"] += 1
        number = state["openings"]

        def maybe(given: int) -> None:
            for spec in list(state["pending"]):
                change, opening, after = spec
                if (opening, after) == (number, given) or (opening is None and given == after):
                    change()
                    if opening is not None:
                        state["pending"].remove(spec)

        maybe(0)
        for given, chunk in enumerate(chunks(self), start=1):
            yield chunk
            maybe(given)

    def hook(change, opening, after):
        state["pending"].append((change, opening, after))
        return state

    monkeypatch.setattr(stream.TextFile, "chunks", hooked)
    return hook


def _copy(name, tmp_path, as_name="job.txt"):
    return shutil.copyfile(sample_path(name), tmp_path / as_name)


def test_the_hook_sees_three_openings_of_a_utf8_file(tmp_path, change_during_read):
    path = _copy(GMG_4T, tmp_path)
    state = change_during_read(lambda: None, 99, 0)
    _read(path)
    assert state["openings"] == PIECES  # the phases below are where they say


@pytest.mark.parametrize("phase", PHASES, ids=PHASE_IDS)
def test_a_file_replaced_during_a_read_gives_the_version_its_path_names(tmp_path, phase,
                                                                         change_during_read):
    # before: the layout of the text file, the tables of the CSV (an error, or no regions), or
    # the whole old file under a path that names the new one
    path = _copy(GMG_4T, tmp_path)
    new = _copy(CSV_SAMPLE, tmp_path, "job.txt.part")

    change_during_read(lambda: os.replace(new, path), *phase)  # saved safely
    run = _read(path)
    assert run.regions == ["multMatVet_NAO_OTIM", "multMatVet_COM_OTIM", "multMatMat_NAO_OTIM",
                           "multMatMat_COM_OTIM"]  # the CSV's four regions, all of them
    _same_run(run, _read(path))


@pytest.mark.parametrize("phase", PHASES, ids=PHASE_IDS)
def test_a_file_appended_to_during_a_read_gives_one_version(tmp_path, phase, change_during_read):
    # a job log that gets likwid-perfctr -O output appended: the file is CSV from then on (the
    # CSV marker decides, read alone); before, the text tables of the first version were read
    # with the CSV lines ignored
    path = _copy(GMG_4T, tmp_path)
    appended = Path(sample_path(CSV_SAMPLE)).read_bytes()

    def append():
        with open(path, "ab") as handle:
            handle.write(appended)

    change_during_read(append, *phase)
    run = _read(path)
    assert run.layout == "perfctr-csv"
    assert "Setup" not in run.regions
    _same_run(run, _read(path))


@pytest.mark.parametrize("phase", PHASES, ids=PHASE_IDS)
def test_a_file_rewritten_in_place_during_a_read_gives_one_version(tmp_path, phase,
                                                                    change_during_read):
    path = _copy(GMG_4T, tmp_path)
    new_bytes = Path(sample_path(GMG_2T)).read_bytes()  # another run of the same code, 2 threads

    def rewrite():
        with open(path, "r+b") as handle:
            handle.write(new_bytes)
            handle.truncate()

    change_during_read(rewrite, *phase)
    run = _read(path)
    assert run.table["thread"].nunique() == 2  # the 2-thread run (the old one has 4)
    _same_run(run, _read(path))


def test_a_same_size_rewrite_with_its_mtime_put_back_is_seen_by_the_passes_hashes(
        tmp_path, change_during_read):
    # What no stat field shows (a rewrite within the file system's timestamp tick): the two
    # regions renamed, same size, the modification time put back, between two pieces after the
    # first name was read.  Before: regions ['Setup', 'Solvf'], a mix of the two versions.
    path = _copy(GMG_4T, tmp_path)
    old = path.read_bytes()
    new = old.replace(b"Region Setup", b"Region Setuq").replace(b"Region Solve", b"Region Solvf")
    assert len(new) == len(old)
    assert old.index(b"Setup") < 1024 < old.index(b"Solve")  # one name read, one not, at the change
    status = os.stat(path)

    def rewrite_and_put_the_time_back():
        with open(path, "r+b") as handle:
            handle.write(new)
        os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns))

    change_during_read(rewrite_and_put_the_time_back, *BETWEEN_TWO_PIECES)
    run = _read(path)
    assert run.regions == ["Setuq", "Solvf"]
    _same_run(run, _read(path))


def test_a_file_that_keeps_changing_is_refused_naming_it_and_what_changed(tmp_path,
                                                                           change_during_read):
    # a job still writing its log: a line appended during every pass of every read
    path = _copy(GMG_4T, tmp_path)

    def append_a_line():
        with open(path, "ab") as handle:
            handle.write(b"still running\n")

    change_during_read(append_a_line, None, 1)  # after the first chunk of every opening
    with pytest.raises(LikwidFormatError, match=r"job\.txt: expected a file that stays the same "
                       r"while it is read, found 'it changed during each of 2 reads: its size "
                       r"went from [\d,]+ to [\d,]+ bytes'"):
        _read(path)


def test_a_file_object_is_read_once_and_a_string_needs_no_pin(tmp_path):
    path = _copy(GMG_4T, tmp_path)
    with open(path, "rb") as handle:
        from_object = _read(handle)
    assert from_object.regions == ["Setup", "Solve"]
    assert stream.TextFile(path).identity.size == os.stat(path).st_size
    assert stream.TextFile("job.txt", text="+--+\n").identity is None


def test_a_read_on_an_executor_is_one_version_too(tmp_path, change_during_read):
    # each worker reads its file through the same pinned read (here a thread of this process,
    # so that the hook sees it)
    from concurrent.futures import ThreadPoolExecutor

    path = _copy(GMG_4T, tmp_path)
    new = _copy(CSV_SAMPLE, tmp_path, "job.txt.part")
    change_during_read(lambda: os.replace(new, path), *BETWEEN_TWO_PIECES)
    with ThreadPoolExecutor(1) as executor, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run = read_likwid([path], executor=executor)
    assert run.layout == "perfctr-csv"
    _same_run(run, _read(path))
