"""The widget's build inside a real Jupyter kernel, no browser: what ``bench_browser_peers.py`` times
that ``bench_widget_build.py`` does not.

Usage::

    python benchmarks/bench_build_in_kernel.py                       # this tree, 7 rounds
    python benchmarks/bench_build_in_kernel.py --base /tmp/before    # and another tree, interleaved
    python benchmarks/bench_build_in_kernel.py --rounds 9 --points 5000

``bench_widget_build.py`` builds ``RooflineWidget(points)`` in a plain Python
process: ipywidgets has no kernel there, so every widget's comm is
``comm``'s dummy, which sends nothing.  ``bench_browser_peers.py`` times the
same call in a JupyterLab kernel, where every widget opened and every state
change is a message the kernel serializes, signs and hands to its IOPub
thread during the build; and where the Jupyter server and the browser
(software WebGL on the same two cores) start on those messages while the
build still runs.

This script starts one ``ipykernel`` (``jupyter_client``, no server, no
browser) per tree with the peers' points (``peer_widgets.roofline_points``:
``--points`` points in ``--points / 8`` ranks x 8 regions), builds the widget
once untimed, then, per round and in turn, builds it

* ``dummy comms``: with ``comm.create_comm`` a comm that sends nothing (what
  ``bench_widget_build.py`` measures, but inside the kernel process);
* ``kernel comms``: with the kernel's own comms (what the peers' benchmark
  measures, without the server and the browser), also counting the
  messages, their bytes and the time spent in ``Session.send``;

and after each build its filter (``peer_widgets.FILTERS``: regions 0-3),
printed as dummy / kernel comms;

and jupyter-scatter the same way when installed (``--no-peer``: not).  Prints
the medians, the ratios, and the load average before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from _common import command_line, has_jscatter, load_average, median, side_by_side_arguments

HERE = Path(__file__).resolve().parent
TREE = HERE.parent

#: Run once in each kernel: the points, the two comm factories, a timed ``Session.send``.
SETUP = """
import gc, json, time, warnings
import comm
from comm.base_comm import BaseComm
warnings.simplefilter("ignore")
from peer_widgets import BUILDERS, FILTERS, roofline_points
KERNEL_COMM = comm.create_comm


class SilentComm(BaseComm):
    def publish_msg(self, msg_type, data=None, metadata=None, buffers=None, **keys):
        pass


session = get_ipython().kernel.session
_send = session.send
SENT = []


def timed_send(stream, msg_or_type, content=None, *args, **keywords):
    start = time.perf_counter()
    try:
        return _send(stream, msg_or_type, content, *args, **keywords)
    finally:
        kind = msg_or_type if isinstance(msg_or_type, str) else msg_or_type.get("msg_type", "")
        if str(kind).startswith("comm_"):
            buffers = keywords.get("buffers") or ()
            SENT.append((time.perf_counter() - start, sum(memoryview(b).nbytes for b in buffers)))


session.send = timed_send
POINTS = roofline_points({points}, 8)
HALF = (POINTS.index.to_numpy() % 8) < 4
BUILDERS["{builder}"](roofline_points(800, 8)).close()
BUILDERS["{builder}"](POINTS).close()
"""

#: One timed build; prints one JSON line.
BUILD = """
comm.create_comm = KERNEL_COMM if {real} else SilentComm
gc.collect()
SENT.clear()
start = time.perf_counter()
widget = BUILDERS["{builder}"](POINTS)
seconds = time.perf_counter() - start
sent = list(SENT)
start = time.perf_counter()
FILTERS["{builder}"](widget, HALF, POINTS)
filtered = time.perf_counter() - start
widget.close()
comm.create_comm = KERNEL_COMM
print(json.dumps({{"build": seconds, "messages": len(sent), "send": sum(s for s, _ in sent),
                  "binary": sum(b for _, b in sent), "filter": filtered}}))
"""


class Kernel:
    """One ipykernel with a tree's package first on its path."""

    def __init__(self, tree: Path, builder: str, points: int) -> None:
        from jupyter_client.manager import start_new_kernel

        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tree), str(HERE)])}
        self.manager, self.client = start_new_kernel(kernel_name="python3", env=env,
                                                     cwd=str(HERE))
        self.builder = builder
        self.run(SETUP.format(points=points, builder=builder))
        self.package = self.run("import roofline_widget; print(roofline_widget.__file__)").strip()

    def run(self, code: str) -> str:
        out: list[str] = []

        def hook(message: dict) -> None:
            if message["msg_type"] == "stream":
                out.append(message["content"]["text"])
            elif message["msg_type"] == "error":
                raise RuntimeError("\n".join(message["content"]["traceback"]))

        self.client.execute_interactive(code, output_hook=hook, timeout=600)
        return "".join(out)

    def build(self, real: bool) -> dict:
        return json.loads(self.run(BUILD.format(real=real, builder=self.builder)).splitlines()[-1])

    def close(self) -> None:
        self.client.stop_channels()
        self.manager.shutdown_kernel(now=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    side_by_side_arguments(parser, rounds=7)
    args = parser.parse_args()
    trees = {"this tree": TREE} if args.base is None else {"base": args.base.resolve(),
                                                           "this tree": TREE}
    sides = {name: (tree, "roofline-widget") for name, tree in trees.items()}
    if not args.no_peer and has_jscatter():
        sides["jupyter-scatter"] = (TREE, "jupyter-scatter")
    print(f"load average before (1, 5, 15 min): {load_average()}", flush=True)
    kernels = {name: Kernel(tree, builder, args.points) for name, (tree, builder) in sides.items()}
    samples: dict = {(name, real): [] for name in kernels for real in (False, True)}
    try:
        for _ in range(args.rounds):
            for name, kernel in kernels.items():
                for real in (False, True):
                    samples[name, real].append(kernel.build(real))
    finally:
        for kernel in kernels.values():
            kernel.close()
    print(f"load average after (1, 5, 15 min): {load_average()}")
    report(kernels, samples, args)


def report(kernels: dict, samples: dict, args) -> None:
    def med(name: str, real: bool, what: str) -> float:
        return median([sample[what] for sample in samples[name, real]])

    print(f"\n{args.points:,} points in {args.points // 8:,} ranks x 8 regions, one ipykernel per "
          f"side (no server, no browser), medians of {args.rounds} builds per mode (interleaved)")
    print(f"{'side':<17} {'dummy comms':>12} {'kernel comms':>13} {'difference':>11} "
          f"{'messages':>9} {'in send':>9} {'binary':>9} {'filter':>19}  package")
    for name, kernel in kernels.items():
        dummy, real = med(name, False, "build"), med(name, True, "build")
        print(f"{name:<17} {dummy * 1e3:>9.1f} ms {real * 1e3:>10.1f} ms "
              f"{(real - dummy) * 1e3:>8.1f} ms {med(name, True, 'messages'):>9.0f} "
              f"{med(name, True, 'send') * 1e3:>6.1f} ms {med(name, True, 'binary') / 1e6:>6.2f} MB"
              f" {med(name, False, 'filter') * 1e3:>7.1f} / {med(name, True, 'filter') * 1e3:>5.1f} ms"
              f"  {kernel.package if kernel.builder == 'roofline-widget' else kernel.builder}")
    if "jupyter-scatter" in kernels:
        peer = med("jupyter-scatter", True, "build")
        for name in kernels:
            if name != "jupyter-scatter":
                print(f"{name} / jupyter-scatter, kernel comms: {med(name, True, 'build') / peer:.2f}x")
    if "base" in kernels:
        for real in (False, True):
            ratio = med("this tree", real, "build") / med("base", real, "build")
            print(f"this tree / base, {'kernel' if real else 'dummy'} comms: {ratio:.2f}x")
    print(f"command: {command_line()}")


if __name__ == "__main__":
    sys.exit(main())
