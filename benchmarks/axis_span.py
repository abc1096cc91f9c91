"""Axis spans in decades on the pmgpu sample: static plot and widget, no-FLOP rule off and on.

The pmgpu sample's ``<init_datastructures>`` region does 6.9e-9 GFLOP/s at
4.6e-10 FLOP/byte, against 0.5 to 2.1 GFLOP/s for the four other regions.
"Off" sets ``look.no_flop.NO_FLOP_WORK_FRACTION = 0`` (every point counts for the
ranges: the behaviour before the rule); run the script with the ``PYTHONPATH``
of another checkout to measure that checkout (the "on" rows are skipped when it
has no such rule).  Prints a table and exits 0.

    PYTHONPATH=$PWD python benchmarks/axis_span.py
"""

from __future__ import annotations

import math
import sys
import warnings
from pathlib import Path

try:
    import roofline_widget
except ImportError:  # run from a checkout without PYTHONPATH
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    import roofline_widget

from roofline_widget import RooflineWidget, plot_roofline, sample_path

try:
    from roofline_widget.look import no_flop as rule
except ImportError:  # a checkout from before look/ was split
    from roofline_widget.look import style as rule

SAMPLE = "pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt"


def decades(low: float, high: float) -> float:
    """log10(high / low)."""
    return math.log10(high / low)


def static_spans(path: str) -> tuple[float, float]:
    """x and y spans (decades) of the matplotlib figure's axes."""
    axes = plot_roofline(path, verbose=False)["figure"].axes[0]
    return decades(*axes.get_xlim()), decades(*axes.get_ylim())


def widget_spans(path: str) -> tuple[float, float]:
    """x and y spans (decades) of the widget's scales as first shown."""
    figure = RooflineWidget(path).figure
    return (decades(figure.x_scale.min, figure.x_scale.max),
            decades(figure.y_scale.min, figure.y_scale.max))


def main() -> None:
    path = sample_path(SAMPLE)
    has_rule = hasattr(rule, "NO_FLOP_WORK_FRACTION")
    rules = [("off", 0.0), ("on", rule.NO_FLOP_WORK_FRACTION)] if has_rule else [("none", None)]
    print(f"sample {SAMPLE} (package at {Path(roofline_widget.__file__).parent})")
    print(f"{'rule':<6}{'view':<8}{'x decades':>10}{'y decades':>10}")
    warnings.simplefilter("ignore")
    for name, fraction in rules:
        if fraction is not None:
            rule.NO_FLOP_WORK_FRACTION = fraction
        for view, spans in (("static", static_spans), ("widget", widget_spans)):
            x, y = spans(path)
            print(f"{name:<6}{view:<8}{x:>10.2f}{y:>10.2f}")


if __name__ == "__main__":
    main()
