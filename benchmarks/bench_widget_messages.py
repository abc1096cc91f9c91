"""What one widget sends to the browser: widgets built and comm messages of the build and the filter.

Usage::

    python benchmarks/bench_widget_messages.py                # 50,000 points
    python benchmarks/bench_widget_messages.py --points 5000
    python benchmarks/bench_widget_messages.py --left-out-every 97   # some points left out
    PYTHONPATH=/tmp/old python benchmarks/bench_widget_messages.py   # another tree's package

Load-independent counts (no browser): every ipywidget (a ``Layout`` and a
``*Style`` too) opens a comm, and every change of a synced trait sends a
message on it.  ``comm.create_comm`` is replaced by a comm that records what a
kernel would send (the message type, the JSON state's size and the binary
buffers' bytes), then the widget of ``bench_browser_peers.py`` is built on the
same points (``peer_widgets.roofline_points``: ``--points`` points in
``--points / 8`` ranks x 8 regions) and filtered to half its points
(``include = "region_00[0-3]"``) after its figure was shown with WebGL.
Prints the widgets and messages of each, the messages per widget kind, and the
package's path (which tree was measured).
"""

from __future__ import annotations

import argparse
import collections
import json
import warnings

import comm
from comm.base_comm import BaseComm
from peer_widgets import HALF_PATTERN, roofline_points

#: (comm id, message type, JSON bytes, binary bytes) of every message sent.
SENT: list[tuple[str, str, int, int]] = []
OPENED: dict[str, str] = {}
#: Regions of the points (bench_browser_peers.py's).
REGIONS = 8


class RecordingComm(BaseComm):
    """A comm that records what it would send instead of sending it."""

    def publish_msg(self, msg_type, data=None, metadata=None, buffers=None, **keys):
        if msg_type == "comm_open":
            OPENED[self.comm_id] = ((data or {}).get("state") or {}).get("_model_name", "?")
        SENT.append((self.comm_id, msg_type, len(json.dumps(data, default=str)) if data else 0,
                     sum(memoryview(b).nbytes for b in buffers or ())))


def totals(sent: list) -> str:
    opened = sum(1 for _id, kind, _j, _b in sent if kind == "comm_open")
    json_mb = sum(j for _id, _kind, j, _b in sent) / 1e6
    binary_mb = sum(b for _id, _kind, _j, b in sent) / 1e6
    return (f"{opened:,} widgets opened, {len(sent):,} messages, {json_mb:.3f} MB JSON + "
            f"{binary_mb:.3f} MB binary")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=50_000, help="a multiple of 8")
    parser.add_argument("--left-out-every", type=int, default=0, metavar="N",
                        help="every N-th point without its intensity: its region is left out "
                             "(the 'Left out' section has rows); 0: none")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    comm.create_comm = RecordingComm
    import roofline_widget
    from roofline_widget import RooflineWidget

    points = roofline_points(args.points, REGIONS)
    if args.left_out_every:
        points.loc[::args.left_out_every, "arithmetic_intensity_flops_per_byte"] = float("nan")
    RooflineWidget(roofline_points(80, REGIONS))  # imports, first-use caches: not counted
    SENT.clear()
    OPENED.clear()
    widget = RooflineWidget(points)
    build = list(SENT)
    kinds = collections.Counter(OPENED.values())
    widget.figure.plot._view_count = 1  # shown in a browser with WebGL (as the front end says)
    widget.figure.points.gl._view_count = 1
    SENT.clear()
    widget.include = HALF_PATTERN
    print(f"package: {roofline_widget.__file__}")
    print(f"{args.points:,} points ({args.points // REGIONS:,} ranks x "
          f"{REGIONS} regions)")
    print(f"build:  {totals(build)}")
    print(f"filter: {totals(SENT)}")
    print("widgets of the build by kind: " + ", ".join(f"{kind} {n}" for kind, n in
                                                        kinds.most_common()))


if __name__ == "__main__":
    main()
