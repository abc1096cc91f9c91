"""The peak block of the widget's controls: per peak a log slider, a text box, an 'empirical' button.

The slider sweeps (its range holds the data and the peaks, :func:`peak_range`),
the text box takes an exact value, the button resets the peak (None): to the
widget's ceilings when it has ceilings of that kind (the button then says
"ceilings"), else to the largest observation (an *empirical* ceiling).  Each
mirrors its peak trait through ``traitlets.link`` (the button: pressed while
the peak is None; the slider: a value the browser sends back from its step
grid is not taken for a drag) or ``directional_link`` (the text box, whose
typed values are checked by the trait: a refused one is taken back).
"""

from __future__ import annotations

import math
from collections import deque

import ipywidgets as widgets
import traitlets

from roofline_widget import schema
from roofline_widget.roofs.hardware_bounds import largest_plausible
from roofline_widget.roofs.roofline import Roofline
from roofline_widget.widget.shared_looks import SharedLooks
from roofline_widget.widget.state import UpdateGuard

__all__ = [
    "DESCRIPTION_WIDTH",
    "PEAK_HEADROOM",
    "PEAK_RANGE_ABOVE",
    "PEAK_RANGE_BELOW",
    "PEAK_TEXT_WIDTH",
    "PEAK_TRAITS",
    "SLIDER_STEP",
    "PeakControls",
    "fit_slider",
    "peak_range",
]

#: Peak sliders' step in decades (0.023 %).
SLIDER_STEP = 0.0001
PEAK_TRAITS = ("peak_flops", "peak_bandwidth")
#: Width of a peak's text box: it shows the peak exactly, up to the 17 significant digits of a
#: float (``41.265564999999995``, the median of two likwid-bench runs in GB/s) uncut.
PEAK_TEXT_WIDTH = "160px"
#: Width of a control's description (the controls' common column).
DESCRIPTION_WIDTH = "100px"
#: A peak slider's range: from this fraction of the smallest value it holds ...
PEAK_RANGE_BELOW = 0.5
#: ... up to this multiple of the largest observation, and at least
PEAK_RANGE_ABOVE = 100.0
#: this multiple of the largest peak it holds (decades rounded out to tenths).
PEAK_HEADROOM = 2.0
_RANGE_ROUNDING = 10


def _positive(values) -> list[float]:
    return [v for v in values if v is not None and math.isfinite(v) and v > 0]


def peak_range(observed: float | None, *held: float | None) -> tuple[float, float]:
    """Exponent range ``(min, max)`` of a peak slider.

    From ``PEAK_RANGE_BELOW`` times the smallest of ``observed`` (the largest
    observation) and ``held`` (peaks the slider must hold) up to the larger of
    ``PEAK_RANGE_ABOVE`` times ``observed`` and ``PEAK_HEADROOM`` times the
    largest held value, rounded outwards to tenths of a decade.  Without an
    observation the largest held value stands in for it.
    """
    kept = _positive(held)
    observed = (_positive([observed]) or [max(kept, default=0.0)])[0]
    if observed <= 0:
        return -2.0, 4.0
    low = math.log10(PEAK_RANGE_BELOW * min([observed, *kept]))
    high = math.log10(max([PEAK_RANGE_ABOVE * observed, *(PEAK_HEADROOM * v for v in kept)]))
    return (math.floor(low * _RANGE_ROUNDING) / _RANGE_ROUNDING,
            math.ceil(high * _RANGE_ROUNDING) / _RANGE_ROUNDING)


def fit_slider(slider: widgets.FloatLogSlider, value: float) -> None:
    """Widen a log slider's exponent range (never narrow it) so that it holds ``value``."""
    low, high = peak_range(None, value)
    exponent = math.log10(value)
    if exponent < slider.min:
        slider.min = low
    if exponent > slider.max:
        slider.max = high


def _main_peak(main: Roofline | None, trait: str) -> float | None:
    if main is None:
        return None
    return main.peak_flops if trait == "peak_flops" else main.peak_bandwidth


def _peak_row(label: str, css: str, looks: SharedLooks) -> tuple:
    """A peak's log slider (the sweep), its text box (an exact value) and 'empirical' button."""
    slider = looks.make(widgets.FloatLogSlider, value=1.0, base=10, min=-2, max=4,
                        step=SLIDER_STEP, description=label, readout_format=".4g",
                        style={"description_width": DESCRIPTION_WIDTH}, layout={"width": "400px"},
                        css=css)
    # no description (none shown): the dropdowns' style, of their description width
    text = looks.make(widgets.FloatText, value=1.0, step=None, layout={"width": PEAK_TEXT_WIDTH},
                      style={"description_width": DESCRIPTION_WIDTH},
                      tooltip="type an exact value, e.g. from the spec sheet", css=f"{css}-text")
    empirical = looks.make(
        widgets.ToggleButton, value=True, description="empirical", layout={"width": "100px"},
        tooltip="pressed: the largest observation is the peak; press to reset to it",
        css=f"{css}-empirical")
    return slider, text, empirical


class PeakControls:
    """Slider, text box and 'empirical' button of each peak, linked to the peak traits.

    Parameters
    ----------
    guard : UpdateGuard
        The widget's re-entrancy guard.
    looks : SharedLooks, optional
        The roofline widget's shared layouts and styles (None: looks of its own).

    Attributes
    ----------
    flops_slider, bandwidth_slider : ipywidgets.FloatLogSlider
        DOM classes ``roofline-peak-flops``, ``roofline-peak-bandwidth``.
    flops_text, bandwidth_text : ipywidgets.FloatText
        DOM classes ``roofline-peak-flops-text``, ``roofline-peak-bandwidth-text``.
    flops_empirical, bandwidth_empirical : ipywidgets.ToggleButton
        "empirical": pressed while the peak is empirical (None).
    """

    def __init__(self, guard: UpdateGuard, *, looks: SharedLooks | None = None) -> None:
        self._guard = guard
        looks = looks or SharedLooks()
        # The last values the kernel put on each slider (see _on_slider).
        self._sent: dict[str, deque] = {name: deque(maxlen=8) for name in PEAK_TRAITS}
        self.flops_slider, self.flops_text, self.flops_empirical = _peak_row(
            "Peak [GFLOP/s]", "roofline-peak-flops", looks)
        self.bandwidth_slider, self.bandwidth_text, self.bandwidth_empirical = _peak_row(
            "Peak [GB/s]", "roofline-peak-bandwidth", looks)

    def rows(self) -> tuple:
        """``(trait name, slider, text box, empirical button)`` of each peak."""
        return (("peak_flops", self.flops_slider, self.flops_text, self.flops_empirical),
                ("peak_bandwidth", self.bandwidth_slider, self.bandwidth_text,
                 self.bandwidth_empirical))

    def link(self, owner: traitlets.HasTraits) -> None:
        """Each slider (sweep), text box (exact value) and button mirrors and sets ``owner``'s peak."""
        for trait, slider, text, box in self.rows():
            traitlets.link((owner, trait), (slider, "value"), transform=(
                lambda value, s=slider: s.value if value is None else value,
                lambda value, t=trait: self._dragged(owner, t, value)))
            traitlets.directional_link((owner, trait), (text, "value"),
                                       lambda value, x=text: x.value if value is None else value)
            text.observe(lambda change, t=trait: self._on_text(owner, t, change), names="value")
            traitlets.link((owner, trait), (box, "value"), transform=(
                lambda value: value is None,
                lambda pressed, t=trait, s=slider: None if pressed else (
                    getattr(owner, t) if getattr(owner, t) is not None else s.value)))

    def show(self, peaks: dict, main: Roofline | None, measured: dict | None = None) -> None:
        """Put the sliders, text boxes and 'empirical' buttons in step with the peak traits.

        Parameters
        ----------
        peaks : dict
            ``{"peak_flops": value or None, "peak_bandwidth": ...}``.
        main : Roofline or None
            The roofline, whose main roofs a None value shows.
        measured : dict, optional
            ``{"peak_flops": bool, ...}``: whether a None peak is a measured
            ceiling of the widget's (the button says "ceilings") rather than empirical.
        """
        measured = measured or {}
        with self._guard.hold():
            # Not held in one message: the browser's slider would take the value before a
            # wider range and clamp it (then send the clamped value back as a drag).
            for trait, slider, text, box in self.rows():
                box.description = "ceilings" if measured.get(trait) else "empirical"
                box.tooltip = ("pressed: the " + ("ceilings given" if measured.get(trait)
                                                  else "largest observation")
                               + " are the peak; press to reset to them")
                value = peaks[trait]
                if value is None:
                    value = _main_peak(main, trait)
                if value is not None:
                    fit_slider(slider, value)
                    sent = self._sent[trait]
                    if not sent or sent[-1] != value:
                        sent.append(value)
                    slider.value = value
                    text.value = value

    def fit(self, main: Roofline | None, points=None) -> None:
        """Exponent ranges around the data and the peaks (see :func:`peak_range`).

        Parameters
        ----------
        main : Roofline or None
            The main roofline (given or empirical peaks).
        points : pandas.DataFrame, optional
            The points; their largest plausible performance and bandwidth (the
            largest observations within the hardware bounds, as the empirical
            roofs) are held by the ranges too.
        """
        columns = {"peak_flops": schema.PERFORMANCE, "peak_bandwidth": schema.BANDWIDTH}
        with self._guard.hold():
            for trait, slider, _text, _box in self.rows():
                observed = None
                if points is not None and len(points):
                    observed = largest_plausible(points, columns[trait])
                low, high = peak_range(observed, slider.value, _main_peak(main, trait))
                with slider.hold_sync():  # one message: the range holds the value sent before
                    if low > slider.max:
                        slider.max = high
                    slider.min, slider.max = low, high

    def _on_text(self, owner, trait: str, change) -> None:
        """A typed value: the trait takes it exactly (the slider's range widens to hold it)."""
        if self._guard.active or getattr(owner, trait) == change.new:
            return
        try:
            setattr(owner, trait, change.new)
        except traitlets.TraitError:
            with self._guard.hold():  # not a valid peak: show the trait's value again
                change.owner.value = change.old
            raise

    def _dragged(self, owner, trait: str, value: float):
        """The peak a slider value sets: ``value``, or the peak as it is while the kernel writes
        to the slider or the browser sends back a value the kernel sent, put on the
        slider's step grid (possibly after the kernel had moved on): not a drag."""
        if self._guard.active or any(abs(math.log10(value / sent)) <= SLIDER_STEP / 2 + 1e-12
                                     for sent in self._sent[trait]):
            return getattr(owner, trait)
        return value
