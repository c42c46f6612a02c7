"""Review 237: #1 the error for a union of models told apart by a ``Literal`` tag names the mistake of the member the
tag picks; #2 ``**kwargs: Unpack[TypedDict]`` (PEP 692); #3 a non-finite ``Decimal`` default is left out of the
schema."""

from __future__ import annotations

from typing import Any, Literal, Union

import pytest
from pydantic import BaseModel

from toolwire import Tool

# ------------------------------------------------------------------ #1: a union of models told apart by a tag


class _AddStep(BaseModel):
    op: Literal["add"]
    text: str


class _DeleteStep(BaseModel):
    op: Literal["delete"]
    id: int


def _edit(step: Union[_AddStep, _DeleteStep]) -> str:  # noqa: UP007 (the spelling of the review)
    """Edit the document.

    Args:
        step: what to do.
    """
    return repr(step)


def _edit_many(steps: list[_AddStep | _DeleteStep], note: _AddStep | _DeleteStep | None = None) -> str:
    """Edit the document in steps.

    Args:
        steps: what to do, in order.
        note: one more step.
    """
    return repr(steps)


def _error(func: Any, args: dict[str, Any]) -> str:
    message = Tool.from_function(func).invoke({"type": "tool_call", "name": func.__name__, "id": "c", "args": args})
    assert message.status == "error"
    return str(message.content)


@pytest.mark.parametrize(("step", "expected"), [
    ({"op": "add", "text": "x", "id": 3},
     "Error: Invalid arguments for tool '_edit': with op \"add\": 'step.id' is not an allowed field of 'step' (got 3). "
     "The fields of 'step' are: op, text."),
    ({"op": "delete", "id": 3, "text": "x"},
     "Error: Invalid arguments for tool '_edit': with op \"delete\": 'step.text' is not an allowed field of 'step' "
     "(got 'x'). The fields of 'step' are: op, id."),
    ({"op": "delete", "id": "seven"},
     "Error: Invalid arguments for tool '_edit': with op \"delete\": 'step.id': Input should be a valid integer, "
     "unable to parse string as an integer (got 'seven')."),
    ({"op": "move", "id": 1},  # a tag that picks no member: only the tag is wrong
     "Error: Invalid arguments for tool '_edit': 'step.op': Input should be 'add', or input should be 'delete' "
     "(got 'move')."),
    ({"id": 1},
     "Error: Invalid arguments for tool '_edit': 'step.op' is required but missing (one of \"add\", \"delete\")."),
])
def test_the_error_of_a_tagged_union_is_the_one_of_the_member_the_tag_picks(step: dict[str, Any],
                                                                              expected: str) -> None:
    assert _error(_edit, {"step": step}) == expected


def test_a_tagged_union_in_a_list_or_optional_is_cut_the_same_way() -> None:
    text = _error(_edit_many, {"steps": [{"op": "add", "text": "a"}, {"op": "delete", "id": 1, "text": "b"}],
                               "note": {"op": "add", "text": 5}})
    assert text == ("Error: Invalid arguments for tool '_edit_many': with op \"delete\": 'steps.1.text' is not an "
                    "allowed field of 'steps.1' (got 'b'); with op \"add\": 'note.text': Input should be a valid "
                    "string (got 5). The fields of 'steps.1' are: op, id.")


def test_a_good_call_of_a_tagged_union_still_works() -> None:
    t = Tool.from_function(_edit)
    assert t.invoke({"step": {"op": "delete", "id": 3}}) == "_DeleteStep(op='delete', id=3)"
