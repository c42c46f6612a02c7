"""Review 71: the call grammar follows ``prefixItems`` (tuples), ``additionalProperties`` given as a schema (typed
dicts) and the sign of bounded numbers. None loads a model: :class:`test_grammar.Gbnf` matches whole replies, and
llama.cpp parses the grammars and runs its own grammar engine with the tiny model's vocabulary only.

1. ``tuple[int, str]`` (``prefixItems`` with ``minItems``/``maxItems`` 2) took ``["value", "value"]``: now exactly
   ``[1, "a"]``, in the pythonic and the JSON formats (a list in both, as the pythonic format writes tuples).
2. ``dict[str, int]`` (``additionalProperties: {"type": "integer"}``) took any object, and the model wrote a JSON
   Schema as the value until ``max_tokens``: now string keys and integer values only.
3. Number bounds: review 71 held some of them (``minimum >= 0`` forbade ``-``, a small range was one of its values,
   an upper bound capped the digits); review 126 #2 found that this bent a value the model meant into a different
   valid one with no error (``10`` for ``Field(ge=1, le=5)`` became ``1``), so now no bound is held: every integer
   and number is written as meant and the tool's validation refuses one past a bound. An integer is still an
   integer (``1.5`` is refused) and a ``list[float]``'s elements are still floats.
"""

from __future__ import annotations

from typing import Annotated, Literal

import pytest
from pydantic import Field

from test_grammar import Gbnf
from toolwire import tool
from toolwire.messages import tool_call
from toolwire.models.base import to_tool_spec
from toolwire.models.dialects import format_calls, parse_reply
from toolwire.models.grammar import Rules, call_grammar, value_rule
from toolwire.tools import ToolSpec


@tool
def pair_up(pair: tuple[int, str]) -> str:
    """Pair a number and a name.

    Args:
        pair: the number and the name
    """
    return f"{pair[0]}:{pair[1]}"


@tool
def tally(counts: dict[str, int]) -> int:
    """Add up counts.

    Args:
        counts: how many of each thing
    """
    return sum(counts.values())


@tool
def pick(page: Annotated[int, Field(gt=0)], offset: Annotated[int, Field(ge=0)],
         stars: Annotated[int, Field(ge=1, le=5)], limit: Annotated[int, Field(ge=1, le=1000)], delta: int,
         weight: Annotated[float, Field(ge=0)]) -> str:
    """Pick a page.

    Args:
        page: the page, from 1
        offset: the offset, from 0
        stars: one to five stars
        limit: how many, at most 1000
        delta: any integer
        weight: a weight, not negative
    """
    return "ok"


PAIR, TALLY, PICK = to_tool_spec(pair_up), to_tool_spec(tally), to_tool_spec(pick)


def _reply(fmt: str, name: str, args: str) -> str:
    """A one-call reply of ``name`` whose arguments are written ``args`` (``k=v, ...`` pythonic, a JSON object
    otherwise)."""
    if fmt == "pythonic":
        return f"[{name}({args})]"
    return f'{{"name": "{name}", "arguments": {args}}}'


def _value(schema: dict, style: str = "json") -> Gbnf:
    """The grammar of one value of ``schema`` (JSON, or with ``style="py"`` Python literals)."""
    rules = Rules(style)
    return Gbnf(rules.text(value_rule(schema, rules)))


# -- 1: tuples ----------------------------------------------------------------------------------------------------


def test_pydantic_writes_a_tuple_with_prefix_items() -> None:
    assert {k: v for k, v in PAIR.parameters["properties"]["pair"].items() if k != "description"} == {
        "maxItems": 2, "minItems": 2, "prefixItems": [{"type": "integer"}, {"type": "string"}], "type": "array"}


@pytest.mark.parametrize(("fmt", "key"), [("pythonic", "pair="), ("json", '{"pair": ')])
def test_a_tuple_takes_its_items_by_position(fmt: str, key: str) -> None:
    grammar = Gbnf(call_grammar([PAIR], fmt))
    close = "" if fmt == "pythonic" else "}"
    ok = ['[1, "a"]', '[-7, ""]'] + (['[ 1,  "a" ]'] if fmt == "json" else [])
    bad = ['["value", "value"]', '["a", 1]', '[1]', '[1, "a", 2]', '[]', '[1.5, "a"]', '(1, "a")']
    for text in ok:
        assert grammar.accepts(_reply(fmt, "pair_up", key + text + close)), text
    for text in bad:
        assert not grammar.accepts(_reply(fmt, "pair_up", key + text + close)), text


@pytest.mark.parametrize("fmt", ["pythonic", "json", "hermes"])
def test_a_tuple_as_the_history_writes_it_passes_the_grammar_and_the_tool(fmt: str) -> None:
    call = {"name": "pair_up", "args": {"pair": [3, "x"]}, "id": "1", "type": "tool_call"}
    text = format_calls([call], fmt, [PAIR])
    assert Gbnf(call_grammar([PAIR], fmt)).accepts(text), text
    args = parse_reply(text, [PAIR], fmt).tool_calls[0]["args"]
    assert pair_up.invoke(args) == "3:x"


@pytest.mark.parametrize("style", ["json", "py"])
def test_prefix_items_follow_json_schema(style: str) -> None:
    sep = ", "
    # no bounds: any prefix of the positions, then any further values (items absent: anything)
    free = _value({"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}]}, style)
    for text in ("[]", "[1]", '[1, "a"]', '[1, "a", "b", 2]'):
        assert free.accepts(text.replace(", ", sep)), text
    assert not free.accepts('["a"]') and not free.accepts("[1, 2]")
    # items false: nothing past the positions; items a schema: past them, only its values
    closed = _value({"type": "array", "prefixItems": [{"type": "integer"}], "items": False}, style)
    assert closed.accepts("[]") and closed.accepts("[1]") and not closed.accepts("[1, 2]")
    typed = _value({"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "integer"},
                    "minItems": 2, "maxItems": 3}, style)
    assert typed.accepts('["a", 1]') and typed.accepts('["a", 1, 2]')
    # how many values go past the positions is a count, not held (review 131 #4): validation refuses these
    assert typed.accepts('["a"]') and typed.accepts('["a", 1, 2, 3]')
    for text in ('["a", "b"]', "[1, 2]"):
        assert not typed.accepts(text), text
    # maxItems below the number of positions cuts them; minItems inside them makes the first ones required
    cut = _value({"type": "array", "prefixItems": [{"type": "integer"}] * 3, "minItems": 1, "maxItems": 2}, style)
    assert cut.accepts("[1]") and cut.accepts("[1, 2]")
    assert not cut.accepts("[]") and not cut.accepts("[1, 2, 3]")
    # draft 7 wrote a tuple as items: [...] with additionalItems
    draft7 = _value({"type": "array", "items": [{"type": "integer"}, {"type": "boolean"}],
                     "additionalItems": False}, style)
    true = "True" if style == "py" else "true"
    assert draft7.accepts(f"[1, {true}]") and not draft7.accepts(f"[{true}, 1]")
    assert not draft7.accepts(f"[1, {true}, 2]")


def test_an_optional_tuple_of_floats() -> None:
    @tool
    def span(bounds: tuple[float, float] | None = None) -> str:
        """A span."""
        return str(bounds)

    spec = to_tool_spec(span)
    assert Gbnf(call_grammar([spec], "pythonic")).accepts("[span(bounds=[1.5, 2])]")
    assert Gbnf(call_grammar([spec], "pythonic")).accepts("[span(bounds=None)]")
    assert not Gbnf(call_grammar([spec], "pythonic")).accepts('[span(bounds=[1.5, "2"])]')
    assert not Gbnf(call_grammar([spec], "json")).accepts('{"name": "span", "arguments": {"bounds": [1.5]}}')


# -- 2: typed dicts ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("fmt", "key"), [("pythonic", "counts="), ("json", '{"counts": ')])
def test_a_dict_takes_values_of_its_schema(fmt: str, key: str) -> None:
    grammar = Gbnf(call_grammar([TALLY], fmt))
    close = "" if fmt == "pythonic" else "}"
    ok = ["{}", '{"a": 1}', '{"a": 1, "b c": -2}']
    bad = ['{"type": "integer", "prefixItems": []}',  # what the model wrote, a JSON Schema as the value
           '{"a": "1"}', '{"a": 1.5}', '{"a": None}' if fmt == "pythonic" else '{"a": null}', '{1: 2}', "[]"]
    for text in ok:
        assert grammar.accepts(_reply(fmt, "tally", key + text + close)), text
    for text in bad:
        assert not grammar.accepts(_reply(fmt, "tally", key + text + close)), text


@pytest.mark.parametrize("fmt", ["pythonic", "json", "hermes", "function_tag"])
def test_a_dict_as_the_history_writes_it_passes_the_grammar_and_the_tool(fmt: str) -> None:
    call = {"name": "tally", "args": {"counts": {"apples": 2, "pears": 3}}, "id": "1", "type": "tool_call"}
    text = format_calls([call], fmt, [TALLY])
    assert Gbnf(call_grammar([TALLY], fmt)).accepts(text), text
    args = parse_reply(text, [TALLY], fmt).tool_calls[0]["args"]
    assert tally.invoke(args) == 5


@pytest.mark.parametrize("style", ["json", "py"])
def test_dict_keys_counts_and_closed_objects(style: str) -> None:
    none = "None" if style == "py" else "null"
    keyed = _value({"type": "object", "additionalProperties": {"type": "number"},
                    "propertyNames": {"enum": ["a", "b"]}}, style)
    assert keyed.accepts('{"a": 1, "b": 2.5}') and not keyed.accepts('{"c": 1}')
    ids = _value({"type": "object", "additionalProperties": {"type": "integer"}, "propertyNames": {"format": "uuid"}},
                 style)
    # review 128 #7: a key's format and a dict's counts are constraints on the value, left to validation
    assert ids.accepts('{"123e4567-e89b-12d3-a456-426614174000": 1}') and ids.accepts('{"x": 1}')
    assert not ids.accepts('{"x": "1"}')  # the values' type is still held
    counted = _value({"type": "object", "additionalProperties": {"type": "null"}, "minProperties": 1,
                      "maxProperties": 2}, style)
    assert counted.accepts(f'{{"a": {none}}}') and counted.accepts(f'{{"a": {none}, "b": {none}}}')
    assert counted.accepts("{}") and counted.accepts(f'{{"a": {none}, "b": {none}, "c": {none}}}')
    assert not counted.accepts('{"a": 1}')
    # additionalProperties false without properties: only {}; with patternProperties (keys of their own
    # schemas) or nothing said: any object, as before
    assert _value({"type": "object", "additionalProperties": False}, style).accepts("{}")
    assert not _value({"type": "object", "additionalProperties": False}, style).accepts('{"a": 1}')
    for schema in ({"type": "object"}, {"type": "object", "additionalProperties": True},
                   {"type": "object", "patternProperties": {"^x": {"type": "integer"}}}):
        assert _value(schema, style).accepts('{"a": "b", "x": [1]}'), schema


def test_a_dict_of_literal_keys_takes_only_those_keys() -> None:
    @tool
    def mix(shares: dict[Literal["red", "blue"], float]) -> str:
        """Mix colours."""
        return str(shares)

    grammar = Gbnf(call_grammar([to_tool_spec(mix)], "pythonic"))
    assert grammar.accepts('[mix(shares={"red": 0.5, "blue": 1})]')
    assert not grammar.accepts('[mix(shares={"green": 0.5})]')


def test_a_tool_without_parameters_still_takes_only_empty_arguments() -> None:
    spec = ToolSpec("kw", "", {"type": "object", "additionalProperties": {"type": "integer"}})
    assert Gbnf(call_grammar([spec], "json")).accepts('{"name": "kw", "arguments": {}}')
    assert not Gbnf(call_grammar([spec], "json")).accepts('{"name": "kw", "arguments": {"a": 1}}')
    assert Gbnf(call_grammar([spec], "pythonic")).accepts("[kw()]")


# -- 3: bounds left to validation (review 126 #2) ----------------------------------------------------------------------

_PICK_OK = {"page": "1", "offset": "0", "stars": "5", "limit": "1000", "delta": "-3", "weight": "0.5"}


def _pick(fmt: str, **changes: str) -> str:
    args = {**_PICK_OK, **changes}
    if fmt == "pythonic":
        return _reply(fmt, "pick", ", ".join(f"{k}={v}" for k, v in args.items()))
    return _reply(fmt, "pick", "{" + ", ".join(f'"{k}": {v}' for k, v in args.items()) + "}")


@pytest.mark.parametrize("fmt", ["pythonic", "json", "hermes"])
def test_bounded_integers_and_numbers(fmt: str) -> None:
    grammar = Gbnf(call_grammar([PICK], fmt))
    wrap = (lambda t: f"<tool_call>\n{t}\n</tool_call>") if fmt == "hermes" else (lambda t: t)
    base = "json" if fmt == "hermes" else fmt
    assert grammar.accepts(wrap(_pick(base)))
    ok = [{"page": "7"}, {"offset": "12"}, {"stars": "1"}, {"limit": "999"}, {"delta": "0"}, {"weight": "0"},
          {"weight": "2e-3"}]
    # past a bound: written as meant (review 126 #2; review 71's grammar refused them, bending the value), and
    # refused by the tool's validation
    past = [{"page": "0"}, {"page": "-1"}, {"offset": "-1"}, {"stars": "0"}, {"stars": "6"}, {"stars": "10"},
            {"stars": "-1"}, {"limit": "10000"}, {"limit": "1001"}, {"limit": "0"}, {"weight": "-0.5"}]
    for changes in ok + past:
        assert grammar.accepts(wrap(_pick(base, **changes))), changes
    assert not grammar.accepts(wrap(_pick(base, delta="1.5")))  # an integer is still an integer
    for changes in past:
        args = {k: float(v) if k == "weight" else int(v) for k, v in {**_PICK_OK, **changes}.items()}
        result = pick.invoke(tool_call("pick", args, "c1"))
        assert result.status == "error" and f"'{next(iter(changes))}':" in result.content, (changes, result.content)


@pytest.mark.parametrize("style", ["json", "py"])
def test_bounds_read_every_way_json_schema_writes_them(style: str) -> None:
    def takes(schema: dict, *texts: str) -> list[bool]:
        grammar = _value(schema, style)
        return [grammar.accepts(t) for t in texts]

    # review 126 #2: every way of writing a bound leaves every integer and number to validation (review 71 held
    # them: the first six lines refused "0", "-1", "-3"/"3", "0"/"5", "1" and "-3")
    assert takes({"type": "integer", "exclusiveMinimum": 0}, "0", "1") == [True, True]
    assert takes({"type": "integer", "minimum": 0, "exclusiveMinimum": True}, "0", "1") == [True, True]  # draft 4
    assert takes({"type": "integer", "minimum": -0.5}, "0", "-1") == [True, True]
    assert takes({"type": "integer", "minimum": -2, "maximum": 2}, "-2", "2", "-3", "3") == [True, True, True, True]
    assert takes({"type": "integer", "maximum": -1}, "-5", "0", "5") == [True, True, True]
    assert takes({"type": "integer", "exclusiveMaximum": 1}, "0", "-5", "1") == [True, True, True]
    assert takes({"type": "integer", "minimum": 5, "maximum": 1}, "3", "-3") == [True, True]
    assert takes({"type": "integer", "minimum": -10}, "-500", "7", "1.5") == [True, True, False]
    assert takes({"type": "number", "exclusiveMinimum": 0}, "0.5", "-0.5") == [True, True]
    assert takes({"type": "number", "minimum": -1}, "-0.5") == [True]
    assert takes({"type": ["integer", "null"], "minimum": 0}, "3", "-3", "null" if style == "json" else "None") == [
        True, True, True]
    floats = {"type": "array", "items": {"type": "number", "minimum": 0}}
    assert takes(floats, "[1.0, 2.5]", "[1.0, -2.5]", "[1, 2]") == [True, True, False]  # still floats


# -- llama.cpp ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["pythonic", "json", "hermes", "function_tag"])
def test_llama_cpp_parses_the_grammars(vocab, fmt: str) -> None:
    llama_cpp, llm = vocab
    text = call_grammar([PAIR, TALLY, PICK], fmt)
    grammar = llama_cpp.LlamaGrammar.from_string(text, verbose=False)
    sampler = llama_cpp.llama_sampler_init_grammar(llm._model.vocab, grammar._grammar.encode(), b"root")
    assert sampler, text
    llama_cpp.llama_sampler_free(sampler)


@pytest.mark.parametrize("fmt", ["pythonic", "json"])
def test_llama_cpp_s_own_grammar_engine_takes_the_tuple_and_the_dict(vocab, fmt: str) -> None:
    """The tokens of each reply, fed to llama.cpp's grammar sampler one by one (no weights: vocabulary only)."""
    from toolwire.models._decoding import GrammarSampler

    llama_cpp, llm = vocab
    sampler = GrammarSampler(llama_cpp, llm._model.vocab, call_grammar([PAIR, TALLY, PICK], fmt))
    pair, counts = ("pair=", "counts=") if fmt == "pythonic" else ('{"pair": ', '{"counts": ')
    close = "" if fmt == "pythonic" else "}"
    cases = [(_reply(fmt, "pair_up", pair + '[1, "a"]' + close), True),
             (_reply(fmt, "pair_up", pair + '["value", "value"]' + close), False),
             (_reply(fmt, "tally", counts + '{"a": 1}' + close), True),
             (_reply(fmt, "tally", counts + '{"type": "integer"}' + close), False),
             (_pick(fmt), True), (_pick(fmt, page="-1"), True),  # review 126 #2: bounds left to validation
             (_pick(fmt, stars="10"), True), (_pick(fmt, delta="1.5"), False)]
    try:
        for text, taken in cases:
            sampler.reset()
            tokens = llm.tokenize(text.encode(), add_bos=False, special=False)
            assert sampler.accepts(tokens) is taken, text
    finally:
        sampler.close()


@pytest.mark.parametrize("fmt", ["pythonic", "json"])
def test_the_prompts_example_call_of_a_tuple_is_one_the_grammar_takes(fmt: str) -> None:
    from toolwire.models._tool_text import _example_call

    call = _example_call(PAIR)
    assert call["args"] == {"pair": [1, "value"]}  # (was ["value", "value"], which the grammar refuses)
    assert Gbnf(call_grammar([PAIR], fmt)).accepts(format_calls([call], fmt, [PAIR]))
