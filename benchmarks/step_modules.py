"""The package's modules one peak-slider step runs in the kernel, and how often each is entered.

Usage::

    PYTHONPATH=<tree> python <tree>/benchmarks/step_modules.py

The quickstart's widget (pmgpu and GMGPolar, empirical roofs); two peak changes first, then
the one counted: ``w.peak_bandwidth = 170`` (what the slider's step sets), every call into a
module of the package recorded with ``sys.setprofile``.  For ``docs/architecture.md``
("One peak-slider step"): run it on two trees side by side.
"""

from __future__ import annotations

import collections
import sys
import warnings
from pathlib import Path

import roofline_widget
from roofline_widget import RooflineWidget, read_likwid, sample_path

SAMPLES = ("pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt",
           "gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt")


def main() -> None:
    warnings.simplefilter("ignore")
    root = Path(roofline_widget.__file__).parent
    widget = RooflineWidget([read_likwid(sample_path(name)) for name in SAMPLES])
    widget.peak_bandwidth = 150.0
    widget.peak_bandwidth = 160.0
    entered: collections.Counter = collections.Counter()

    def record(frame, event, _arg):
        path = Path(frame.f_code.co_filename)
        if event == "call" and path.is_relative_to(root):
            entered[str(path.relative_to(root.parent))] += 1

    sys.setprofile(record)
    widget.peak_bandwidth = 170.0
    sys.setprofile(None)
    for name, count in sorted(entered.items()):
        print(f"{count:6d} {name}")
    print(f"{len(entered)} modules; {sum(entered.values())} calls")


if __name__ == "__main__":
    main()
