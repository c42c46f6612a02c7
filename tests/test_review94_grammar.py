"""Review 94: the embedded model's grammar and the ``function_tag`` format.

#5 a dict's keys follow ``propertyNames`` (``enum``/``const``/``pattern``); #6 a ``function_tag`` call written by
``format_calls`` reads back as the same arguments, and what the grammar allows reads back as a valid value; #11 every
number the grammar allows is finite, in every format.
"""

from __future__ import annotations

import decimal
import enum
import math
import re
import uuid
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, Field

from test_grammar import Gbnf
from toolwire import tool
from toolwire._schema_keys import KEY_TEXT
from toolwire.errors import ToolValidationError
from toolwire.models._grammar_pattern import pattern_rule
from toolwire.models.base import to_tool_spec
from toolwire.models.dialects import format_calls, parse_reply
from toolwire.models.grammar import Rules, call_grammar
from toolwire.tools import ToolSpec

FORMATS = ("pythonic", "json", "hermes", "function_tag")


def _call(name: str, args: dict[str, Any], fmt: str) -> str:
    return format_calls([{"name": name, "args": args, "id": "c1", "type": "tool_call"}], fmt)


# ------------------------------------------------------------------------------------------- #11 exponents

SCALE = ToolSpec("scale", "Scale.", {"type": "object", "properties": {
    "factor": {"type": "number"}, "steps": {"type": "array", "items": {"type": "number"}}}, "required": ["factor"]})


@pytest.mark.parametrize("fmt", FORMATS)
def test_grammar_numbers_are_finite_in_every_format(fmt: str) -> None:
    grammar = Gbnf(call_grammar([SCALE], fmt, parallel=False))
    for number in ("1e999", "1e285", "9e300", "1.5E+999", "123456789012345678901234e285"):
        text = _call("scale", {"factor": 0.5}, fmt).replace("0.5", number)
        assert not grammar.accepts(text), text
    for number in ("1e284", "1.5e-300", "2E+99", "7e-999", "123456789012345678901234e284"):
        text = _call("scale", {"factor": 0.5}, fmt).replace("0.5", number)
        assert grammar.accepts(text), text
        args = parse_reply(text, [SCALE], fmt).tool_calls[0]["args"]
        assert math.isfinite(args["factor"])
    # a list[float]'s elements too
    text = _call("scale", {"factor": 1, "steps": [0.5]}, fmt)
    assert grammar.accepts(text)
    assert not grammar.accepts(text.replace("0.5", "1e999"))


# ------------------------------------------------------------------------------------- #6 function_tag values


class Level(enum.Enum):
    ONE = 1
    AUTO = "auto"


class Lookup(BaseModel):
    email: str


@tool
def set_level(level: Literal["auto", 1, 2] | None = None, mode: Level | None = None,
              either: Level | list[int] = 1) -> str:
    """Set the level.

    Args:
        level: "auto" or a level number
        mode: a mode
        either: a mode or numbers
    """
    return repr((level, mode, either))


@tool
def find_user(who: uuid.UUID | Lookup) -> str:
    """Find a user by id or by email.

    Args:
        who: the user's id, or {"email": ...}
    """
    return repr(who)


@pytest.mark.parametrize(("t", "args"), [
    (set_level, {"level": 1}), (set_level, {"level": "auto"}), (set_level, {"level": None}),
    (set_level, {"mode": 1}), (set_level, {"mode": "auto"}), (set_level, {"either": 1}),
    (set_level, {"either": [1, 2]}), (find_user, {"who": {"email": "a@b.c"}}),
    (find_user, {"who": "12345678-1234-5678-1234-567812345678"}),
])
def test_function_tag_calls_round_trip(t: Any, args: dict[str, Any]) -> None:
    text = _call(t.name, args, "function_tag")
    assert Gbnf(call_grammar([t.spec], "function_tag", parallel=False)).accepts(text), text
    call = parse_reply(text, [t.spec], "function_tag").tool_calls[0]
    assert call["args"] == args and [type(v) for v in call["args"].values()] == [type(v) for v in args.values()]
    assert t.invoke({**call, "id": "c1"}).status == "success"


def test_function_tag_grammar_enum_values_read_back_as_themselves() -> None:
    # "1" and 1 are written alike; the parser reads the text as the number, so it is written once
    spec = ToolSpec("pick", "Pick.", {"type": "object", "properties": {
        "x": {"anyOf": [{"enum": ["1", "a"]}, {"enum": [1]}]}}, "required": ["x"]})
    grammar = call_grammar([spec], "function_tag", parallel=False)
    enums = [line for line in grammar.splitlines() if "-enum ::=" in line]
    assert enums == ['pick-x-0-enum ::= "a"', 'pick-x-1-enum ::= "1"'], enums
    text = _call("pick", {"x": 1}, "function_tag")
    assert parse_reply(text, [spec], "function_tag").tool_calls[0]["args"] == {"x": 1}


# ------------------------------------------------------------------------------------ #5 dict keys


def _dict_tool(names: dict[str, Any]) -> ToolSpec:
    return ToolSpec("weights", "Weights.", {"type": "object", "properties": {
        "w": {"type": "object", "additionalProperties": {"type": "integer"}, "propertyNames": names}},
        "required": ["w"]})


def _accepts(spec: ToolSpec, fmt: str, w: dict[str, Any]) -> bool:
    return Gbnf(call_grammar([spec], fmt, parallel=False)).accepts(_call(spec.name, {"w": w}, fmt))


@pytest.mark.parametrize("fmt", FORMATS)
def test_dict_keys_follow_a_property_names_pattern(fmt: str) -> None:
    spec = _dict_tool(dict(KEY_TEXT["integer"]))  # how int keys are published (canonical since review 158 #4)
    assert _accepts(spec, fmt, {"5": 1, "-12": 2, "0": 3})
    assert not _accepts(spec, fmt, {"07": 1})
    assert not _accepts(spec, fmt, {"abc": 1})
    assert not _accepts(spec, fmt, {"1.5": 1})
    # a pattern the grammar cannot follow leaves any key, as before
    assert _accepts(_dict_tool({"pattern": "^.+$"}), fmt, {"abc": 1})
    assert _accepts(_dict_tool({"pattern": "[0-9]"}), fmt, {"abc": 1})


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("names", [{"enum": ["1", "2"]}, {"enum": [1, 2], "type": "integer"}])
def test_dict_keys_follow_a_property_names_enum(fmt: str, names: dict[str, Any]) -> None:
    spec = _dict_tool(names)
    assert _accepts(spec, fmt, {"1": 5, "2": 6})
    assert not _accepts(spec, fmt, {"3": 5})
    assert not _accepts(spec, fmt, {"one": 5})


@pytest.mark.parametrize("fmt", FORMATS)
def test_dict_keys_follow_a_property_names_const(fmt: str) -> None:
    spec = _dict_tool({"const": "only"})
    assert _accepts(spec, fmt, {"only": 1})
    assert not _accepts(spec, fmt, {"other": 1})


_PATTERNS = ["^-?[0-9]+$", r"^\d{3}-\d{2,4}$", "^(?:ab|cd)+x?$", "^[a-z_-]+$", r"^\w+\.txt$", "^(a|b)*c{2,}$",
             "^[A-F0-9]{2}(:[A-F0-9]{2}){0,3}$"]
_SAMPLES = ["", "0", "-5", "12", "--1", "123-45", "123-456789", "abab", "abcdx", "abx", "a_b-c", "A", "x.txt",
            "a.txt", "report_1.txt", "c", "cc", "abacc", "bcc", "0A:FF", "0A:FF:12:34:56", "0a", "ab:cd"]


@pytest.mark.parametrize("pattern", _PATTERNS)
def test_pattern_rule_matches_what_the_regex_matches(pattern: str) -> None:
    rules = Rules("json")
    name = pattern_rule(pattern, rules)
    assert name is not None
    grammar = Gbnf(rules.text(name))
    for text in _SAMPLES:
        assert grammar.accepts(text) == (re.fullmatch(pattern[1:-1], text) is not None), (pattern, text)


@pytest.mark.parametrize("pattern", ["abc", "^abc", "^.+$", "^a|b$", "^[^a]+$", r"^\s+$", r"^(?=a)a$", r'^"$',
                                     "^<x$", r"^\D$", r"^a{1,999}$", r"^a\$", "^(a+)+$", "^(a*){2,}$",
                                     "^[ -~]+$", "^[!-#]$", "^[;-=]+$"])  # (ranges holding '"', '<': review 95)
def test_pattern_rule_gives_up_outside_its_subset(pattern: str) -> None:
    assert pattern_rule(pattern, Rules("json")) is None


# ------------------------------------------------------------------------ #10 a string's simple pattern (Decimal)

AMOUNT = ToolSpec("pay", "Pay.", {"type": "object", "properties": {
    "amount": {"anyOf": [{"type": "number", "minimum": 0}, {"type": "string", "pattern": r"^-?[0-9]+(\.[0-9]+)?$"}]},
    "code": {"type": "string", "pattern": "^[A-Z]{3}$"}}, "required": ["amount"]})


@tool
def pay_exact(amount: decimal.Decimal, fee: Annotated[decimal.Decimal, Field(ge=0)],
              code: Annotated[str, Field(pattern="^[A-Z]{3}$")] = "EUR") -> str:
    """Pay."""
    return f"{amount} {fee} {code}"


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_decimal_s_text_is_held_to_a_number_and_other_patterns_are_not(fmt: str) -> None:
    """Review 94 #10 held a Decimal's string branch to a number's text (a type, as an ``int`` is held to digits);
    review 128 #7: every other pattern is a constraint on the value, left to validation, since holding it bent what
    the model meant (``"eur"`` became ``"EUR"``, ``"1234"`` for five digits gained a fifth)."""
    spec = to_tool_spec(pay_exact)
    grammar = Gbnf(call_grammar([spec], fmt, parallel=False))
    assert grammar.accepts(_call("pay_exact", {"amount": "12.50", "fee": "1", "code": "EUR"}, fmt))
    assert grammar.accepts(_call("pay_exact", {"amount": 3, "fee": 0}, fmt))
    assert not grammar.accepts(_call("pay_exact", {"amount": "ten", "fee": 0}, fmt))
    assert grammar.accepts(_call("pay_exact", {"amount": 1, "fee": 0, "code": "eur"}, fmt))  # validation refuses it
    with pytest.raises(ToolValidationError, match="'code':"):
        pay_exact.call_args({"amount": 1, "fee": 0, "code": "eur"})
    # the Decimal with ge=0 writes no minus sign in its pattern; the grammar holds the type (any sign), and
    # validation the bound, as for the number branch
    assert grammar.accepts(_call("pay_exact", {"amount": 1, "fee": "-1.5"}, fmt))
    with pytest.raises(ToolValidationError, match="'fee':"):
        pay_exact.call_args({"amount": 1, "fee": "-1.5"})
    # a hand-written pattern, numeric or not, is not held
    grammar = Gbnf(call_grammar([AMOUNT], fmt, parallel=False))
    assert grammar.accepts(_call("pay", {"amount": "ten", "code": "eur"}, fmt))


@pytest.mark.parametrize("fmt", FORMATS)
def test_llama_cpp_parses_the_new_rules(vocab: Any, fmt: str) -> None:
    llama_cpp, llm = vocab
    tools = [AMOUNT, SCALE, _dict_tool({"pattern": r"^[a-z_-]+(?:\.[a-z]{2,3})?$"}), set_level.spec, find_user.spec]
    text = call_grammar(tools, fmt)
    grammar = llama_cpp.LlamaGrammar.from_string(text, verbose=False)
    sampler = llama_cpp.llama_sampler_init_grammar(llm._model.vocab, grammar._grammar.encode(), b"root")
    assert sampler, text
    llama_cpp.llama_sampler_free(sampler)
