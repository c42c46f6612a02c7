"""Review 126 #2: the call grammar bent a value the model meant into a different valid one, and no error said so.

``stars: int = Field(ge=1, le=5)``: the grammar wrote a range of at most 100 integers as one of its values, so a model
writing ``10`` (out of 10) had to close the number after ``1`` (``stars=1``, and an Agent's tool saved 1 star while
its answer said 10/10). ``due_date: date``: the grammar held the ISO form, so ``"15 May 2026"`` had to start with four
digits and became ``1520-05-01``. Both passed validation. Now no numeric bound is held (the sign rule neither:
``minimum: 0`` forbidding ``-`` bent ``-5`` into ``5``) and a ``date``/``date-time``/``time`` string is any text, so
the value reaches validation as written and is refused there: an error result for a tool, ``ToolCallParseError`` for
structured output. ``enum``/``Literal`` values are choices and stay held. None loads a model: :class:`test_grammar.Gbnf`
matches whole replies, and llama.cpp parses the grammars without a vocabulary.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

import pytest
from pydantic import BaseModel, Field

from test_grammar import Gbnf
from toolwire import tool
from toolwire.errors import ToolCallParseError
from toolwire.messages import AIMessage, tool_call
from toolwire.models.base import to_tool_spec
from toolwire.models.dialects import format_calls, parse_reply
from toolwire.models.grammar import FORMATS, call_grammar
from toolwire.models.structured import output_tool
from toolwire.testing import ScriptedChatModel


class Review(BaseModel):
    """A product review."""

    product: str
    sentiment: Literal["positive", "negative"]
    stars: int = Field(ge=1, le=5)


class Invoice(BaseModel):
    """An invoice."""

    number: str
    due_date: dt.date


@tool
def rate_product(product: str, stars: Annotated[int, Field(ge=1, le=5)]) -> str:
    """Save a rating.

    Args:
        product: the product
        stars: one to five stars
    """
    return f"Saved {stars} stars for {product}."


@tool
def move(steps: Annotated[int, Field(ge=0)], at: dt.datetime, start: dt.time) -> str:
    """Move.

    Args:
        steps: how many steps, not negative
        at: when
        start: the starting time
    """
    return f"{steps} {at.isoformat()} {start.isoformat()}"


REVIEW, INVOICE = output_tool(Review)[0], output_tool(Invoice)[0]
RATE, MOVE = to_tool_spec(rate_product), to_tool_spec(move)


def _reply(spec, args: dict, fmt: str) -> str:
    return format_calls([tool_call(spec.name, args, "c1")], fmt, [spec])


def _written(spec, args: dict, fmt: str) -> dict:
    """The arguments a reply of ``args`` reads back as, after checking the grammar lets the model write it."""
    text = _reply(spec, args, fmt)
    assert Gbnf(call_grammar([spec], fmt)).accepts(text), text
    (call,) = parse_reply(text, [spec], fmt).tool_calls
    return call["args"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_ten_stars_for_a_one_to_five_int_is_written_as_ten(fmt: str) -> None:
    args = {"product": "speakers", "sentiment": "positive", "stars": 10}
    assert _written(REVIEW, args, fmt) == args
    assert _written(REVIEW, {**args, "stars": 3}, fmt)["stars"] == 3  # in range: as before
    for stars in (0, -1, 6, 100, 123456):
        assert _written(REVIEW, {**args, "stars": stars}, fmt)["stars"] == stars
    grammar = call_grammar([REVIEW], fmt)
    assert '"1" | "2" | "3" | "4" | "5"' not in grammar  # no range rule is written


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_minus_sign_is_written_under_a_lower_bound_of_zero(fmt: str) -> None:
    """``minimum: 0`` once forbade ``-``, so a model writing ``-5`` could only go on with ``5``: a different valid
    value. The sign is left to validation like any bound."""
    args = {"steps": -5, "at": "2025-05-01T10:00:00", "start": "10:00:00"}
    assert _written(MOVE, args, fmt) == args
    result = move.invoke(tool_call("move", args, "c1"))
    assert result.status == "error" and "'steps':" in result.content and "greater than or equal to 0" in result.content


def test_the_tool_gets_its_validation_error_for_ten_stars() -> None:
    """The Agent repro: ``rate_product(stars=10)`` is an error result the model sees, not "Saved 1 stars"."""
    args = _written(RATE, {"product": "speakers", "stars": 10}, "pythonic")
    result = rate_product.invoke(tool_call("rate_product", args, "c1"))
    assert result.status == "error"
    assert "'stars':" in result.content and "less than or equal to 5" in result.content, result.content
    assert "Saved" not in result.content


def _structured(schema: type[BaseModel], args: dict):
    model = ScriptedChatModel([AIMessage("", tool_calls=[tool_call(schema.__name__, args, "c1")])])
    return model.with_structured_output(schema)


def test_structured_output_raises_for_ten_stars() -> None:
    args = _written(REVIEW, {"product": "speakers", "sentiment": "positive", "stars": 10}, "json")
    with pytest.raises(ToolCallParseError, match="stars"):
        _structured(Review, args).invoke("Great speakers. I give them 10 out of 10.")
    assert _structured(Review, {**args, "stars": 5}).invoke("x").stars == 5


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_human_date_is_written_as_meant_and_iso_still_passes(fmt: str) -> None:
    for due in ("15 May 2026", "tomorrow", "2026-05-15", "15/05/2026", ""):
        assert _written(INVOICE, {"number": "INV-2031", "due_date": due}, fmt)["due_date"] == due


def test_structured_output_raises_for_a_human_date() -> None:
    args = _written(INVOICE, {"number": "INV-2031", "due_date": "15 May 2026"}, "json")
    with pytest.raises(ToolCallParseError, match="due_date"):
        _structured(Invoice, args).invoke("Invoice INV-2031 is due on 15 May 2026.")
    assert _structured(Invoice, {**args, "due_date": "2026-05-15"}).invoke("x").due_date == dt.date(2026, 5, 15)


@pytest.mark.parametrize("fmt", FORMATS)
def test_pydantic_s_other_date_time_forms_are_not_cut(fmt: str) -> None:
    """The ISO rule required ``T`` and refused a time's offset, so ``2025-05-01 10:00`` had to close after the date
    (midnight) and ``10:00:00Z`` lost its ``Z``; pydantic takes both as written."""
    args = {"steps": 2, "at": "2025-05-01 10:00", "start": "10:00:00Z"}
    assert _written(MOVE, args, fmt) == args
    result = move.invoke(tool_call("move", args, "c1"))
    assert result.status == "success" and result.content == "2 2025-05-01T10:00:00 10:00:00+00:00"


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_literal_is_still_held(fmt: str) -> None:
    args = {"product": "speakers", "sentiment": "positive", "stars": 5}
    grammar = Gbnf(call_grammar([REVIEW], fmt))
    assert grammar.accepts(_reply(REVIEW, args, fmt))
    assert not grammar.accepts(_reply(REVIEW, {**args, "sentiment": "great"}, fmt))
    assert not grammar.accepts(_reply(REVIEW, {**args, "stars": 1.5}, fmt))  # an integer is still an integer


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("parallel", [True, False])
def test_llama_cpp_parses_the_grammars(fmt: str, parallel: bool) -> None:
    llama_cpp = pytest.importorskip("llama_cpp")
    text = call_grammar([REVIEW, INVOICE, RATE, MOVE], fmt, parallel=parallel)
    assert llama_cpp.LlamaGrammar.from_string(text, verbose=False) is not None
