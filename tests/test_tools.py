"""toolwire.tools: @tool, Tool.from_function, invoke/ainvoke, results to content (issue [1])."""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import json
import threading
import typing

import docstring_parser
import pydantic
import pytest
from pydantic import BaseModel, Field

import toolwire._schema_defaults
import toolwire._schema_refs
import toolwire.schema
import toolwire.tools
from toolwire import SchemaError, Tool, ToolMessage, ToolTimeoutError, ToolValidationError, tool
from toolwire.results import error_text, result_to_content, truncate_content


def call(name: str, args: object, id: str = "call_1") -> dict:
    return {"name": name, "args": args, "id": id, "type": "tool_call"}


class Weather(BaseModel):
    city: str
    temp_c: float


class Inner(BaseModel):
    n: int


@dataclasses.dataclass
class Hit:
    title: str
    score: int


# -- the decorator forms ----------------------------------------------------------------------------


def test_bare_decorator() -> None:
    @tool
    def get_weather(city: str) -> str:
        """Get the current weather of a city."""
        return f"It's always sunny in {city}!"

    assert isinstance(get_weather, Tool)
    assert get_weather.name == "get_weather"
    assert get_weather.description == "Get the current weather of a city."
    assert get_weather.parameters == {"type": "object", "properties": {"city": {"type": "string"}},
                                      "required": ["city"], "additionalProperties": False}
    assert get_weather.args == {"city": {"type": "string"}}
    assert get_weather.return_direct is False and get_weather.timeout is None
    assert get_weather.response_format == "content"
    assert get_weather.invoke({"city": "Paris"}) == "It's always sunny in Paris!"


def test_name_as_positional_argument() -> None:
    @tool("weather-now")
    def get_weather(city: str) -> str:
        """Weather."""
        return city

    assert get_weather.name == "weather-now"
    assert get_weather.spec.name == "weather-now"


def test_keyword_options() -> None:
    @tool(name="finish", description="Give the final answer.", return_direct=True, timeout=2.5)
    def done(answer: str) -> str:
        return answer

    assert (done.name, done.description, done.return_direct, done.timeout) == \
        ("finish", "Give the final answer.", True, 2.5)
    assert done.spec.description == "Give the final answer."


def test_description_option_wins_over_the_docstring() -> None:
    @tool(description="Short.")
    def f(x: int) -> int:
        """Long docstring text.

        Args:
            x: the number.
        """
        return x

    assert f.description == "Short."
    assert f.args == {"x": {"type": "integer", "description": "the number."}}


def test_from_function_matches_the_decorator() -> None:
    def add(a: int, b: int = 1) -> int:
        """Add two numbers."""
        return a + b

    made = Tool.from_function(add, name="plus", timeout=1)
    assert made.name == "plus"
    assert made.parameters == tool(add).parameters
    assert made.invoke({"a": 2}) == 3
    assert made(2, b=5) == 7  # calling the tool calls the function directly


def test_args_schema_model() -> None:
    class SearchArgs(BaseModel):
        """Search the web."""

        query: str = Field(description="what to look for")
        limit: int = 3

    @tool(args_schema=SearchArgs)
    def search(query: str, limit: int) -> str:
        return f"{query}:{limit}"

    assert search.description == "Search the web."  # no docstring on the function: the model's
    assert search.parameters == {
        "type": "object",
        "properties": {"query": {"type": "string", "description": "what to look for"},
                       "limit": {"type": "integer", "default": 3}},
        "required": ["query"],
        "additionalProperties": False,
    }
    assert search.invoke({"query": "rain"}) == "rain:3"
    with pytest.raises(ToolValidationError, match="'page' is not a parameter of this tool"):
        search.invoke({"query": "rain", "page": 2})

    def documented(query: str, limit: int) -> str:
        """Search the documentation."""
        return query

    assert Tool.from_function(documented, args_schema=SearchArgs).description == "Search the documentation."
    with pytest.raises(SchemaError, match="args_schema must be a pydantic BaseModel class"):
        Tool.from_function(documented, args_schema=dict)  # type: ignore[arg-type]


def test_no_docstring_and_no_description_is_an_error_at_definition_time() -> None:
    def bare(x: int) -> int:
        return x

    with pytest.raises(SchemaError) as info:
        tool(bare)
    assert str(info.value) == ("Tool 'bare' has no description: add a docstring to the function or pass "
                               "description=... so the model knows when to use it.")
    assert tool(description="Bare.")(bare).description == "Bare."


@pytest.mark.parametrize(
    "name", ["has space", "dot.name", "a" * 65, "ünïcode", "semi;colon", "new\nline", "trailing\n"])
def test_bad_tool_names_are_refused(name: str) -> None:
    def f() -> str:
        """F."""
        return ""

    with pytest.raises(SchemaError) as info:
        Tool.from_function(f, name=name)
    assert str(info.value).startswith(f"Tool name {name!r} is not allowed: use 1 to 64 ASCII letters, digits, '_' or "
                                      "'-' (the rule of the OpenAI and Anthropic APIs)")
    with pytest.raises(SchemaError, match="is not allowed"):
        tool(name)(f)


def test_an_empty_name_is_refused_not_replaced() -> None:
    def f() -> str:
        """F."""
        return ""

    with pytest.raises(SchemaError, match="Tool name '' is not allowed"):
        Tool.from_function(f, name="")
    with pytest.raises(SchemaError, match="Tool name '' is not allowed"):
        tool("")(f)


def test_a_lambda_needs_a_name() -> None:
    with pytest.raises(SchemaError, match="A lambda has no name"):
        tool(lambda x: x)
    assert Tool.from_function(lambda x: x, name="ident", description="Identity.").invoke({"x": 3}) == 3


@pytest.mark.parametrize("name", ["a", "A-b_9", "x" * 64])
def test_good_tool_names(name: str) -> None:
    def f() -> str:
        """F."""
        return ""

    assert Tool.from_function(f, name=name).name == name


def test_bad_options_are_refused() -> None:
    def f() -> str:
        """F."""
        return ""

    with pytest.raises(SchemaError, match="response_format"):
        tool(response_format="json")(f)
    with pytest.raises(SchemaError, match="timeout must be a positive number"):
        tool(timeout=0)(f)
    with pytest.raises(TypeError):
        tool("a", "b")


# -- invoke -----------------------------------------------------------------------------------------


def test_invoke_with_args_returns_the_raw_result() -> None:
    @tool
    def hits(q: str, n: int = 2) -> list[Hit]:
        """Search."""
        return [Hit(q, i) for i in range(n)]

    assert hits.invoke({"q": "x", "n": "3"}) == [Hit("x", 0), Hit("x", 1), Hit("x", 2)]


def test_invoke_with_a_tool_call_returns_a_tool_message() -> None:
    @tool
    def get_weather(city: str) -> str:
        """Weather."""
        return f"It's always sunny in {city}!"

    message = get_weather.invoke(call("get_weather", {"city": "Paris"}, "call_hgXrHGD"))
    assert isinstance(message, ToolMessage)
    assert message == ToolMessage("It's always sunny in Paris!", "call_hgXrHGD", name="get_weather")
    assert str(message) == "content=\"It's always sunny in Paris!\" tool_call_id='call_hgXrHGD'"


def test_invalid_arguments() -> None:
    @tool
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    with pytest.raises(ToolValidationError) as info:
        add.invoke({"a": "x", "b": 1})
    assert str(info.value) == ("Invalid arguments for tool 'add': 'a': Input should be a valid integer, "
                               "unable to parse string as an integer (got 'x').")
    with pytest.raises(ToolValidationError, match="'b' is required but missing"):
        add.invoke({"a": 1})
    with pytest.raises(ToolValidationError, match="expected a JSON object of named arguments, got list"):
        add.invoke([1, 2])
    message = add.invoke(call("add", {"a": 1}, "c7"))
    assert message.status == "error" and message.tool_call_id == "c7" and message.name == "add"
    assert message.content == "Error: Invalid arguments for tool 'add': 'b' is required but missing."


def test_a_single_string_is_the_lone_parameter_only_outside_a_tool_call() -> None:
    @tool
    def shout(text: str) -> str:
        """Shout."""
        return text.upper()

    assert shout.invoke("hey") == "HEY"
    # in a tool call a string is the argument JSON text
    assert shout.invoke(call("shout", '{"text": "hi"}')).content == "HI"
    bad = shout.invoke(call("shout", "[1, 2]", "c2"))
    assert bad.status == "error" and bad.tool_call_id == "c2"
    assert bad.content.startswith("Error: the call to 'shout' was not valid: ")
    assert "HEY" not in bad.content and "The arguments received were: [1, 2]." in bad.content


def test_exception_in_tool_call_form_is_an_error_message_and_handle_errors_false_raises() -> None:
    @tool
    def boom(x: int) -> str:
        """Boom."""
        raise ValueError("boom")

    message = boom.invoke(call("boom", {"x": 1}, "c9"))
    assert message == ToolMessage("Error: tool 'boom' raised ValueError: boom", "c9", status="error", name="boom")
    assert "Traceback" not in message.content
    with pytest.raises(ValueError, match="boom"):
        boom.invoke({"x": 1})
    strict = Tool.from_function(boom.func, handle_errors=False)
    with pytest.raises(ValueError, match="boom"):
        strict.invoke(call("boom", {"x": 1}))


def test_hide_error_details() -> None:
    @tool(hide_error_details=True)
    def login(user: str) -> str:
        """Log in."""
        raise PermissionError("password hunter2 is wrong")

    message = login.invoke(call("login", {"user": "ann"}))
    assert message.content == "Error: tool 'login' raised PermissionError. Try different arguments or another approach."


def test_null_for_a_defaulted_parameter_gets_the_python_default() -> None:
    @tool
    def latest(channel: str = "stable", major: int | None = 7) -> str:
        """Latest version."""
        return f"{channel}:{major}"

    assert latest.invoke({"channel": None}) == "stable:7"
    assert latest.invoke({"channel": None, "major": None}) == "stable:None"  # None is a real value here


# -- async ------------------------------------------------------------------------------------------


def test_async_tool_invoked_synchronously_and_awaited() -> None:
    @tool
    async def fetch(url: str) -> dict:
        """Fetch."""
        await asyncio.sleep(0)
        return {"url": url, "ok": True}

    assert fetch.is_async
    assert fetch.invoke({"url": "u"}) == {"url": "u", "ok": True}
    assert asyncio.run(fetch.ainvoke({"url": "v"})) == {"url": "v", "ok": True}
    message = asyncio.run(fetch.ainvoke(call("fetch", {"url": "w"}, "a1")))
    assert message == ToolMessage('{"url": "w", "ok": true}', "a1", name="fetch")


def test_async_is_told_through_wrappers_callable_objects_and_partials() -> None:
    import functools

    async def fetch(url: str) -> str:
        """Fetch a page."""
        return url

    @functools.wraps(fetch)
    def logged(*args: object, **kwargs: object) -> object:  # a plain sync decorator around an async def
        return fetch(*args, **kwargs)  # type: ignore[arg-type]

    class Fetcher:
        """Fetch a page."""

        async def __call__(self, url: str) -> str:
            return url

    class SyncFetcher:
        """Fetch a page."""

        def __call__(self, url: str) -> str:
            return url

    def plain(url: str) -> str:
        """Fetch a page."""
        return url

    def made(func: object) -> Tool:
        return Tool.from_function(func, name="fetch")  # type: ignore[arg-type]

    assert made(logged).is_async and made(Fetcher()).is_async and made(functools.partial(fetch)).is_async
    assert not made(SyncFetcher()).is_async and not made(plain).is_async
    assert asyncio.run(made(Fetcher()).ainvoke({"url": "u"})) == "u"
    assert tool(logged).invoke({"url": "v"}) == "v"


def test_async_tool_invoked_synchronously_inside_a_running_loop() -> None:
    @tool
    async def fetch(url: str) -> str:
        """Fetch."""
        await asyncio.sleep(0)
        return url * 2

    async def main() -> str:
        return fetch.invoke({"url": "ab"})  # a sync call from async code: a worker thread runs it

    assert asyncio.run(main()) == "abab"


def test_sync_tool_awaited_runs_in_a_worker_thread() -> None:
    seen: list[str] = []

    @tool
    def where() -> str:
        """Where."""
        seen.append(threading.current_thread().name)
        return "here"

    async def main() -> str:
        return await where.ainvoke({})

    assert asyncio.run(main()) == "here"
    assert seen and seen[0] != threading.main_thread().name


def test_timeouts_become_errors_async_and_sync() -> None:
    release = threading.Event()

    @tool(timeout=0.05)
    def stuck() -> str:
        """Stuck."""
        release.wait(5)
        return "late"

    @tool(timeout=0.05)
    async def astuck() -> str:
        """Stuck."""
        await asyncio.sleep(5)
        return "late"

    try:
        message = stuck.invoke(call("stuck", {}, "t1"))
        assert message.status == "error" and message.tool_call_id == "t1"
        assert "did not finish within 0.05 seconds" in message.content
        with pytest.raises(ToolTimeoutError):
            stuck.invoke({})
        amessage = astuck.invoke(call("astuck", {}, "t2"))
        assert amessage.status == "error"
        assert "did not finish within 0.05 seconds and was stopped, but what it did" in amessage.content
        with pytest.raises(ToolTimeoutError, match="its result will not be used"):
            asyncio.run(stuck.ainvoke({}))
    finally:
        release.set()


# -- results to content -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("plain text", "plain text"),
        ("", ""),
        (Weather(city="São Paulo", temp_c=21.5), '{"city":"São Paulo","temp_c":21.5}'),
        (Hit("Café", 3), '{"title": "Café", "score": 3}'),
        ({"ciudad": "Málaga", "n": [1, 2]}, '{"ciudad": "Málaga", "n": [1, 2]}'),
        ([1, "ü"], '[1, "ü"]'),
        ((1, 2), "[1, 2]"),
        (42, "42"),
        (2.5, "2.5"),
        (True, "true"),
        (None, "null"),
        ([{"type": "text", "text": "a"}], [{"type": "text", "text": "a"}]),
        ([{"type": "image", "base64": "iVBO", "mime_type": "image/png"}],
         [{"type": "image", "base64": "iVBO", "mime_type": "image/png"}]),
        ([{"type": "image_url", "image_url": {"url": "https://x/a.png"}}],
         [{"type": "image_url", "image_url": {"url": "https://x/a.png"}}]),
        ([], "[]"),
        # data that only looks like content blocks (a `type` key) is data: JSON text, nothing dropped
        ([{"type": "file", "name": "report.pdf", "size": 1200}],
         '[{"type": "file", "name": "report.pdf", "size": 1200}]'),
        ([{"type": "document", "title": "Q3", "url": "http://x/q3"}],
         '[{"type": "document", "title": "Q3", "url": "http://x/q3"}]'),
        ([{"type": "text", "text": 3}], '[{"type": "text", "text": 3}]'),
        ([{"type": "image"}], '[{"type": "image"}]'),
    ],
)
def test_result_to_content(value: object, expected: object) -> None:
    assert result_to_content(value) == expected


def test_bytes_are_a_clear_error() -> None:
    from toolwire import ToolExecutionError

    with pytest.raises(ToolExecutionError, match="The tool returned bytes that are not UTF-8 text, which a model"):
        result_to_content(b"\x89PNG")

    @tool
    def picture() -> bytes:
        """Picture."""
        return b"\x89PNG"

    message = picture.invoke(call("picture", {}))
    assert message.status == "error"
    assert message.content == ("Error: tool 'picture' ran, but its result could not be sent back: it is bytes that "
                               "are not UTF-8 text. Do not call it again for the same action: whatever it does has "
                               "been done.")


def test_a_result_that_cannot_be_sent_says_the_tool_ran_and_utf8_bytes_are_text() -> None:
    """Review 57: a tool that did its work but returned bytes (or a value whose str() fails) was reported to the
    model as failed, which invites it to do the work again."""
    from toolwire import ToolResultError

    class Broken:
        def __repr__(self) -> str:
            raise RuntimeError("no repr")

        __str__ = __repr__

    @tool
    def send_email(to: str, raw: bool = False) -> dict:
        """Send an email."""
        return {"status": "sent", "smtp": b"250 OK" if not raw else b"\xff\xfe", "handle": Broken()}

    sent = send_email.invoke(call("send_email", {"to": "a@b"}))
    assert sent.status == "success" and json.loads(sent.content) == {
        "status": "sent", "smtp": "250 OK", "handle": "<Broken object>"}
    assert result_to_content(b"250 OK") == "250 OK" and result_to_content(bytearray(b"ok")) == "ok"
    failed = send_email.invoke(call("send_email", {"to": "a@b", "raw": True}))
    assert failed.status == "error" and failed.content.startswith("Error: tool 'send_email' ran, but its result")
    assert failed.content.endswith("could not be sent back: it holds bytes that are not UTF-8 text. Do not call it "
                                   "again for the same action: whatever it does has been done.")
    with pytest.raises(ToolResultError, match=r"^The tool's result holds bytes that are not UTF-8 text, which a model "
                                              r"cannot read: return text, or content blocks") as raised:
        result_to_content({"x": b"\xff"})
    assert raised.value.reason == "it holds bytes that are not UTF-8 text"


def test_content_and_artifact() -> None:
    @tool(response_format="content_and_artifact")
    def search(q: str) -> tuple[str, list[dict]]:
        """Search."""
        rows = [{"id": 1, "q": q}, {"id": 2, "q": q}]
        return f"{len(rows)} rows", rows

    message = search.invoke(call("search", {"q": "x"}, "s1"))
    assert message.content == "2 rows"
    assert message.artifact == [{"id": 1, "q": "x"}, {"id": 2, "q": "x"}]
    assert str(message) == "content='2 rows' tool_call_id='s1'"  # the artifact is not shown to anyone
    assert search.invoke({"q": "y"}) == ("2 rows", [{"id": 1, "q": "y"}, {"id": 2, "q": "y"}])

    @tool(response_format="content_and_artifact")
    def wrong() -> str:
        """Wrong."""
        return "only content"

    bad = wrong.invoke(call("wrong", {}))
    assert bad.status == "error"
    assert "must return a (content, artifact) tuple, but returned str" in bad.content


def test_truncate_content() -> None:
    assert truncate_content("abc", 3) == "abc"
    assert truncate_content("abc", None) == "abc"
    cut = truncate_content("abcdef", 4)
    assert cut == ("abcd\n[... result truncated: 2 of 6 characters cut; ask for a narrower result ...]")
    blocks = truncate_content([{"type": "text", "text": "abcdef"}, {"type": "image", "url": "u"}], 4)
    assert blocks == [{"type": "text", "text": cut}, {"type": "image", "url": "u"}]


def test_error_text() -> None:
    assert error_text(KeyError("k"), "t") == "Error: tool 't' raised KeyError: 'k'"
    assert error_text(RuntimeError(), "t") == "Error: tool 't' raised RuntimeError."
    assert error_text(RuntimeError("secret"), "t", hide_details=True) == \
        "Error: tool 't' raised RuntimeError. Try different arguments or another approach."
    assert error_text(ToolValidationError("Invalid arguments for tool 't': bad."), "t") == \
        "Error: Invalid arguments for tool 't': bad."


# -- all schema work happens once, at decoration time ---------------------------------------------


def test_invoke_repeats_no_signature_or_schema_work(monkeypatch: pytest.MonkeyPatch) -> None:
    @tool
    def work(a: int, inner: Inner, note: str = "") -> int:
        """Work.

        Args:
            a: a number.
        """
        return a + inner.n

    @tool
    async def awork(a: int) -> int:
        """Async work."""
        return a

    calls: list[str] = []

    def spy(name: str) -> typing.Callable[..., typing.NoReturn]:
        def fail(*args: object, **kwargs: object) -> typing.NoReturn:
            calls.append(name)
            raise AssertionError(f"{name} called during invoke")
        return fail

    monkeypatch.setattr(inspect, "signature", spy("inspect.signature"))
    monkeypatch.setattr(typing, "get_type_hints", spy("typing.get_type_hints"))
    monkeypatch.setattr(docstring_parser, "parse", spy("docstring_parser.parse"))
    monkeypatch.setattr(toolwire.schema, "function_schema", spy("function_schema"))
    monkeypatch.setattr(toolwire.tools, "function_schema", spy("tools.function_schema"))
    monkeypatch.setattr(toolwire.tools, "model_schema", spy("tools.model_schema"))
    monkeypatch.setattr(toolwire._schema_defaults, "TypeAdapter", spy("_schema_defaults.TypeAdapter"))
    monkeypatch.setattr(pydantic, "TypeAdapter", spy("pydantic.TypeAdapter"))
    monkeypatch.setattr(toolwire.schema, "inline_refs", spy("inline_refs"))
    monkeypatch.setattr(toolwire._schema_refs, "inline_refs", spy("_schema_refs.inline_refs"))

    args = {"a": 1, "inner": {"n": 2}, "note": None}
    assert work.invoke(args) == 3
    assert work.invoke(call("work", args)).content == "3"
    assert asyncio.run(work.ainvoke(args)) == 3
    assert awork.invoke({"a": 5}) == 5
    assert asyncio.run(awork.ainvoke(call("awork", {"a": 6}))).content == "6"
    assert calls == []


def test_arguments_that_look_like_a_tool_call_are_arguments() -> None:
    @tool
    def tag(type: str, name: str, note: str = "") -> str:
        """Tag something."""
        return f"{type}:{name}:{note}"

    # extra keys (or no "args") mean these are arguments, even with "type": "tool_call"
    assert tag.invoke({"type": "tool_call", "name": "x", "note": "n"}) == "tool_call:x:n"
    message = tag.invoke(call("tag", {"type": "a", "name": "b"}))
    assert isinstance(message, ToolMessage) and message.content == "a:b:" and message.tool_call_id == "call_1"
    assert asyncio.run(tag.ainvoke({"type": "tool_call", "name": "x", "note": "n"})) == "tool_call:x:n"
