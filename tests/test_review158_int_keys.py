"""Review 158 #4: a ``dict[int, X]`` publishes a pattern of canonical integers only (no leading zero, no ``-0``), and
two keys that read back as the same key are a validation error naming them, not one value silently dropped."""

from __future__ import annotations

import enum
import re
from typing import Literal

import jsonschema

from toolwire import tool
from toolwire._schema_keys import KEY_TEXT


class Size(enum.IntEnum):
    """A size."""

    S = 1
    M = 2


@tool
def set_prices(prices: dict[int, float]) -> str:
    """Set the price of each product id.

    Args:
        prices: price by product id
    """
    return repr(prices)


@tool
def weigh(by_float: dict[float, int] | None = None, by_size: dict[Size, int] | None = None,
          by_lit: dict[Literal[1, 2], int] | None = None, by_name: dict[str, int] | None = None) -> str:
    """Weigh things.

    Args:
        by_float: by a float key
        by_size: by size
        by_lit: by a literal key
        by_name: by name
    """
    return repr((by_float, by_size, by_lit, by_name))


def _call(t: object, args: dict[str, object]) -> object:
    return t.invoke({"id": "c1", "name": t.name, "args": args, "type": "tool_call"})  # type: ignore[attr-defined]


def test_int_key_pattern_is_canonical():
    pattern = set_prices.parameters["properties"]["prices"]["propertyNames"]["pattern"]
    assert pattern == KEY_TEXT["integer"]["pattern"]
    for good in ("0", "7", "-7", "10", "-120", "123456789012345678901234567890"):
        assert re.fullmatch(pattern.strip("^$"), good), good
    for bad in ("07", "-0", "00", "-07", "+7", "", "-", "1.0", "1e3", " 7"):
        assert not re.search(pattern, bad), bad
    validator = jsonschema.Draft202012Validator(set_prices.parameters)
    assert validator.is_valid({"prices": {"7": 1.5, "-3": 2.0, "0": 1.0}})
    assert not validator.is_valid({"prices": {"07": 1.5}})


def test_two_texts_of_one_int_key_are_an_error_naming_them():
    result = _call(set_prices, {"prices": {"7": 1.5, "07": 99.0}})
    assert result.status == "error"  # type: ignore[attr-defined]
    assert "Keys '7' and '07' are the same key 7: give each key once." in result.content  # type: ignore[attr-defined]
    result = _call(set_prices, {"prices": {"0": 2.0, "-0": 3.0}})
    assert result.status == "error" and "Keys '0' and '-0'" in result.content  # type: ignore[attr-defined]


def test_distinct_keys_still_work_and_lenient_texts_are_read():
    result = _call(set_prices, {"prices": {"7": 1.5, "-3": 2.0, "0": 1.0}})
    assert result.content == "{7: 1.5, -3: 2.0, 0: 1.0}"  # type: ignore[attr-defined]
    assert _call(set_prices, {"prices": {"07": 1.5}}).content == "{7: 1.5}"  # type: ignore[attr-defined]
    assert _call(set_prices, {"prices": {}}).content == "{}"  # type: ignore[attr-defined]


def test_other_keys_read_from_text_refuse_two_texts_of_one_key():
    for args, names in (({"by_float": {"1": 1, "1.0": 2}}, "'1' and '1.0'"),
                        ({"by_size": {"1": 1, "01": 2}}, "'1' and '01'")):
        result = _call(weigh, args)
        assert result.status == "error" and f"Keys {names} are the same key" in result.content, args  # type: ignore
    ok = _call(weigh, {"by_lit": {"1": 3, "2": 4}, "by_name": {"a": 1, "A": 2}, "by_size": {"1": 5, "2": 6}})
    assert ok.status == "success", ok.content  # type: ignore[attr-defined]


def test_a_dict_inside_a_model_or_list_refuses_two_texts_of_one_key():
    from pydantic import BaseModel

    class Shelf(BaseModel):
        """A shelf."""

        slots: dict[int, str]

    @tool
    def stock(shelves: list[Shelf]) -> str:
        """Stock shelves.

        Args:
            shelves: the shelves
        """
        return repr(shelves)

    result = _call(stock, {"shelves": [{"slots": {"1": "a"}}, {"slots": {"1": "a", "001": "b"}}]})
    assert result.status == "error" and "'shelves.1.slots'" in result.content  # type: ignore[attr-defined]
    assert "Keys '1' and '001' are the same key 1" in result.content  # type: ignore[attr-defined]
    ok = _call(stock, {"shelves": [{"slots": {"1": "a", "2": "b"}}]})
    assert ok.content == "[Shelf(slots={1: 'a', 2: 'b'})]"  # type: ignore[attr-defined]
