"""The kernel side of ``bench_browser_peers.py``: one set of points, four widgets that draw it.

The notebook's setup cell makes a :class:`Peers`; the display cell calls
:meth:`Peers.show` (build one widget, time the build, count the comm
messages from then on), the command cell :meth:`Peers.filter_half` and
:meth:`Peers.report` (writes the build time and the messages to a JSON file
the benchmark reads).

The points: ``n`` points, intensity log-uniform over 0.01-100 FLOP/byte,
performance log-uniform over three decades under a roof of 10 GB/s and
50 GFLOP/s (rates one hardware thread can reach); point ``i`` is region ``i % regions`` of rank ``i // regions``
(50,000 points = 6,250 ranks x 8 regions).  "Half" is regions 0-3: 25,000
points, the same for every widget.

roofline-widget is given the points as a points table (a DataFrame with
``region``, ``rank``, ``performance_gflops``,
``arithmetic_intensity_flops_per_byte``; ``RooflineWidget(frame)``), so it
draws exactly the peers' points; its filter is its ``include`` trait.  The
peers are built as their documentation shows (log axes each), with their
default markers, and filtered the way each one offers: new ``x``/``y``
arrays for bqplot-gl and plotly, ``Scatter.filter`` for jupyter-scatter.
:data:`BUILDERS` and :data:`FILTERS` are the only code to change when one
of them changes its API (roofline-widget's after the phase-B rework, say).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

#: Widget size for the peers (roofline-widget keeps its own layout).
WIDTH_PX, HEIGHT_PX = 800, 500
#: The regions kept by the filter (regular expression for roofline-widget).
HALF_PATTERN = "region_00[0-3]"


def roofline_points(n: int, regions: int, seed: int = 0) -> pd.DataFrame:
    """``n`` log-uniform roofline points as a points table (see the module docstring)."""
    rng = np.random.default_rng(seed)
    intensity = 10 ** rng.uniform(-2, 2, n)
    attainable = np.minimum(50.0, 10.0 * intensity)
    performance = attainable * 10 ** rng.uniform(-3, 0, n)
    index = np.arange(n)
    names = np.array([f"region_{r:03d}" for r in range(regions)])
    return pd.DataFrame({
        "region": names[index % regions],
        "rank": index // regions,
        "performance_gflops": performance,
        "arithmetic_intensity_flops_per_byte": intensity,
        "runtime_seconds": rng.uniform(0.1, 10.0, n),
    })


def build_roofline(points: pd.DataFrame):
    from roofline_widget import RooflineWidget

    return RooflineWidget(points)


def build_bqplot(points: pd.DataFrame):
    import bqplot as bq
    from bqplot_gl import ScatterGL

    x_scale, y_scale = bq.LogScale(), bq.LogScale()
    scatter = ScatterGL(x=points["arithmetic_intensity_flops_per_byte"].to_numpy(),
                        y=points["performance_gflops"].to_numpy(),
                        scales={"x": x_scale, "y": y_scale})
    axes = [bq.Axis(scale=x_scale, label="FLOP/byte"),
            bq.Axis(scale=y_scale, orientation="vertical", label="GFLOP/s")]
    return bq.Figure(marks=[scatter], axes=axes,
                     layout={"width": f"{WIDTH_PX}px", "height": f"{HEIGHT_PX}px"})


def build_plotly(points: pd.DataFrame):
    import plotly.graph_objects as go

    trace = go.Scattergl(x=points["arithmetic_intensity_flops_per_byte"].to_numpy(),
                         y=points["performance_gflops"].to_numpy(), mode="markers")
    return go.FigureWidget(data=[trace], layout={"xaxis_type": "log", "yaxis_type": "log",
                                                  "width": WIDTH_PX, "height": HEIGHT_PX})


def build_jscatter(points: pd.DataFrame):
    import jscatter

    scatter = jscatter.Scatter(data=points, x="arithmetic_intensity_flops_per_byte",
                               y="performance_gflops", x_scale="log", y_scale="log",
                               height=HEIGHT_PX)
    widget = scatter.show()
    widget.bench_scatter = scatter  # the filter goes through the Scatter
    return widget


def filter_roofline(widget, half: np.ndarray, points: pd.DataFrame) -> None:
    widget.include = HALF_PATTERN


def filter_bqplot(widget, half: np.ndarray, points: pd.DataFrame) -> None:
    scatter = widget.marks[0]
    with scatter.hold_sync():
        scatter.x = points["arithmetic_intensity_flops_per_byte"].to_numpy()[half]
        scatter.y = points["performance_gflops"].to_numpy()[half]


def filter_plotly(widget, half: np.ndarray, points: pd.DataFrame) -> None:
    with widget.batch_update():
        widget.data[0].x = points["arithmetic_intensity_flops_per_byte"].to_numpy()[half]
        widget.data[0].y = points["performance_gflops"].to_numpy()[half]


def filter_jscatter(widget, half: np.ndarray, points: pd.DataFrame) -> None:
    widget.bench_scatter.filter(np.flatnonzero(half))


#: Peer name -> (build from the points table, filter to the regions of HALF_PATTERN).
BUILDERS = {"roofline-widget": build_roofline, "bqplot-gl": build_bqplot,
            "plotly": build_plotly, "jupyter-scatter": build_jscatter}
FILTERS = {"roofline-widget": filter_roofline, "bqplot-gl": filter_bqplot,
           "plotly": filter_plotly, "jupyter-scatter": filter_jscatter}


@dataclass
class CommCounter:
    """Counts the comm messages (open, msg, close) the kernel sends, and their bytes.

    Wraps the kernel session's ``send``; the bytes (the JSON content as the
    session packs it, plus the binary buffers) are computed when asked, not
    while the widget is built, so the build time does not include them.
    """

    sent: list = field(default_factory=list)

    def install(self) -> None:
        from IPython import get_ipython

        session = get_ipython().kernel.session
        send = session.send
        self.pack = session.pack

        def counting_send(stream, msg_or_type, content=None, *args, **keywords):
            kind = (msg_or_type if isinstance(msg_or_type, str)
                    else msg_or_type.get("msg_type") or msg_or_type["header"]["msg_type"])
            if kind.startswith("comm_"):
                self.sent.append((kind, content, keywords.get("buffers") or ()))
            return send(stream, msg_or_type, content, *args, **keywords)

        session.send = counting_send

    def reset(self) -> None:
        self.sent.clear()

    def totals(self) -> dict:
        """Messages, their JSON bytes and their binary buffer bytes since the last reset."""
        json_bytes = sum(len(self.pack(content)) for _kind, content, _buffers in self.sent)
        binary = sum(memoryview(b).nbytes for _kind, _content, buffers in self.sent
                     for b in buffers)
        return {"messages": len(self.sent), "json_bytes": json_bytes, "binary_bytes": binary,
                "bytes": json_bytes + binary}


class Peers:
    """The points, the widget on show, its build time and the comm messages since it was built."""

    def __init__(self, n: int, regions: int, state_path: str, seed: int = 0) -> None:
        self.points = roofline_points(n, regions, seed)
        self.half = (np.arange(n) % regions) < regions // 2
        self.state_path = state_path
        self.counter = CommCounter()
        self.counter.install()
        self.widget = None
        self.peer = ""
        self.build_s = float("nan")
        self.filter_s = float("nan")
        self.first_draw: dict = {}

    def show(self, peer: str, tag: str):
        """Close the previous widget, build ``peer``'s on the points; return it for display."""
        if self.widget is not None:
            self.widget.close()
        self.widget = None
        self.counter.reset()
        start = time.perf_counter()
        widget = BUILDERS[peer](self.points)
        self.build_s = time.perf_counter() - start
        widget.add_class(tag)
        self.widget, self.peer = widget, peer
        return widget

    def filter_half(self) -> None:
        """Keep regions 0-3 (half the points); the messages until now are the first draw's."""
        self.first_draw = self.counter.totals()
        self.counter.reset()
        start = time.perf_counter()
        FILTERS[self.peer](self.widget, self.half, self.points)
        self.filter_s = time.perf_counter() - start

    def report(self, tag: str) -> None:
        """Write the build and filter times and the messages of the first draw and the filter."""
        state = {"tag": tag, "peer": self.peer, "build_s": self.build_s,
                 "filter_kernel_s": self.filter_s, "first_draw": self.first_draw,
                 "filter": self.counter.totals(), "time": time.time()}
        with open(self.state_path + ".partial", "w") as out:
            json.dump(state, out)
        import os

        os.replace(self.state_path + ".partial", self.state_path)
