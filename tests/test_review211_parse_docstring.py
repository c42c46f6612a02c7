"""@tool(parse_docstring=...) takes only True or False, as the other yes/no options do (review 211 #3)."""

from __future__ import annotations

import pytest

from toolwire import tool
from toolwire.errors import SchemaError


def _lookup(order_id: str) -> str:
    """Look an order up.

    Args:
        order_id: the order's id.
    """
    return order_id


@pytest.mark.parametrize("value", ["false", "no", 0.0, None])
def test_a_value_that_is_not_a_bool_is_refused(value: object) -> None:
    with pytest.raises(SchemaError, match=r"parse_docstring must be True or False, not"):
        tool(_lookup, parse_docstring=value)


@pytest.mark.parametrize(("value", "described"), [(True, True), (False, False)])
def test_true_and_false_work(value: bool, described: bool) -> None:
    schema = tool(_lookup, parse_docstring=value).parameters["properties"]["order_id"]
    assert ("description" in schema) is described
