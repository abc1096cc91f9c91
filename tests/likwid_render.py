"""Render LIKWID outputs (likwid-perfctr text, likwid-bench, likwid-topology) for tests.

The layouts follow LIKWID's output code (likwid-perfctr.lua, likwid-bench) and the real samples in
roofline_widget/data/ (bench_in_perfctr_zen2_... for likwid-bench wrapped in likwid-perfctr).
"""

from __future__ import annotations

HLINE = "-" * 80
STARS = "*" * 80


def table(header: str, rows: list[tuple], columns: list[str]) -> list[str]:
    """A likwid-perfctr ``+---`` table: ``rows`` are (name, *cells)."""
    cells = [[header, *columns]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) + 2 for i in range(len(cells[0]))]
    border = "+" + "+".join("-" * w for w in widths) + "+"
    out = [border, "|" + "|".join(c.center(w) for c, w in zip(cells[0], widths)) + "|", border]
    out += ["|" + "|".join(c.center(w) for c, w in zip(row, widths)) + "|" for row in cells[1:]]
    return [*out, border]


def perfctr_region(region: str, group_index: int, group: str, threads: list[int],
                   runtime: float, metrics: dict[str, list[float]], *, marker=True) -> str:
    """One likwid-perfctr (>= 5.1) region block (marker mode), or a wrapper block."""
    columns = [f"HWThread {t}" for t in threads]
    lines = [HLINE, f"Region {region}, Group {group_index}: {group}" if marker
             else f"Group {group_index}: {group}"]
    if marker:
        lines += table("Region Info", [("RDTSC Runtime [s]", *[runtime] * len(threads)),
                                       ("call count", *[1] * len(threads))], columns)
    events = [("INSTR_RETIRED_ANY", "FIXC0", *([1000] * len(threads)))]
    lines += [*table("Event", events, ["Counter", *columns]), ""]
    rows = [("Runtime (RDTSC) [s]", *[runtime] * len(threads))]
    rows += [(name, *values) for name, values in metrics.items()]
    return "\n".join(lines + table("Metric", rows, columns) + [""])


SKYLAKE_GOLD = "Intel(R) Xeon(R) Gold 6132 CPU @ 2.60GHz"


def perfctr_header(cpu_type="Intel Skylake SP processor", cpu_name=SKYLAKE_GOLD) -> str:
    return "\n".join([HLINE, f"CPU name:\t{cpu_name}",
                      f"CPU type:\t{cpu_type}", "CPU clock:\t2.59 GHz", HLINE, ""])


def bench(kernel: str, threads: int, *, mflops: float, mbytes: float,
          size_per_thread: int) -> str:
    """One likwid-bench result block."""
    return "\n".join([
        HLINE, "LIKWID MICRO BENCHMARK", f"Test: {kernel}", HLINE, "Using 1 work groups",
        f"Using {threads} threads", HLINE, "Time:\t\t\t1.000000e+00 sec",
        f"Size (Byte):\t\t{size_per_thread * threads}", f"Size per thread:\t{size_per_thread}",
        f"MFlops/s:\t\t{mflops:.2f}", f"MByte/s:\t\t{mbytes:.2f}", HLINE, ""])


def topology(sockets=2, cores=4, caches=((1, "32 kB", 1), (2, "1 MB", 1), (3, "16 MB", 4)),
             cpu_name=SKYLAKE_GOLD, cpu_type="Intel Skylake SP processor",
             threads_per_core=1) -> str:
    """likwid-topology output of ``sockets`` x ``cores`` cores, ``threads_per_core`` threads each.

    ``caches`` are (level, size text, hardware threads per cache).  Hardware
    threads are numbered as Linux numbers them: every core's first thread,
    then every core's second (core ``c``'s threads are ``c`` and ``c + n_cores``).
    """
    n = sockets * cores
    lines = [HLINE, f"CPU name:\t{cpu_name}", f"CPU type:\t{cpu_type}", STARS,
             "Hardware Thread Topology", STARS,
             f"Sockets:\t\t{sockets}", f"Cores per socket:\t{cores}",
             f"Threads per core:\t{threads_per_core}",
             HLINE, "HWThread        Thread        Core        Die        Socket        Available"]
    lines += [f"{t:<16}{t // n:<14}{t % n:<12}0          {(t % n) // cores:<14}*"
              for t in range(n * threads_per_core)]
    lines.append(HLINE)
    lines += [f"Socket {s}:\t\t( " + " ".join(str(c + k * n) for c in range(s * cores, (s + 1) * cores)
                                            for k in range(threads_per_core)) + " )"
              for s in range(sockets)]
    lines += [HLINE, STARS, "Cache Topology", STARS]
    for level, size, shared in caches:
        per = max(1, shared // threads_per_core)  # cores per cache
        groups = " ".join("( " + " ".join(str(c + k * n) for c in range(g, g + per)
                                         for k in range(threads_per_core)) + " )"
                          for g in range(0, n, per))
        lines += [f"Level:\t\t\t{level}", f"Size:\t\t\t{size}", f"Cache groups:\t\t{groups}", HLINE]
    lines += [STARS, "NUMA Topology", STARS, f"NUMA domains:\t\t{sockets}", HLINE, ""]
    return "\n".join(lines)


def mpirun_region(region: str, group: int, columns: list[str], metrics: dict[str, list[float]],
                  runtime: float) -> str:
    """A likwid-mpirun text region (``Region:``/``Group:`` lines, ``host:rank:cpu`` columns)."""
    events = table("Event", [("Region calls", "CTR", *[1] * len(columns)),
                             ("INSTR_RETIRED_ANY", "FIXC0", *[1000] * len(columns))],
                   ["Counter", *columns])
    rows = [("Runtime (RDTSC) [s]", *[runtime] * len(columns))]
    rows += [(name, *values) for name, values in metrics.items()]
    return "\n".join([f"Region: {region}", f"Group: {group}", *events, "",
                      *table("Metric", rows, columns), ""])
