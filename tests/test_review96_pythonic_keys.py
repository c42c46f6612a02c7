"""Review 96 #2: a ``dict[int, str]`` in the embedded model's ``pythonic`` call format.

The model writes ``Bins(bins={3: 'North', 7: 'South'})``, a Python literal. The pythonic parser reads a dict key
written as an int, float, bool or None literal as the text JSON writes for it (``{"3": "North"}``, which validation
reads back as ints), and the pythonic grammar lets such a key be written bare where the key schema
(``propertyNames``) is the integer or number pattern or an enum of such texts; before, the parser refused the call
("must be a literal ... not an expression") and the grammar forced quoted keys, so the model closed the dict empty.
JSON formats keep quoted keys.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from test_grammar import Gbnf
from toolwire.models.dialects import parse_reply
from toolwire.models.grammar import call_grammar
from toolwire.parsing._scan import to_jsonable
from toolwire.parsing.pythonic import parse_pythonic
from toolwire.tools import ToolSpec

INT_KEYS = {"pattern": "^(?:0|-?[1-9][0-9]*)$"}  # how toolwire publishes the keys of a dict[int, X] (review 158 #4)
NUMBER_KEYS = {"pattern": "^-?[0-9]+(\\.[0-9]+)?([eE][-+]?[0-9]+)?$"}  # ... of a dict[float, X]


class Bins(BaseModel):
    """Map each bin number to its shelf name."""

    bins: dict[int, str]


def _spec(names: dict[str, Any]) -> ToolSpec:
    return ToolSpec("Bins", "Bins.", {"type": "object", "properties": {"bins": {
        "type": "object", "additionalProperties": {"type": "string"}, "propertyNames": names}},
        "required": ["bins"]})


BINS = _spec(INT_KEYS)


def _pythonic(spec: ToolSpec) -> Gbnf:
    return Gbnf(call_grammar([spec], "pythonic", parallel=False))


# ------------------------------------------------------------------------------------------------- the parser


def test_the_reviewers_call_reads_as_json_keys_and_validates_as_ints() -> None:
    reply = parse_pythonic("[Bins(bins={3: 'North', 7: 'South'})]", ["Bins"])
    assert reply.invalid_tool_calls == []
    assert reply.tool_calls[0]["args"] == {"bins": {"3": "North", "7": "South"}}
    assert Bins.model_validate(reply.tool_calls[0]["args"]) == Bins(bins={3: "North", 7: "South"})


@pytest.mark.parametrize(("written", "text"), [
    ("-12", "-12"), ("0", "0"), ("1.5", "1.5"), ("1e3", "1000.0"), ("True", "true"), ("False", "false"),
    ("None", "null"), ("'x'", "x"), ("0x1F", "31")])
def test_a_scalar_key_becomes_its_json_text(written: str, text: str) -> None:
    reply = parse_pythonic(f"[Bins(bins={{{written}: 'a'}})]", ["Bins"])
    assert reply.tool_calls[0]["args"] == {"bins": {text: "a"}}


def test_keys_nested_in_lists_and_dicts_too() -> None:
    reply = parse_pythonic("[f(x=[{1: {2: 'a'}}, ({-3: None},)])]", ["f"])
    assert reply.tool_calls[0]["args"] == {"x": [{"1": {"2": "a"}}, [{"-3": None}]]}


def test_a_single_call_outside_a_list_with_int_keys_is_a_call() -> None:
    reply = parse_pythonic("Sure: Bins(bins={3: 'North'})", ["Bins"])
    assert reply.tool_calls[0]["args"] == {"bins": {"3": "North"}}


@pytest.mark.parametrize(("value", "words"), [
    ("{(1, 2): 'a'}", "a key that is not a string, number, True, False or None ((1, 2))"),
    ("{3: 'a', '3': 'b'}", "two keys of the same text ('3')"),
    ("{frozenset(): 'a'}", "must be a literal"),  # an expression: never evaluated
    ("{x: 'a'}", "must be a literal"),
    ("{1, 2}", "a set value")])
def test_keys_json_cannot_hold_keep_a_clear_error(value: str, words: str) -> None:
    reply = parse_pythonic(f"[Bins(bins={value})]", ["Bins"])
    assert reply.tool_calls == []
    error = reply.invalid_tool_calls[0]["error"]
    assert words in error and "'bins'" in error, error
    assert ("not an expression" in error) == (words == "must be a literal"), error


def test_other_readers_of_python_literals_still_refuse_non_string_keys() -> None:
    # provider arguments written as a Python dict (normalize_arguments) keep their rule: keys are names
    with pytest.raises(ValueError, match="a key that is not a string"):
        to_jsonable({1: "a"})
    assert to_jsonable({1: "a"}, scalar_keys=True) == {"1": "a"}
    with pytest.raises(ValueError, match="not a string, number"):
        to_jsonable({float("inf"): "a"}, scalar_keys=True)


# ------------------------------------------------------------------------------------------------ the grammar


@pytest.mark.parametrize("bins", ["{3: \"North\", 7: \"South\"}", "{-12: \"a\"}", "{0: \"a\"}", "{\"3\": \"a\"}",
                                  "{3: \"a\", \"-4\": \"b\"}", "{}", "{123456789012345678901234: \"a\"}"])
def test_the_pythonic_grammar_takes_bare_integer_keys(bins: str) -> None:
    text = f"[Bins(bins={bins})]"
    assert _pythonic(BINS).accepts(text), text
    args = parse_reply(text, [BINS], "pythonic").tool_calls[0]["args"]
    Bins.model_validate(args)  # what the grammar allows reads back as a valid value


@pytest.mark.parametrize("bins", ["{07: \"a\"}", "{1.5: \"a\"}", "{abc: \"a\"}", "{\"abc\": \"a\"}", "{True: \"a\"}",
                                  "{None: \"a\"}", "{1234567890123456789012345: \"a\"}", "{3:\"a\"}", "{- 3: \"a\"}"])
def test_the_pythonic_grammar_refuses_other_keys(bins: str) -> None:
    assert not _pythonic(BINS).accepts(f"[Bins(bins={bins})]"), bins


@pytest.mark.parametrize("fmt", ["json", "hermes", "function_tag"])
def test_json_formats_keep_quoted_keys(fmt: str) -> None:
    grammar = call_grammar([BINS], fmt, parallel=False)
    keys = [line for line in grammar.splitlines() if line.startswith("bins-") and "-key ::=" in line]
    assert keys == [], keys  # the key is the quoted pattern string, as before
    call = '{"name": "Bins", "arguments": {"bins": {3: "a"}}}'
    assert not Gbnf(grammar).accepts(call if fmt == "json" else f"<tool_call>\n{call}\n</tool_call>")


def test_number_keys_may_be_bare_and_read_back_as_floats() -> None:
    spec = _spec(NUMBER_KEYS)
    for bins in ("{1.5: \"a\", -2: \"b\", 1e3: \"c\"}", "{\"2.5\": \"a\"}"):
        text = f"[Bins(bins={bins})]"
        assert _pythonic(spec).accepts(text), text
        args = parse_reply(text, [spec], "pythonic").tool_calls[0]["args"]
        assert all(float(k) == float(k) for k in args["bins"])  # texts of finite numbers, as validation reads them
    assert parse_reply("[Bins(bins={1e3: \"c\"})]", [spec], "pythonic").tool_calls[0]["args"] == {
        "bins": {"1000.0": "c"}}
    assert not _pythonic(spec).accepts("[Bins(bins={abc: \"a\"})]")


@pytest.mark.parametrize("names", [{"enum": ["1", "2"]}, {"enum": [1, 2], "type": "integer"}, {"const": "2"}])
def test_an_enum_of_integer_texts_may_be_bare(names: dict[str, Any]) -> None:
    grammar = _pythonic(_spec(names))
    assert grammar.accepts("[Bins(bins={2: \"a\"})]") and grammar.accepts("[Bins(bins={\"2\": \"a\"})]")
    assert not grammar.accepts("[Bins(bins={3: \"a\"})]") and not grammar.accepts("[Bins(bins={02: \"a\"})]")


def test_bool_and_null_key_texts_may_be_their_python_words() -> None:
    spec = _spec({"enum": ["true", "false", "null", "x", "007", "-0"]})
    grammar = _pythonic(spec)
    for key in ("True", "False", "None", "\"true\"", "\"x\"", "\"007\"", "\"-0\""):
        assert grammar.accepts(f"[Bins(bins={{{key}: \"a\"}})]"), key
    for key in ("x", "true", "007", "7", "-0"):  # bare only where the parser reads it back as the same text
        assert not grammar.accepts(f"[Bins(bins={{{key}: \"a\"}})]"), key
    args = parse_reply("[Bins(bins={True: \"a\", None: \"b\"})]", [spec], "pythonic").tool_calls[0]["args"]
    assert args == {"bins": {"true": "a", "null": "b"}}


def test_string_keys_and_unconstrained_dicts_are_as_before() -> None:
    for names in ({"pattern": "^[a-z]+$"}, {"enum": ["a", "b"]}, {"format": "uuid"}, {"pattern": "^[0-9]+$"}):
        grammar = _pythonic(_spec(names))
        assert not grammar.accepts("[Bins(bins={3: \"a\"})]"), names
    plain = ToolSpec("Bins", "Bins.", {"type": "object", "properties": {"bins": {"type": "object"}}})
    assert "pydict" in call_grammar([plain], "pythonic") and not _pythonic(plain).accepts("[Bins(bins={3: 1})]")


# ------------------------------------------------------------------------------------ llama.cpp reads the rules


def test_llama_cpp_parses_the_bare_key_rules(vocab: Any) -> None:
    llama_cpp, llm = vocab
    tools = [BINS, ToolSpec("Floats", "F.", _spec(NUMBER_KEYS).parameters),
             ToolSpec("Flags", "F.", _spec({"enum": ["true", "false", "1"]}).parameters)]
    text = call_grammar(tools, "pythonic")
    assert "| integer" in text and "| number" in text and '| "True"' in text
    grammar = llama_cpp.LlamaGrammar.from_string(text, verbose=False)
    sampler = llama_cpp.llama_sampler_init_grammar(llm._model.vocab, grammar._grammar.encode(), b"root")
    assert sampler, text
    llama_cpp.llama_sampler_free(sampler)


def test_union_number_keys_are_held_as_the_widest_number() -> None:
    """Review 131 #7: the keys of a ``dict[int | float, X]`` or ``dict[int | None, X]`` had a composite pattern the
    grammar did not know, so they were any string; they are the number's (or the integer's) text now."""
    from toolwire import tool

    @tool
    def weigh(by_size: dict[int | float, str], by_id: dict[int | None, str]) -> str:
        """Weigh."""
        return repr((by_size, by_id))

    props = weigh.parameters["properties"]
    assert props["by_size"]["propertyNames"] == NUMBER_KEYS
    assert props["by_id"]["propertyNames"] == INT_KEYS
    grammar = _pythonic(weigh.spec)
    assert grammar.accepts('[weigh(by_size={"2.5": "a", 3: "b"}, by_id={"7": "c"})]')
    assert not grammar.accepts('[weigh(by_size={"large": "a"}, by_id={})]')
    assert not grammar.accepts('[weigh(by_size={}, by_id={"2.5": "c"})]')
    assert weigh.invoke({"by_size": {"2.5": "a", "3": "b"}, "by_id": {"7": "c"}}) == "({2.5: 'a', 3: 'b'}, {7: 'c'})"
