"""Saved views: the widget's choices as a versioned JSON document (:class:`View`).

* :mod:`.view`: :class:`View`, its JSON form, files, and its check against data;
* :mod:`.fields`: the check of every field, by the rules of :mod:`roofline_widget.settings`
  where the field is a setting;
* :mod:`.json_text`: reading JSON text that may come from anyone (bounded depth and numbers,
  valid Unicode).
"""

from __future__ import annotations

from roofline_widget.views.view import MAX_VIEW_BYTES, VIEW_FORMAT, VIEW_VERSION, View

__all__ = ["MAX_VIEW_BYTES", "VIEW_FORMAT", "VIEW_VERSION", "View"]
