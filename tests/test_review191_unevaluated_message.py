"""``unevaluatedProperties: false`` beside ``allOf``: the error names the undeclared key, not a declared one
(review 191 #4)."""

from __future__ import annotations

import pytest

from toolwire.errors import ToolValidationError
from toolwire.interop import tool_from_schema

SCHEMA = {"type": "object", "allOf": [{"properties": {"a": {"type": "integer"}}, "required": ["a"]}],
          "unevaluatedProperties": False}


def test_only_the_undeclared_keys_are_named() -> None:
    tool = tool_from_schema({"name": "p", "description": "d", "parameters": SCHEMA}, lambda **kw: kw)
    with pytest.raises(ToolValidationError) as caught:
        tool.invoke({"a": 1, "z": 2, "y": "x, 'a'"})
    message = str(caught.value)
    assert "'z' is not a parameter of this tool (got 2)" in message
    assert "'y' is not a parameter of this tool" in message
    assert "'a' is not" not in message
    assert tool.invoke({"a": 1}) == {"a": 1}


def test_a_nested_object_names_its_undeclared_key() -> None:
    schema = {"type": "object", "properties": {"inner": SCHEMA}, "required": ["inner"]}
    tool = tool_from_schema({"name": "p", "description": "d", "parameters": schema}, lambda **kw: kw)
    with pytest.raises(ToolValidationError) as caught:
        tool.invoke({"inner": {"a": 1, "z": 2}})
    assert "'inner.z' is not an allowed field here (got 2)" in str(caught.value)
    assert "'inner.a'" not in str(caught.value)
