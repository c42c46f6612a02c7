"""Review 186 #6: a one-field NamedTuple with no docstring published the docstring Python makes up for it
(``Box(size,)``, with a trailing comma) as its description, in the schema and in the pythonic prompt."""

from __future__ import annotations

import collections
from typing import Generic, NamedTuple, TypeVar

from toolwire import tool
from toolwire.models._tool_text import python_signature
from toolwire.models.base import to_tool_spec

T = TypeVar("T")


class Box(NamedTuple):
    size: int


class Labelled(NamedTuple):
    """A box with a label."""

    size: int


class G(NamedTuple, Generic[T]):
    v: T


Single = collections.namedtuple("Single", ["x"])


@tool
def pack(box: Box, labelled: Labelled, g: G[int], single: Single) -> str:
    """Pack."""
    return "ok"


def test_one_field_named_tuple_without_docstring_has_no_description() -> None:
    assert Box.__doc__ == "Box(size,)"
    props = to_tool_spec(pack).parameters["properties"]
    assert "description" not in props["box"]
    assert "description" not in props["g"]
    assert "description" not in props["single"]
    assert props["labelled"]["description"] == "A box with a label."


def test_prompt_has_no_made_up_text() -> None:
    text = python_signature(pack)
    assert "Box(size,)" not in text
    assert "Single(x,)" not in text
    assert "G(v,)" not in text
    assert "A box with a label." in text
