"""``widget.opening.opened_at_exit``: widgets made in a block open at its end, one message each.

A recording comm (``comm.create_comm`` replaced, as a kernel's comms would
send) keeps every message: its type, the widget's model and the state sent.
"""

from __future__ import annotations

import ipywidgets as widgets
import pytest
from comm.base_comm import BaseComm

from roofline_widget.widget.opening import PendingComm, opened_at_exit

#: (comm id, message type, state) of every message sent.
_SENT: list[tuple[str, str, dict]] = []


class _Recorded(BaseComm):
    def publish_msg(self, msg_type, data=None, metadata=None, buffers=None, **keys):
        _SENT.append((self.comm_id, msg_type, dict((data or {}).get("state", {}))))


@pytest.fixture
def sent(monkeypatch):
    import comm

    monkeypatch.setattr(comm, "create_comm", lambda *args, **keys: _Recorded(*args, **keys))
    _SENT.clear()
    return _SENT


def test_a_box_and_the_child_given_later_open_at_the_end_with_their_last_values(sent):
    with opened_at_exit():
        box = widgets.HBox()
        child = widgets.HTML("first")
        assert isinstance(child.comm, PendingComm)
        box.children = [child]
        child.value = "second"
        child.layout.width = "10px"
        assert sent == []  # nothing before the end
    # one comm_open per widget, none updated: the box's layout and style, the child's
    # layout and style, the child, the box (the box after the child it names)
    assert [kind for _id, kind, _state in sent] == ["comm_open"] * 5
    opened = [comm_id for comm_id, _kind, _state in sent]
    assert opened.index(child.model_id) < opened.index(box.model_id)
    assert opened.index(child.layout.model_id) < opened.index(child.model_id)
    states = {comm_id: state for comm_id, _kind, state in sent}
    assert states[child.model_id]["value"] == "second"
    assert states[child.layout.model_id]["width"] == "10px"
    assert states[box.model_id]["children"] == [f"IPY_MODEL_{child.model_id}"]
    # opened: a change now is a message as ipywidgets sends it
    child.value = "third"
    assert sent[-1] == (child.model_id, "comm_msg", {"value": "third"})


def test_a_widget_keeps_its_id_from_made_to_opened(sent):
    with opened_at_exit():
        text = widgets.Text()
        made_as = text.model_id
    assert text.model_id == made_as
    assert not isinstance(text.comm, PendingComm)


def test_nested_blocks_open_at_the_outermost_end(sent):
    with opened_at_exit():
        with opened_at_exit():
            inner = widgets.Button(description="inner")
        assert sent == []
        assert isinstance(inner.comm, PendingComm)
    assert inner.model_id in {comm_id for comm_id, _kind, _state in sent}


def _build_and_fail(made: list) -> None:
    with opened_at_exit():
        made.append(widgets.IntSlider(value=3))
        raise ValueError("broken")


def test_a_block_that_raises_sends_nothing_and_closes_what_it_made(sent):
    widgets_made: list = []
    with pytest.raises(ValueError, match="broken"):
        _build_and_fail(widgets_made)
    made, = widgets_made
    assert sent == []
    assert made.comm is None  # closed: never opened, nothing to tell the browser
    later = widgets.IntSlider()  # and widgets open at once again
    assert [kind for _id, kind, _state in sent] == ["comm_open"] * 3  # layout, style, slider
    assert later.comm is not None


def test_a_widget_made_before_the_block_sends_its_changes_at_once(sent):
    before = widgets.HTML("a")
    del sent[:]
    with opened_at_exit():
        before.value = "b"
        assert sent == [(before.model_id, "comm_msg", {"value": "b"})]
