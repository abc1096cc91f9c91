"""The scene: what a roofline figure draws, built once, drawn by the widget and by the static plot.

- :mod:`.parts`: the :class:`~roofline_widget.scene.parts.Scene` and its parts, plain
  frozen dataclasses (roof lines, labels, dots, polylines, the layers);
- :mod:`.build`: :func:`~roofline_widget.scene.build.build_scene` (the whole rule, from
  ``plot_roofline``'s arguments), :func:`~roofline_widget.scene.build.compose_scene` and
  :func:`~roofline_widget.scene.build.roof_part` (the roof lines, their labels placed);
- :mod:`.levels`, :mod:`.compare`, :mod:`.spread`, :mod:`.sweep`: the memory levels, a
  baseline's arrows, the rank spread, a chain of runs as a sweep (a path per region, a
  shade per run, the colour bar's key).

Nothing here imports a plotting library: ``widget.figure`` (bqplot) and
``static.matplotlib_figure`` (matplotlib) draw a scene.
"""
