"""How a roofline looks, shared by the widget and the static plot: palette, labels, axis ranges."""
