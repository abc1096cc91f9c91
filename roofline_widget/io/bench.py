"""likwid-bench results as measured roofline ceilings.

likwid-bench prints one result block per benchmark run::

    LIKWID MICRO BENCHMARK
    Test: triad_avx
    ----------------------------------------------------------------------
    Using 1 work groups
    Using 3 threads
    ...
    Time:                   5.733051e+00 sec
    Number of Flops:        3999998976
    MFlops/s:               697.71
    Data volume (Byte):     63999983616
    MByte/s:                11163.34
    ...

Result lines are ``<key>:<tabs><value>``.  The output may be wrapped by
likwid-perfctr, mixed with other output, or hold several benchmarks; each
``LIKWID MICRO BENCHMARK`` banner starts one result.  ``MByte/s`` and
``MFlops/s`` are decimal (1e6), so GB/s = MByte/s / 1000.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field

from roofline_widget.errors import LikwidFormatError, MachineError
from roofline_widget.io.cells import cell_to_float
from roofline_widget.io.likwid_text import cpu_header
from roofline_widget.io.opener import PathOrBuffer, open_text
from roofline_widget.io.parsed import warn_passed_over

__all__ = ["BenchResult", "found_results", "kernel_precision", "parse_bench", "read_likwid_bench"]

_BANNER = "LIKWID MICRO BENCHMARK"
_TEST = re.compile(r"^Test:\s*(\S+)\s*$")
_USING = re.compile(r"^Using (\d+) (work groups|threads)\s*$", re.ASCII)
_RESULT = re.compile(r"^([^\t:][^\t]*?):\t+(\S.*?)\s*$")
_HLINE = re.compile(r"^-{20,}\s*$")


def kernel_precision(kernel: str) -> str:
    """``"SP"`` for likwid-bench kernels ending in / containing ``_sp``, else ``"DP"``."""
    return "SP" if re.search(r"(?:^|_)sp(?:_|$)", kernel) else "DP"


@dataclass(frozen=True)
class BenchResult:
    """One likwid-bench run.

    Attributes
    ----------
    kernel : str
        The benchmark (``triad_avx``, ``stream_mem_avx_fma``, ``peakflops``).
    threads : int
        Total number of threads (``Using 3 threads``).
    work_groups : int
        Number of work groups (``-w`` options).
    gflops : float
        ``MFlops/s`` / 1000.
    gbs : float
        ``MByte/s`` / 1000 (decimal GB/s).
    time_s : float
        ``Time`` in seconds (NaN if not printed).
    data_volume_bytes : float
        ``Data volume (Byte)`` (NaN if not printed).
    flops : float
        ``Number of Flops`` (NaN if not printed).
    source : str
        The file it was read from.
    line : int
        1-based line of the ``Test:`` line.
    values : dict
        Every ``key: value`` result line as printed.
    cpu : dict
        ``cpu_name``, ``cpu_type``, ``cpu_clock`` of the file's LIKWID header
        (:func:`read_likwid_bench`; empty where none is printed).
    """

    kernel: str
    threads: int
    work_groups: int
    gflops: float
    gbs: float
    time_s: float
    data_volume_bytes: float
    flops: float
    source: str
    line: int
    values: dict = field(default_factory=dict, compare=False, repr=False)
    cpu: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def provenance(self) -> str:
        """``"likwid-bench triad_avx, 3 threads"``."""
        unit = "thread" if self.threads == 1 else "threads"
        return f"likwid-bench {self.kernel}, {self.threads} {unit}"

    def _provenance(self) -> dict:
        """Where the result is, as a roof's provenance (as ``machine_roofline``'s keys)."""
        size = self.values.get("Size per thread", "").split()[:1]
        return {"file": self.source, "line": self.line, "kernel": self.kernel,
                "threads": self.threads, "work_groups": self.work_groups, "repetitions": 1,
                "working_set_per_thread_bytes": float(size[0]) if size and size[0].isdigit()
                else None, "benchmark_gflops": self.gflops, "benchmark_gbs": self.gbs,
                **self.cpu}

    def compute_roof(self, name: str | None = None):
        """This result as a CPU :class:`~roofline_widget.roofs.roofline.ComputeRoof` (the kernel's precision).

        Parameters
        ----------
        name : str, optional
            Label of the roof (default: the kernel name).

        Raises
        ------
        MachineError
            (a ``ValueError``) If the kernel performed no floating-point
            operations (``load``, ``copy``, ... print ``MFlops/s: 0.00``).
        """
        from roofline_widget.roofs.roofline import ComputeRoof

        if not self.gflops > 0:
            raise MachineError(f"likwid-bench {self.kernel} (line {self.line} of {self.source}) "
                               f"reports {self.gflops * 1000:g} MFlops/s: it is no compute "
                               "ceiling")
        precision = kernel_precision(self.kernel)
        return ComputeRoof(name or self.kernel, self.gflops, self.provenance, device="cpu",
                           precision=precision,
                           provenance={**self._provenance(), "precision": precision})

    def bandwidth_roof(self, name: str | None = None, level: str | None = None):
        """This result as a :class:`~roofline_widget.roofs.roofline.BandwidthRoof` of the CPU.

        Parameters
        ----------
        name : str, optional
            Label of the roof (default: the kernel name).
        level : str, optional
            The memory level it bounds (None: any level).  ``machine_roofline``
            decides it (the likwid-perfctr group, the working set against the
            caches, ``level=``) and takes the median of repetitions:
            ``machine_roofline(read_likwid_bench(path), level="MEM")``.
        """
        from roofline_widget.roofs.roofline import BandwidthRoof

        return BandwidthRoof(name or self.kernel, self.gbs, self.provenance, level=level,
                             device="cpu", provenance=self._provenance())


def _number(values: dict, key: str) -> float:
    """A result's number (its first word: ``Time: 5.7e+00 sec``); NaN if not printed or a
    "no value" token (``-``, ``nil``, ``nan``, ``inf``: :data:`~.cells.NAN_TOKENS`)."""
    text = values.get(key)
    if text is None:
        return float("nan")
    return cell_to_float(text.split()[0])


def _split_runs(lines):
    """Yield (banner index, lines of the run) for each likwid-bench banner."""
    starts = [i for i, line in enumerate(lines) if line.strip() == _BANNER]
    for start, end in zip(starts, [*starts[1:], len(lines)]):
        yield start, lines[start:end]


def _parse_run(lines, offset: int, source: str):
    """Parse one run; return (BenchResult or None, why it was skipped or None).

    A run is used only when its result lines are closed by the ``-----``
    line likwid-bench prints after them: without it the output was cut off
    (a killed job, a truncated file) and the last number may be cut too.
    """
    kernel, test_line, counts, values = None, offset + 1, {}, {}
    closed = False
    for index, line in enumerate(lines):
        test = _TEST.match(line)
        using = _USING.match(line)
        result = _RESULT.match(line)
        if test and kernel is None:
            kernel, test_line = test[1], offset + index + 1
        elif using:
            counts[using[2]] = int(using[1])
        elif result:
            values[result[1]] = result[2]
        elif values and _HLINE.match(line):
            closed = True
            break  # the hline after the result lines ends the run's output
    if "MByte/s" not in values and "MFlops/s" not in values:
        return None, (f"line {offset + 1}: likwid-bench run without 'MFlops/s:' "
                      "or 'MByte/s:' results (interrupted?); skipped")
    if not closed:
        last, name = offset + len(lines), f"{kernel!r} " if kernel else ""
        return None, (f"line {offset + 1}: likwid-bench run {name}whose results end at "
                      f"line {last} without the closing '-----' line (the output is cut off); "
                      "skipped, its numbers may be cut too")
    if kernel is None:
        raise LikwidFormatError(source, offset + 1, "a 'Test: <kernel>' line after the banner")
    missing = [f"'Using N {what}'" for what in ("work groups", "threads") if what not in counts]
    if missing:  # never guess a thread count: the roof's provenance would be wrong
        return None, (f"line {offset + 1}: likwid-bench run {kernel!r} without its "
                      f"{' and '.join(missing)} line; skipped")
    try:
        numbers = {key: _number(values, key) for key in
                   ("MFlops/s", "MByte/s", "Time", "Data volume (Byte)", "Number of Flops")}
    except ValueError as exc:
        raise LikwidFormatError(source, test_line, f"numeric likwid-bench results of {kernel}",
                                str(exc)) from None
    return BenchResult(
        kernel=kernel, threads=counts["threads"], work_groups=counts["work groups"],
        gflops=numbers["MFlops/s"] / 1000.0, gbs=numbers["MByte/s"] / 1000.0,
        time_s=numbers["Time"], data_volume_bytes=numbers["Data volume (Byte)"],
        flops=numbers["Number of Flops"], source=source, line=test_line, values=values,
    ), None


def parse_bench(lines: list[str], source: str) -> tuple[list[BenchResult], list[str]]:
    """Every likwid-bench result in the lines of a file, and the runs skipped (why, where).

    What :func:`read_likwid_bench` does after opening the file; it warns the
    skipped runs.

    Raises
    ------
    LikwidFormatError
        For a result whose numbers are no LIKWID numbers, or a banner without
        its ``Test:`` line.
    """
    results, skipped = [], []
    for start, run_lines in _split_runs(lines):
        result, problem = _parse_run(run_lines, start, source)
        if result is None:
            skipped.append(problem)
        else:
            results.append(result)
    return results, skipped


def found_results(results: list[BenchResult], source: str) -> list[BenchResult]:
    """``results``, or :class:`LikwidFormatError` naming ``source`` when there is none."""
    if not results:
        raise LikwidFormatError(source, None, "likwid-bench output (a 'LIKWID MICRO BENCHMARK' "
                                "banner, 'Test: <kernel>' and 'MFlops/s:' / 'MByte/s:' lines)",
                                "no likwid-bench result")
    return results


def read_likwid_bench(path: PathOrBuffer) -> list[BenchResult]:
    """Read every likwid-bench result in a file.

    Parameters
    ----------
    path : str, path-like or file object
        likwid-bench output, on its own or inside other output (for example
        wrapped by likwid-perfctr, or several benchmarks in one log); plain
        or gzip/bz2/xz compressed, opened like :func:`~roofline_widget.read_likwid`'s files.

    Returns
    -------
    list of BenchResult
        In file order, each with the CPU the file's LIKWID header names
        (``cpu``); their roofs (:meth:`BenchResult.bandwidth_roof`) carry a
        provenance as ``machine_roofline``'s, and ``machine_roofline`` takes
        them as they are: the level of each, the median of repetitions.  A
        benchmark banner without result lines (a run that
        was killed), or whose result lines are not closed by likwid-bench's
        ``-----`` line (the output is cut off), is skipped with a
        :class:`~roofline_widget.errors.LikwidReadWarning` naming its line.

    Raises
    ------
    LikwidFormatError
        If the file holds no likwid-bench result, or cannot be opened (a
        directory, empty, binary).

    Examples
    --------
    >>> from roofline_widget import sample_path
    >>> result, = read_likwid_bench(sample_path("likwid_readme_bench_triad_avx_skylake_i7-6700K.txt"))
    >>> result.kernel, result.threads, result.gbs
    ('triad_avx', 3, 11.16334)
    >>> result.bandwidth_roof().source
    'likwid-bench triad_avx, 3 threads'
    """
    opened = open_text(path, "likwid-bench output")
    source = opened.name
    results, skipped = parse_bench(opened.text.splitlines(), source)
    warn_passed_over(source, skipped, stacklevel=2)
    found_results(results, source)
    cpu = cpu_header(opened.text)
    return [dataclasses.replace(result, cpu=cpu) for result in results] if cpu else results
