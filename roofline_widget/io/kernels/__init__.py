"""GPU kernel launches of any profiler to the canonical run: counts, names, combining launches.

The profilers' readers (:mod:`roofline_widget.io.ncu` for Nsight Compute,
:mod:`roofline_widget.io.rocprof` for rocprof-compute) read their files into
one row per kernel launch and the launches' FLOPs, seconds and bytes
(:class:`~.counts.LaunchCounts`); this package makes the run of them, the same
way for every vendor:

* :mod:`.metrics` names the run's metrics (``DP [MFLOP/s]``, ``Memory bandwidth
  [MBytes/s]``, ...), so that the points and the levels read them as LIKWID's;
* :mod:`.names` gives kernels short display names;
* :mod:`.runs` combines the launches of each kernel (``launches=``) into the run.
"""

from __future__ import annotations

from roofline_widget.io.kernels.counts import LaunchCounts
from roofline_widget.io.kernels.names import display_names, short_name
from roofline_widget.io.kernels.runs import LAUNCH_KEYS, LAUNCH_MODES, check_launch_mode, kernel_run

__all__ = ["LAUNCH_KEYS", "LAUNCH_MODES", "LaunchCounts", "check_launch_mode", "display_names",
           "kernel_run", "short_name"]
