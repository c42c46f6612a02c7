"""LangChain's tool API that ported code uses: ``StructuredTool.from_function`` (and its constructor),
``tool.tool_call_schema`` / ``get_input_schema()``, and a bare string given to a one-parameter tool.

Where langchain-core is importable, toolwire's behaviour is compared with LangChain's on the same functions.
"""

from __future__ import annotations

import asyncio
import copy
import inspect
import pickle
from typing import Any

import pytest
from pydantic import BaseModel, Field, ValidationError

from toolwire import Agent, AIMessage, StructuredTool, Tool, ToolExecutor, ToolMessage, ToolValidationError, tool
from toolwire._keywords import ADVICE
from toolwire.errors import SchemaError, UserError
from toolwire.messages import tool_call
from toolwire.testing import ScriptedChatModel

try:
    import langchain_core.tools as lc_tools
except ImportError:  # pragma: no cover - langchain-core is a benchmark dependency
    lc_tools = None  # type: ignore[assignment]

needs_langchain = pytest.mark.skipif(lc_tools is None, reason="langchain-core not installed")


# module level, so that pickle finds them by name
def lookup(city: str, days: int = 1) -> str:
    """Look up the weather.

    Args:
        city: the city.
        days: how many days.
    """
    return f"sync {city} {days}"


async def alookup(city: str, days: int = 1) -> str:
    """Look up the weather, async."""
    await asyncio.sleep(0)
    return f"async {city} {days}"


def _call(args: dict[str, Any], name: str = "lookup") -> dict[str, Any]:
    return {"name": name, "args": args, "id": "c1", "type": "tool_call"}


# -- StructuredTool.from_function -------------------------------------------------------------------


@needs_langchain
def test_from_function_takes_langchains_parameters_in_langchains_order() -> None:
    def shape(function: Any) -> list[tuple[str, Any, Any]]:
        return [(p.name, p.kind, p.default) for p in inspect.signature(function).parameters.values()]

    assert shape(StructuredTool.from_function) == shape(lc_tools.StructuredTool.from_function)


def test_coroutine_alone_makes_an_async_tool() -> None:
    async def am(a: int) -> int:
        """Am."""
        return a * 2

    made = StructuredTool.from_function(coroutine=am, name="m", description="d")
    assert isinstance(made, Tool) and made.is_async
    assert (made.name, made.description) == ("m", "d")
    assert made.invoke({"a": 2}) == 4
    assert asyncio.run(made.ainvoke({"a": 3})) == 6
    assert made.invoke(_call({"a": 1}, "m")).content == "2"


def test_func_and_coroutine_invoke_runs_func_and_ainvoke_runs_coroutine() -> None:
    both = StructuredTool.from_function(func=lookup, coroutine=alookup)
    assert not both.is_async and both.func is lookup
    assert both.invoke({"city": "Oslo"}) == "sync Oslo 1"
    assert asyncio.run(both.ainvoke({"city": "Oslo"})) == "async Oslo 1"
    assert both.invoke({"city": "Oslo"}, timeout=5) == "sync Oslo 1"
    assert asyncio.run(both.ainvoke({"city": "Oslo", "days": 2}, timeout=5)) == "async Oslo 2"
    assert both.invoke(_call({"city": "Rome"})).content == "sync Rome 1"
    answer = asyncio.run(both.ainvoke(_call({"city": "Rome"})))
    assert isinstance(answer, ToolMessage) and answer.content == "async Rome 1" and answer.tool_call_id == "c1"
    assert both.batch([{"city": "A"}]) == ["sync A 1"]
    assert asyncio.run(both.abatch([{"city": "B"}])) == ["async B 1"]


def test_func_and_coroutine_in_the_executor_and_agent_sync_runs_func_async_runs_coroutine() -> None:
    both = StructuredTool.from_function(func=lookup, coroutine=alookup)
    executor = ToolExecutor([both])
    assert executor.call([_call({"city": "X"})])[0].content == "sync X 1"
    assert asyncio.run(executor.acall([_call({"city": "X"})]))[0].content == "async X 1"

    def script() -> ScriptedChatModel:
        return ScriptedChatModel([AIMessage("", tool_calls=[tool_call("lookup", {"city": "Y"}, "c1")]), "done"])

    ran = Agent(script(), [both]).invoke("weather?")
    assert [m.content for m in ran.messages if isinstance(m, ToolMessage)] == ["sync Y 1"]
    ran = asyncio.run(Agent(script(), [both]).ainvoke("weather?"))
    assert [m.content for m in ran.messages if isinstance(m, ToolMessage)] == ["async Y 1"]


@needs_langchain
def test_func_and_coroutine_behave_as_langchains() -> None:
    ours = StructuredTool.from_function(func=lookup, coroutine=alookup)
    theirs = lc_tools.StructuredTool.from_function(func=lookup, coroutine=alookup)
    assert ours.invoke({"city": "Oslo"}) == theirs.invoke({"city": "Oslo"})
    assert asyncio.run(ours.ainvoke({"city": "Oslo"})) == asyncio.run(theirs.ainvoke({"city": "Oslo"}))
    assert ours.name == theirs.name and ours.description == theirs.description


def test_copies_pickles_and_methods_keep_both_functions() -> None:
    both = StructuredTool.from_function(func=lookup, coroutine=alookup, timeout=30)
    for other in (copy.copy(both), copy.deepcopy(both), pickle.loads(pickle.dumps(both))):
        assert other.invoke({"city": "P"}) == "sync P 1"
        assert asyncio.run(other.ainvoke({"city": "P"})) == "async P 1"
        assert other.timeout == 30

    class Svc:
        def __init__(self, tag: str) -> None:
            self.tag = tag

        def get(self, q: str) -> str:
            """Get."""
            return f"sync {self.tag} {q}"

        async def aget(self, q: str) -> str:
            return f"async {self.tag} {q}"

        got = StructuredTool.from_function(get, aget)

    svc = Svc("t")
    assert svc.got.invoke({"q": "a"}) == "sync t a"
    assert asyncio.run(svc.got.ainvoke({"q": "a"})) == "async t a"


@needs_langchain
@pytest.mark.parametrize("parse_docstring", [False, True])
def test_description_and_schema_follow_langchains_rules(parse_docstring: bool) -> None:
    ours = StructuredTool.from_function(lookup, parse_docstring=parse_docstring)
    theirs = lc_tools.StructuredTool.from_function(lookup, parse_docstring=parse_docstring)
    assert ours.description == theirs.description  # without parse_docstring: the whole docstring, Args: included
    lc_schema = theirs.tool_call_schema.model_json_schema()
    assert ours.parameters["required"] == lc_schema["required"]
    for name, prop in ours.parameters["properties"].items():
        assert prop.get("description") == lc_schema["properties"][name].get("description")
        assert prop["type"] == lc_schema["properties"][name]["type"]


@needs_langchain
def test_error_on_invalid_docstring_refuses_what_langchain_refuses() -> None:
    def bare(q: str) -> str:
        """Search."""
        return q

    with pytest.raises(ValueError, match="invalid Google-Style docstring"):
        lc_tools.StructuredTool.from_function(bare, parse_docstring=True, error_on_invalid_docstring=True)
    with pytest.raises(SchemaError, match="invalid Google-style docstring"):
        StructuredTool.from_function(bare, parse_docstring=True, error_on_invalid_docstring=True)
    lc_tools.StructuredTool.from_function(lookup, parse_docstring=True, error_on_invalid_docstring=True)
    made = StructuredTool.from_function(lookup, parse_docstring=True, error_on_invalid_docstring=True)
    assert made.args["city"]["description"] == "the city."
    assert StructuredTool.from_function(bare, error_on_invalid_docstring=True).description == "Search."


def test_args_schema_model_and_dict() -> None:
    class Args(BaseModel):
        """Find a city."""

        city: str = Field(description="The city.")

    def find(city: str) -> str:
        return city.upper()

    made = StructuredTool.from_function(find, args_schema=Args)
    assert made.description == "Find a city." and made.args_schema is Args
    assert made.invoke({"city": "x"}) == "X"
    schema = {"type": "object", "description": "Find it.", "properties": {"city": {"type": "string"}},
              "required": ["city"]}
    from_dict = StructuredTool.from_function(find, args_schema=schema)
    assert from_dict.description == "Find it." and from_dict.invoke({"city": "y"}) == "Y"
    with pytest.raises(ToolValidationError):
        from_dict.invoke({"city": 3})
    assert StructuredTool.from_function(find, args_schema=Args, infer_schema=False).args_schema is Args


def test_constructor_form_makes_a_tool() -> None:
    class Args(BaseModel):
        city: str

    made = StructuredTool(name="find", description="Find.", func=lambda city: city * 2, args_schema=Args)
    assert isinstance(made, Tool) and made.invoke({"city": "a"}) == "aa"
    with pytest.raises(UserError, match="keywords only"):
        StructuredTool("find")
    with pytest.raises(UserError, match="did you mean 'description'"):
        StructuredTool(name="find", descripton="Find.", func=lookup)


def test_isinstance_structured_tool_is_every_toolwire_tool() -> None:
    @tool
    def plain(q: str) -> str:
        """Plain."""
        return q

    assert isinstance(plain, StructuredTool)
    assert isinstance(StructuredTool.from_function(lookup), StructuredTool)
    assert issubclass(Tool, StructuredTool) and not issubclass(dict, StructuredTool)
    assert not isinstance(lookup, StructuredTool)


@needs_langchain
def test_a_langchain_tool_is_not_a_toolwire_structured_tool() -> None:
    assert not isinstance(lc_tools.StructuredTool.from_function(lookup), StructuredTool)


def test_refusals_say_what_to_do() -> None:
    def sync(city: str) -> str:
        """S."""
        return city

    async def other(town: str) -> str:
        return town

    with pytest.raises(UserError, match="needs the function"):
        StructuredTool.from_function(name="x", description="d")
    with pytest.raises(SchemaError, match="coroutine= must be an async def"):
        StructuredTool.from_function(coroutine=sync)
    with pytest.raises(SchemaError, match="func= is already an async def"):
        StructuredTool.from_function(func=alookup, coroutine=alookup)
    with pytest.raises(SchemaError, match=r"coroutine= must take the same arguments as func= \(it does not take city"):
        StructuredTool.from_function(func=sync, coroutine=other)
    with pytest.raises(UserError, match=r"infer_schema=False\) needs args_schema=: toolwire always reads"):
        StructuredTool.from_function(sync, infer_schema=False)
    with pytest.raises(UserError, match="did you mean 'timeout'"):
        StructuredTool.from_function(sync, timout=3)
    assert StructuredTool.from_function(sync, timeout=3, handle_errors=False).timeout == 3


@pytest.mark.parametrize("key", ["handle_tool_error", "handle_validation_error", "callbacks", "callback_manager",
                                 "verbose", "tags", "metadata", "extras"])
def test_langchain_tool_fields_toolwire_cannot_honour_are_refused_in_one_sentence(key: str) -> None:
    with pytest.raises(UserError) as caught:
        StructuredTool.from_function(lookup, **{key: True})
    assert str(caught.value) == f"Unknown StructuredTool.from_function option {key!r}: {ADVICE[key]}."


def test_tool_from_function_coroutine_points_to_structured_tool() -> None:
    with pytest.raises(UserError, match=r"StructuredTool.from_function\(func=..., coroutine=...\)"):
        Tool.from_function(coroutine=alookup, name="m", description="d")  # type: ignore[call-arg]


# -- tool_call_schema / get_input_schema ----------------------------------------------------------


def _same_arguments(model: type[BaseModel], made: Tool) -> None:
    schema = model.model_json_schema()
    assert schema["properties"] == made.parameters["properties"]
    assert schema.get("required", []) == made.parameters.get("required", [])
    assert schema["title"] == made.name and schema["description"] == made.description


def test_tool_call_schema_of_a_function_tool() -> None:
    @tool
    def s(q: str, n: int = 2) -> str:
        """S.

        Args:
            q: the query.
        """
        return q * n

    model = s.tool_call_schema
    assert isinstance(model, type) and issubclass(model, BaseModel)
    _same_arguments(model, s)
    assert model.model_fields["q"].description == "the query." and model.model_fields["n"].default == 2
    assert model.model_validate({"q": "a", "n": "3"}).model_dump() == {"q": "a", "n": 3}
    with pytest.raises(ValidationError, match="Invalid arguments for tool 's'"):
        model.model_validate({"q": 1})
    with pytest.raises(ValidationError, match="not a parameter"):
        model.model_validate({"q": "a", "z": 1})
    assert s.tool_call_schema is model and s.get_input_schema() is model and s.get_input_schema({"x": 1}) is model


def test_tool_call_schema_is_made_on_first_use_and_kept() -> None:
    @tool
    def s(q: str) -> str:
        """S."""
        return q

    s.invoke({"q": "a"})
    s.invoke(_call({"q": "a"}, "s"))
    assert not hasattr(s, "_input_model")  # neither decoration nor invoke builds it
    first = s.tool_call_schema
    assert s.tool_call_schema is first and first.model_json_schema()["title"] == "s"


def test_tool_call_schema_of_an_args_schema_tool_is_named_after_the_tool() -> None:
    """Review 98 #4: LangChain's tool_call_schema is a model named after the tool with its description; only
    get_input_schema() gives args_schema itself."""
    class Args(BaseModel):
        city: str = Field(description="the city")

    @tool(args_schema=Args)
    def find(city: str) -> str:
        """Find."""
        return city

    model = find.tool_call_schema
    assert issubclass(model, Args) and model is not Args and model.__name__ == "find"
    schema = model.model_json_schema()
    assert schema["title"] == "find" and schema["description"] == "Find."
    assert schema["properties"]["city"]["description"] == "the city"
    assert model.model_validate({"city": "Paris"}).city == "Paris"
    assert find.get_input_schema() is Args and find.tool_call_schema is model  # (kept)


@needs_langchain
def test_tool_call_schema_of_an_args_schema_tool_matches_langchains() -> None:
    from langchain_core.utils.function_calling import convert_to_openai_tool

    class CalculatorInput(BaseModel):
        a: int = Field(description="first number")
        b: int = Field(description="second number")

    def multiply(a: int, b: int) -> int:
        return a * b

    made = [cls.from_function(func=multiply, name="Calculator", description="multiply numbers",
                              args_schema=CalculatorInput) for cls in (lc_tools.StructuredTool, StructuredTool)]
    theirs, ours = (t.tool_call_schema.model_json_schema() for t in made)
    assert ours == theirs
    assert convert_to_openai_tool(made[1].tool_call_schema) == convert_to_openai_tool(made[0].tool_call_schema)
    assert made[1].get_input_schema() is made[0].get_input_schema() is CalculatorInput
    # from_function(func=g, args_schema=A): the function's name and docstring, in both
    def g(a: int, b: int) -> int:
        """G does."""
        return a

    pair = [cls.from_function(func=g, args_schema=CalculatorInput) for cls in (lc_tools.StructuredTool,
                                                                               StructuredTool)]
    assert pair[1].tool_call_schema.model_json_schema() == pair[0].tool_call_schema.model_json_schema()


def test_tool_call_schema_of_a_json_schema_tool() -> None:
    params = {"type": "object", "properties": {"_id": {"type": "integer", "description": "The id."},
                                               "model_config": {"type": "string"}, "json": {"type": "boolean"}},
              "required": ["_id"]}
    made = Tool.from_schema(lambda **kw: kw, "get", "Get one.", params)
    model = made.tool_call_schema
    _same_arguments(model, made)
    value = model.model_validate({"_id": 3, "model_config": "m", "json": True})
    assert value.model_dump(by_alias=True) == {"_id": 3, "model_config": "m", "json": True}
    with pytest.raises(ValidationError, match="Invalid arguments for tool 'get'"):
        model.model_validate({"_id": "3"})  # (jsonschema: no coercion, as invoke)


@needs_langchain
def test_tool_call_schema_describes_what_langchains_does() -> None:
    ours = tool(lookup)
    theirs = lc_tools.tool(lookup)
    mine, lcs = ours.tool_call_schema.model_json_schema(), theirs.tool_call_schema.model_json_schema()
    assert set(mine["properties"]) == set(lcs["properties"]) and mine["required"] == lcs["required"]
    assert mine["title"] == lcs["title"]
    assert list(ours.tool_call_schema.model_fields) == list(theirs.tool_call_schema.model_fields)


# -- a bare string ---------------------------------------------------------------------------------


def test_a_bare_string_is_the_one_parameters_value() -> None:
    @tool
    def s(q: str) -> str:
        """S."""
        return q

    @tool
    def n(k: int) -> int:
        """N."""
        return k + 1

    assert s.invoke("a") == "a" and asyncio.run(s.ainvoke("a")) == "a"
    assert n.invoke("3") == 4  # then checked as usual: the parameter's type
    with pytest.raises(ToolValidationError, match="'k'"):
        n.invoke("x")


@pytest.mark.parametrize("which", ["none", "two required"])
def test_a_bare_string_for_no_parameter_or_two_required_says_to_pass_a_dict(which: str) -> None:
    if which == "none":
        def f() -> str:
            """F."""
            return ""
        expected = r"has no parameter: pass an empty dict of arguments, \{\}\."
    else:
        def f(a: str, b: int, c: str = "") -> str:  # type: ignore[misc]
            """F."""
            return ""
        expected = r"also requires b: pass a dict of arguments, \{\"a\": <text>, \"b\": <integer>\}\."
    made = tool(f)
    with pytest.raises(ToolValidationError, match="a bare string fills a tool's first parameter only when its other "
                                                  "parameters are optional"):
        made.invoke("x")
    with pytest.raises(ToolValidationError, match=expected):
        asyncio.run(made.ainvoke("x"))


def test_a_bare_string_fills_the_first_parameter_when_the_others_are_optional() -> None:
    # LangChain's BaseTool._parse_input puts a string in the first field and leaves the others to their defaults
    @tool
    def search(query: str, k: int = 3) -> str:
        """Search."""
        return f"{query}/{k}"

    assert search.invoke("cats") == "cats/3"
    assert asyncio.run(search.ainvoke("dogs")) == "dogs/3"

    @tool
    def count(n: int, unit: str = "") -> str:
        """Count."""
        return repr(n)

    with pytest.raises(ToolValidationError, match="'n': Input should be a valid integer"):  # then validated as usual
        count.invoke("x")


@needs_langchain
def test_a_bare_string_as_langchain_and_to_langchain_tool_take_it() -> None:
    from toolwire.interop.langchain import to_langchain_tool

    def shout(text: str) -> str:
        """Shout."""
        return text.upper()

    ours = tool(shout)
    assert ours.invoke("hi") == lc_tools.tool(shout).invoke("hi") == to_langchain_tool(ours).invoke("hi") == "HI"

    def two(a: str, b: str) -> str:
        """Two."""
        return a + b

    with pytest.raises(ToolValidationError, match="pass a dict of arguments"):
        tool(two).invoke("hi")
    with pytest.raises(ValueError):  # the converted tool refuses it too (a JSON Schema args_schema)
        to_langchain_tool(tool(two)).invoke("hi")


@needs_langchain
def test_to_langchain_tool_keeps_the_sync_and_async_split() -> None:
    from toolwire.interop.langchain import to_langchain_tool

    converted = to_langchain_tool(StructuredTool.from_function(func=lookup, coroutine=alookup))
    assert converted.invoke({"city": "a"}) == "sync a 1"
    assert asyncio.run(converted.ainvoke({"city": "a"})) == "async a 1"
    assert asyncio.run(converted.ainvoke(_call({"city": "b"}))).content == "async b 1"


@needs_langchain
def test_to_langchain_tool_takes_a_bare_string_by_the_same_rule() -> None:
    from toolwire.interop.langchain import to_langchain_tool

    def search(query: str, k: int = 3) -> str:
        """Search."""
        return f"{query}/{k}"

    converted = to_langchain_tool(tool(search))
    assert converted.invoke("cats") == "cats/3" == tool(search).invoke("cats")


# -- review 98 #11: parse_docstring's description is LangChain's ------------------------------------


def _doc_long(q: str, n: int = 1) -> str:
    """Search the web.

    Longer text here,
    over two lines.

    Args:
        q: the query.
        n: how many.

    Returns:
        the page.
    """
    return q


def _doc_returns_first(q: str) -> str:
    """Search.

    Returns:
        the page.

    More after returns.

    Args:
        q: the query.
    """
    return q


class _DocArgs(BaseModel):
    """The args model's own doc."""

    q: str = Field(description="query")


@needs_langchain
@pytest.mark.parametrize("options", [{"func": _doc_long}, {"func": _doc_returns_first}, {"func": lookup},
                                     {"func": _doc_long, "args_schema": _DocArgs}],
                         ids=["body", "returns-first", "lookup", "args_schema"])
def test_parse_docstring_description_is_langchains(options: dict[str, Any]) -> None:
    theirs = lc_tools.StructuredTool.from_function(parse_docstring=True, **options)
    ours = StructuredTool.from_function(parse_docstring=True, **options)
    assert ours.description == theirs.description
    assert {k: v.get("description") for k, v in ours.args.items()} == \
        {k: v.get("description") for k, v in theirs.args.items()}


def test_parse_docstring_joins_the_summary_and_body_with_a_space() -> None:
    made = StructuredTool.from_function(_doc_long, parse_docstring=True)
    assert made.description == "Search the web. Longer text here,\nover two lines."
    assert tool(_doc_long).description != made.description  # (toolwire's own @tool keeps its rule)
