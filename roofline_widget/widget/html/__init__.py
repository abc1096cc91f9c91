"""Every HTML snippet of the widget, escaped: region and run names come from users' code.

The widget's modules and layers build no HTML themselves; they call these:

- :mod:`.values`: values as shown (rounded numbers, "all ranks") and the one
  escaped label/value table;
- :mod:`.tooltips`: hover texts of the points, level dots, rings, rank medians,
  baseline points, and the tooltip CSS;
- :mod:`.panels`: the detail panel, the selection and left-out tables, the findings list;
- :mod:`.legends`: the colour legend, the baseline runs' shapes, the imbalance scale;
- :mod:`.status`: the status line, the message, each layer's note;
- :mod:`.sweep`: a sweep's colour bar, its status in two lines, its tooltips;
- the ceilings table (:func:`~roofline_widget.look.ceiling_lines.ceilings_table_html`,
  re-exported here): its home is beside the table's rows, for ``Roofline._repr_html_``.
"""

from __future__ import annotations

from roofline_widget.look.ceiling_lines import CEILINGS_TABLE_COLUMNS, ceilings_table_html
from roofline_widget.widget.html.legends import (
    LEGEND_ENTRIES_SHOWN,
    LEGEND_TITLES,
    heading_html,
    imbalance_legend_html,
    legend_html,
    runs_legend_html,
)
from roofline_widget.widget.html.panels import (
    LEFT_OUT_COLUMNS,
    LEFT_OUT_ROWS_SHOWN,
    MAX_LISTED_FINDINGS,
    SELECTION_COLUMNS,
    SELECTION_ROWS_SHOWN,
    detail_html,
    details_html,
    findings_list_html,
    left_out_groups,
    left_out_html,
    selection_html,
)
from roofline_widget.widget.html.status import (
    NAMES_SHOWN,
    NO_FLOP_WHERE,
    beyond_hardware_html,
    ceiling_notes_html,
    chain_status_html,
    compare_status_html,
    empty_title,
    layer_notes_html,
    levels_status_html,
    message_html,
    message_text,
    no_flop_work_html,
    point_notes_html,
    points_budget_hint_html,
    points_mark_html,
    spread_status_html,
    status_html,
)
from roofline_widget.widget.html.sweep import (
    STATUS_LINE_CHARS,
    sweep_details_html,
    sweep_key_html,
    sweep_status_html,
    sweep_step_html,
    sweep_step_text,
    sweep_tooltip_html,
)
from roofline_widget.widget.html.tooltips import (
    SPREAD_WHISKERS,
    TOOLTIP_CLASS,
    TOOLTIP_COLUMNS,
    TOOLTIP_CSS,
    TOOLTIP_STYLE,
    comparison_tooltip_html,
    level_tooltip_html,
    ring_tooltip_html,
    roof_tooltip_html,
    spread_tooltip_html,
    tooltip_css_html,
    tooltip_html,
)
from roofline_widget.widget.html.values import (
    DISPLAY_DIGITS,
    display_frame,
    display_value,
    names_text,
    number_text,
    percent_text,
    rank_phrase,
    rank_text,
    ranks_text,
    rows_table,
)

__all__ = [
    "CEILINGS_TABLE_COLUMNS",
    "DISPLAY_DIGITS",
    "LEFT_OUT_COLUMNS",
    "LEFT_OUT_ROWS_SHOWN",
    "LEGEND_ENTRIES_SHOWN",
    "LEGEND_TITLES",
    "MAX_LISTED_FINDINGS",
    "NAMES_SHOWN",
    "NO_FLOP_WHERE",
    "SELECTION_COLUMNS",
    "SELECTION_ROWS_SHOWN",
    "SPREAD_WHISKERS",
    "STATUS_LINE_CHARS",
    "TOOLTIP_CLASS",
    "TOOLTIP_COLUMNS",
    "TOOLTIP_CSS",
    "TOOLTIP_STYLE",
    "beyond_hardware_html",
    "ceiling_notes_html",
    "ceilings_table_html",
    "chain_status_html",
    "compare_status_html",
    "comparison_tooltip_html",
    "detail_html",
    "details_html",
    "display_frame",
    "display_value",
    "empty_title",
    "findings_list_html",
    "heading_html",
    "imbalance_legend_html",
    "layer_notes_html",
    "left_out_groups",
    "left_out_html",
    "legend_html",
    "level_tooltip_html",
    "levels_status_html",
    "message_html",
    "message_text",
    "names_text",
    "no_flop_work_html",
    "number_text",
    "percent_text",
    "point_notes_html",
    "points_budget_hint_html",
    "points_mark_html",
    "rank_phrase",
    "rank_text",
    "ranks_text",
    "ring_tooltip_html",
    "roof_tooltip_html",
    "rows_table",
    "runs_legend_html",
    "selection_html",
    "spread_status_html",
    "spread_tooltip_html",
    "status_html",
    "sweep_details_html",
    "sweep_key_html",
    "sweep_status_html",
    "sweep_step_html",
    "sweep_step_text",
    "sweep_tooltip_html",
    "tooltip_css_html",
    "tooltip_html",
]
