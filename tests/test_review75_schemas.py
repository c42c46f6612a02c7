"""Faults a security-minded review (review 75) found in tool schemas, each kept fixed by a test here: regular
expressions of a JSON Schema tool searched with Python's backtracking ``re`` (A), ``$ref`` bombs (B), recursive
TypedDicts (C) and ``Literal[1, True]`` (D). The deep-nesting findings are in ``tests/test_review75_depth.py``."""

from __future__ import annotations

import typing
import warnings
from typing import Annotated, Any

import jsonschema
import pytest
import typing_extensions
from pydantic import BaseModel

from toolwire import AIMessage, ToolExecutor
from toolwire.errors import ToolDefinitionWarning
from toolwire.interop import tool_from_schema


def _save(**kwargs: Any) -> str:
    return "saved"


def _call(t: Any, args: dict[str, Any]) -> Any:
    return t.invoke({"type": "tool_call", "id": "c1", "name": t.name, "args": args})


@pytest.fixture
def no_backtracking(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make jsonschema's own regex searches (``re.search`` in its keyword modules) fail the test at once, so a
    validation that still reaches them is caught without waiting for the exponential search."""

    class NoRe:
        def search(self, pattern: str, text: str) -> None:
            raise AssertionError(f"jsonschema searched {pattern!r} with Python's re")

    for module in (jsonschema._keywords, jsonschema._utils, jsonschema._legacy_keywords):
        monkeypatch.setattr(module, "re", NoRe())


# -- A: every regular expression applied to a model's text is searched in linear time -------------------------


def test_pattern_properties_are_matched_in_linear_time(no_backtracking: None) -> None:
    """Review 75 A: ``patternProperties`` (matched against the argument NAMES the model writes) went through
    Python's ``re``: ``^(a+)+$`` took 1.4 s for a 24-character name, doubling every character."""
    spec = {"type": "function", "function": {"name": "save", "description": "Save labelled values.", "parameters": {
        "type": "object", "patternProperties": {"^(a+)+$": {"type": "string"}}, "additionalProperties": False}}}
    t = tool_from_schema(spec, _save)
    bad = _call(t, {"a" * 50_000 + "!": "x"})
    assert bad.status == "error" and "is not a parameter of this tool" in bad.text
    assert _call(t, {"aaa": "x"}).text == "saved"
    assert "is not of type 'string'" in _call(t, {"aaa": 5}).text  # the matching name's schema still applies


def test_additional_and_unevaluated_properties_ask_the_linear_engine(no_backtracking: None) -> None:
    """``additionalProperties`` and ``unevaluatedProperties`` ask which names the patterns match: also linear."""
    key = "a" * 50_000 + "!"
    open_extra = {"type": "object", "patternProperties": {"^(a+)+$": {}}, "additionalProperties": {"type": "integer"}}
    t = tool_from_schema(open_extra, _save, name="extra", description="d")
    assert "is not of type 'integer'" in _call(t, {key: "x"}).text and _call(t, {"aaaa": "x"}).text == "saved"
    for dialect in ("https://json-schema.org/draft/2020-12/schema", "https://json-schema.org/draft/2019-09/schema"):
        unevaluated = {"$schema": dialect, "type": "object", "allOf": [{"patternProperties": {"^(a+)+$": {}}}],
                       "unevaluatedProperties": False}
        t = tool_from_schema(unevaluated, _save, name="uneval", description="d")
        assert "is not a parameter of this tool" in _call(t, {key: 1}).text  # refused by unevaluatedProperties
        assert _call(t, {"aa": 1}).text == "saved"


def test_the_linear_keywords_agree_with_jsonschema() -> None:
    """The keywords toolwire puts in place of jsonschema's give jsonschema's answers (its messages included) on
    patterns both engines read; and a draft-07 validator does not gain ``unevaluatedProperties``."""
    from jsonschema import validators

    from toolwire._schema_patterns import linear_keywords

    schemas = [
        {"properties": {"a": {}}, "patternProperties": {"^x": {"type": "integer"}}, "unevaluatedProperties": False},
        {"allOf": [{"properties": {"a": {}}}, {"patternProperties": {"^x": {}}}], "unevaluatedProperties": False},
        {"anyOf": [{"properties": {"a": {"type": "string"}}}, {"patternProperties": {"b$": {}}}],
         "unevaluatedProperties": {"type": "integer"}},
        {"if": {"properties": {"a": {"const": 1}}, "required": ["a"]}, "then": {"patternProperties": {"^x": {}}},
         "else": {"properties": {"b": {}}}, "unevaluatedProperties": False},
        {"dependentSchemas": {"a": {"patternProperties": {"y": {}}}}, "properties": {"a": {}},
         "unevaluatedProperties": False},
        {"$defs": {"d": {"patternProperties": {"^x": {}}}}, "$ref": "#/$defs/d", "unevaluatedProperties": False},
        {"properties": {"c": {"$ref": "#"}}, "patternProperties": {"^x": {}}, "unevaluatedProperties": False},
        {"patternProperties": {"^x": {"type": "integer"}, "y": {}}, "additionalProperties": False},
        {"propertyNames": {"pattern": "^[a-z]+$"}},
    ]
    instances = [{}, {"a": 1}, {"x1": 1}, {"x1": "s"}, {"b": 1}, {"a": 1, "x": 2, "y": 3}, {"ab": 1, "b": "z"},
                 {"c": {"x": 1, "z": 2}}, {"A": 1, "a": "s", "zb": 5}]
    for base in (jsonschema.Draft202012Validator, jsonschema.Draft201909Validator, jsonschema.Draft7Validator):
        ours = validators.extend(base, linear_keywords(base))
        for schema in schemas:
            for instance in instances:
                expected = sorted(e.message for e in base(schema).iter_errors(instance))
                assert sorted(e.message for e in ours(schema).iter_errors(instance)) == expected, (schema, instance)
    assert "unevaluatedProperties" not in linear_keywords(jsonschema.Draft7Validator)


def test_a_pattern_the_linear_engine_cannot_read_is_not_searched_and_said_so(no_backtracking: None) -> None:
    """Review 75 A: a ``pattern`` with a lookaround fell back to Python's ``re`` (0.6 s at 24 characters and
    growing 4x every 2): such a pattern is now not checked, with a ToolDefinitionWarning when the tool is defined."""
    spec = {"type": "function", "function": {"name": "save2", "description": "Save a code.", "parameters": {
        "type": "object", "properties": {"code": {"type": "string", "pattern": "^(?=x|y)?(a+)+$"}},
        "patternProperties": {"^(?!_)(a+)+$": {}}}}}
    with pytest.warns(ToolDefinitionWarning, match=r"'\^\(\?!_\)\(a\+\)\+\$', '\^\(\?=x\|y\)\?\(a\+\)\+\$' use a "
                      r"lookaround.*not checked against it: rewrite it"):
        t = tool_from_schema(spec, _save)
    assert _call(t, {"code": "a" * 50_000 + "!"}).text == "saved"  # not checked: no search at all
    assert _call(t, {"code": "ok", "a" * 50_000 + "!": 1}).text == "saved"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a schema whose patterns are all searchable says nothing
        tool_from_schema({"type": "object", "properties": {"s": {"type": "string", "pattern": r"^\d{3}-\w+$"}}},
                         _save, name="quiet", description="d")


def test_the_executor_answers_at_once_whatever_names_the_model_writes(no_backtracking: None) -> None:
    """Review 75 A: validation runs outside the tool's timeout, so ToolExecutor(timeout=1) answered after 5.8 s;
    every search being linear (Python's re is stubbed out to raise here), it now answers at once."""
    spec = {"type": "object", "patternProperties": {"^(a+)+$": {"type": "string"}}, "additionalProperties": False}
    t = tool_from_schema(spec, _save, name="save", description="Save labelled values.")
    message = AIMessage("", tool_calls=[{"name": "save", "args": {"a" * 30 + "!": "x"}, "id": "c1"}])
    out = ToolExecutor([t], timeout=1).execute(message)
    assert "is not a parameter of this tool" in out[0].text


# -- B: a $ref bomb is refused, in milliseconds -------------------------------------------------------------------


def _ref_bomb(levels: int) -> dict[str, Any]:
    """A schema whose $defs each refer to the next level twice: 2**levels leaves once written out."""
    defs: dict[str, Any] = {f"L{levels}": {"type": "string"}}
    for i in range(levels - 1, -1, -1):
        defs[f"L{i}"] = {"type": "object", "properties": {"a": {"$ref": f"#/$defs/L{i + 1}"},
                                                           "b": {"$ref": f"#/$defs/L{i + 1}"}}}
    return {"type": "object", "properties": {"root": {"$ref": "#/$defs/L0"}}, "$defs": defs}


def test_a_ref_bomb_is_refused_once_it_passes_the_limit() -> None:
    """Review 75 B: 1.5 KB of $defs referring to the next level twice inlined into 1 MB (7 s) at 14 levels and
    17 MB (155 s) at 18: the written-out schema is now capped at MAX_INLINED_VALUES values."""
    from toolwire._schema_refs import MAX_INLINED_VALUES
    from toolwire.errors import SchemaError
    from toolwire.schema import inline_refs

    assert MAX_INLINED_VALUES == 20_000
    for levels in (14, 30):  # 30 levels: 2**30 leaves, were it written out
        with pytest.raises(SchemaError, match=r"too large once its \$ref references are written out in place \(more "
                                              r"than 20,000 JSON values.*refer to each definition from fewer places"):
            tool_from_schema({"name": "bomb", "description": "d", "parameters": _ref_bomb(levels)}, _save)
    assert tool_from_schema({"name": "fine", "description": "d", "parameters": _ref_bomb(6)}, _save).name == "fine"
    big_enum = {"$defs": {"E": {"enum": list(range(5_000))}}, "type": "object",  # data counts too
                "properties": {k: {"$ref": "#/$defs/E"} for k in "abcde"}}
    with pytest.raises(SchemaError, match="too large"):
        inline_refs(big_enum)


def test_a_schema_nested_too_deeply_is_a_schema_error_not_a_recursion_error() -> None:
    """A chain of $defs each referring to the next (or a schema nested as deeply by hand) overflowed the stack
    in jsonschema's check: RecursionError, which the MCP client does not catch, so the whole server failed."""
    from toolwire.errors import SchemaError

    defs: dict[str, Any] = {"L200": {"type": "string"}}
    for i in range(199, -1, -1):
        defs[f"L{i}"] = {"type": "object", "properties": {"a": {"$ref": f"#/$defs/L{i + 1}"}}}
    chain = {"type": "object", "properties": {"root": {"$ref": "#/$defs/L0"}}, "$defs": defs}
    with pytest.raises(SchemaError, match="nests more than 64 levels of schemas once its \\$ref references"):
        tool_from_schema({"name": "chain", "description": "d", "parameters": chain}, _save)
    nested: dict[str, Any] = {"type": "string"}
    for _ in range(200):
        nested = {"type": "array", "items": nested}
    with pytest.raises(SchemaError, match="tool 'deep' nest more than 64 levels of schemas"):
        tool_from_schema({"name": "deep", "description": "d",
                          "parameters": {"type": "object", "properties": {"x": nested}}}, _save)
    data: Any = 1
    for _ in range(2_000):
        data = [data]
    with pytest.raises(SchemaError, match="nested too deeply"):
        tool_from_schema({"name": "deep", "description": "d",
                          "parameters": {"type": "object", "properties": {"x": {"default": data}}}}, _save)


def test_the_mcp_client_skips_such_a_tool_and_keeps_the_others() -> None:
    """Review 75 B: the MCP client skips a tool whose schema is a $ref bomb (or too deep) with a warning, as it
    does any bad schema, and keeps the server's other tools."""
    pytest.importorskip("mcp")
    from toolwire.mcp import MCPClient

    deep: dict[str, Any] = {"type": "string"}
    for _ in range(200):
        deep = {"type": "object", "properties": {"a": deep}}
    client = MCPClient("python never_started.py")  # _build needs no session
    with pytest.warns(UserWarning, match="Skipping the MCP tool") as caught:
        tools = client._build([{"name": "deep", "description": "B.", "inputSchema": deep},
                               {"name": "bomb", "description": "A.", "inputSchema": _ref_bomb(30)},
                               {"name": "ok", "description": "C.", "inputSchema": _ref_bomb(3)}])
    assert [t.name for t in tools] == ["ok"]
    assert {"'bomb'", "'deep'"} <= {w.message.args[0].split()[4] for w in caught}  # type: ignore[union-attr]


# -- C: a recursive TypedDict is refused as a recursive model is ------------------------------------------------


class _Model(BaseModel):
    """A node."""

    value: int
    children: list[_Model] = []


class _Plain(typing.TypedDict):  # typing's: rebuilt on Python 3.11
    """A node."""

    value: int
    next: typing.NotRequired[_Plain]


class _Described(typing_extensions.TypedDict):  # a field described in Annotated: rebuilt on every version
    """A node."""

    value: Annotated[int, "the node's value"]
    children: list[_Described]


class _First(typing_extensions.TypedDict):
    """One of two types referring to each other."""

    value: Annotated[int, "a value"]
    other: typing_extensions.NotRequired[_Second]


class _Second(typing_extensions.TypedDict):
    """The other one, rebuilt too."""

    first: Annotated[_First, "the first one"]


class _Leaf(typing.TypedDict):
    """A leaf."""

    value: Annotated[int, "the leaf's value"]


class _Pair(typing.TypedDict):
    """Two leaves, the same type twice (not a cycle)."""

    left: _Leaf
    right: typing.NotRequired[_Leaf]


def _refusals(cls: type) -> list[str]:
    """The SchemaError messages of @tool, bind_tools and with_structured_output given ``cls``."""
    from toolwire import tool
    from toolwire.errors import SchemaError
    from toolwire.testing import ScriptedChatModel

    def walk(node: Any) -> str:
        return "ok"

    walk.__annotations__ = {"node": cls, "return": str}
    walk.__doc__ = "Walk the nodes."
    model = ScriptedChatModel([AIMessage("x")])
    messages = []
    for make in (lambda: tool(walk), lambda: model.bind_tools([cls]), lambda: model.with_structured_output(cls)):
        with pytest.raises(SchemaError) as caught:
            make()
        messages.append(str(caught.value))
    return messages


@pytest.mark.parametrize("cls", [_Plain, _Described, _First], ids=["typing", "annotated", "mutual"])
def test_a_recursive_typeddict_gets_the_schema_error_of_a_recursive_model(cls: type) -> None:
    """Review 75 C: schema._compat rebuilt a TypedDict and cached it only once its fields were rebuilt, so one
    that refers to itself raised RecursionError (through bind_tools and with_structured_output: 'cannot be given
    as a JSON Schema: maximum recursion depth exceeded'); it now gets the documented SchemaError everywhere."""
    expected = [m.replace("'_Model'", repr(cls.__name__)) for m in _refusals(_Model)]
    assert "refers to itself" in expected[0] and "depth-limited type or a JSON string" in expected[0]
    assert _refusals(cls) == expected


def test_a_typeddict_that_is_not_recursive_is_still_rebuilt() -> None:
    from toolwire import tool

    def use(pair: _Pair) -> str:
        """Use a pair."""
        return str(pair["left"]["value"])

    made = tool(use)
    leaf = made.parameters["properties"]["pair"]["properties"]["left"]
    assert leaf["properties"]["value"]["description"] == "the leaf's value"
    assert made.invoke({"pair": {"left": {"value": 3}}}) == "3"


# -- D: a literal holding a boolean keeps numbers and booleans apart ----------------------------------------------


class _Mode(BaseModel):
    mode: typing.Literal[1, True]


def _pick(mode: typing.Literal[1, True], flag: typing.Literal[True] = True,
          modes: list[typing.Literal[1.0, False]] | None = None) -> str:
    """Pick a mode."""
    return repr((mode, flag, modes))


def test_a_number_is_never_read_as_a_boolean_literal() -> None:
    """Review 75 D: ``Literal[1, True]`` turned the JSON number 1.0 (which equals 1) into True, pydantic finding the
    value by Python equality; a number now gets the literal's number and a boolean literal refuses numbers, at any
    depth, as JSON Schema's enum does (toolwire's rule: numbers and booleans are kept apart)."""
    from toolwire import tool
    from toolwire.testing import ScriptedChatModel

    made = tool(_pick)
    assert made.parameters["properties"]["mode"] == {"enum": [1, True]}  # the schema is unchanged
    assert made.invoke({"mode": 1.0}) == "(1, True, None)"
    assert made.invoke({"mode": True, "modes": [1, 1.0, False]}) == "(True, True, [1.0, 1.0, False])"
    for bad, where in (({"mode": 1, "flag": 1}, "'flag': Input should be True"),
                       ({"mode": 1, "modes": [0]}, "'modes.0': Input should be 1.0 or False"),
                       ({"mode": 0.0}, "'mode': Input should be 1 or True")):
        assert where in _call(made, bad).text
    model = ScriptedChatModel([AIMessage("", tool_calls=[{"name": "_Mode", "args": {"mode": 1.0}, "id": "c"}])])
    assert repr(model.with_structured_output(_Mode).invoke("x").mode) == "1"  # type: ignore[union-attr]
