"""How a roofline looks and where things sit: the one home the widget and the static plot share.

- :mod:`.colors`: the points' palette, the lines', rings' and imbalance colours;
- :mod:`.markers`: marker shapes in bqplot's and matplotlib's names, point sizes;
- :mod:`.texts`: axis labels, title, ceiling and ridge labels, tooltip fields, label widths;
- :mod:`.log_axes`: what a log axis shows, padding, tick format, clipping a line to the axes;
- :mod:`.axis_ranges`: the axis-range rule of every view;
- :mod:`.no_flop`: regions without floating-point work (kept out of the ranges, named);
- :mod:`.plot_area`: the widget figure's margins and plot size in pixels;
- :mod:`.ceiling_labels`: where the widget's ceiling and ridge labels sit;
- :mod:`.arrows`: arrow heads on log-log axes (position and rotation on screen).

Nothing here imports a plotting library.
"""
