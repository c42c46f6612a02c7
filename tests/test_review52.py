"""Review 52 (a fresh reviewer checking README and docs against the code; no model loaded):

1. Context variables a sync tool set leaked back to the caller of ``tool.invoke`` (no timeout): the README says
   a tool runs in a copy of the caller's context.
2. OpenAI's own ``{"type": "web_search"}`` bound on Chat Completions was called "a server tool of another
   provider"; only the Responses API takes it.
3. The command line's missing-key error said "or pass api_key=...", an option it does not have.
4. A misspelled option of a provider class, ``load_tools`` or ``serve`` was a ``TypeError`` naming an internal
   class; ``init_chat_model`` already gave the close match.
5. A tool call written without ``"type": "tool_call"`` is read as arguments: the error now says how to pass one.
6. ``@tool`` on a lambda blamed the name ``'<lambda>'``.
7. A malformed executor item was answered as "the call to 'a tool'", which reads as a tool's name.
8. ``toolwire.models`` hid its provider classes from ``dir()`` and ``__all__``.
9. ``RecordedRequest.tool_choice`` is ``"auto"`` after a ``bind_tools`` without one (its docstring said None).
"""

from __future__ import annotations

import contextvars

import pytest
from typer.testing import CliRunner

from toolwire import AIMessage, SchemaError, Tool, ToolExecutor, ToolValidationError, UserError, cli, tool
from toolwire.testing import ScriptedChatModel

REQUEST_ID: contextvars.ContextVar[str] = contextvars.ContextVar("REQUEST_ID", default="none")


@tool
def remember(a: int) -> str:
    """Set the request id and say what it was.

    Args:
        a: any number.
    """
    before = REQUEST_ID.get()
    REQUEST_ID.set("changed by the tool")
    return before


# -- 1 -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("form", ["args", "tool_call", "timeout"])
def test_what_a_sync_tool_sets_in_its_context_does_not_leak_back(form: str) -> None:
    token = REQUEST_ID.set("req-1")
    try:
        if form == "args":
            seen = remember.invoke({"a": 1})
        elif form == "tool_call":
            seen = remember.invoke({"name": "remember", "args": {"a": 1}, "id": "c1", "type": "tool_call"}).content
        else:
            seen = remember.invoke({"a": 1}, timeout=5)
        assert seen == "req-1"  # the tool sees the caller's value
        assert REQUEST_ID.get() == "req-1"  # and what it set stays in its copy
    finally:
        REQUEST_ID.reset(token)


# -- 2 -------------------------------------------------------------------------------------------------


def test_openai_built_in_tools_on_chat_completions_point_to_the_responses_api() -> None:
    from toolwire.models import ChatOpenAI

    with pytest.raises(UserError, match=r"only the Responses API takes: .*use_responses_api=True"):
        ChatOpenAI("gpt-5-mini", api_key="sk-test").bind_tools([{"type": "web_search"}])
    ChatOpenAI("gpt-5-mini", api_key="sk-test", use_responses_api=True).bind_tools([{"type": "web_search"}])
    with pytest.raises(UserError, match="server tool of Anthropic"):  # another provider's is still named
        ChatOpenAI("gpt-5-mini", api_key="sk-test").bind_tools([{"type": "web_search_20250305", "name": "web_search"}])


# -- 3 -------------------------------------------------------------------------------------------------


def test_the_missing_key_error_names_api_key_in_python_and_not_on_the_command_line(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from toolwire.models import ChatOpenAI

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(UserError) as info:
        ChatOpenAI("gpt-5-mini")
    assert str(info.value) == "ChatOpenAI needs an API key: set OPENAI_API_KEY, or pass it as api_key."
    result = CliRunner().invoke(cli.app, ["ask", "q", "--model", "openai:gpt-5-mini"])
    assert result.exit_code != 0
    assert "needs an API key: set OPENAI_API_KEY." in result.output and "api_key" not in result.output


# -- 4 -------------------------------------------------------------------------------------------------


def test_misspelled_provider_options_get_the_close_match() -> None:
    from toolwire.models import ChatAnthropic, ChatOpenAI

    with pytest.raises(UserError, match=r"^Unknown ChatOpenAI option 'temprature': did you mean 'temperature'\?$"):
        ChatOpenAI("gpt-5-mini", api_key="sk-test", temprature=0)
    with pytest.raises(UserError, match=r"^Unknown ChatAnthropic option 'max_token': did you mean 'max_tokens'\?$"):
        ChatAnthropic("claude", api_key="sk-test", max_token=5)
    with pytest.raises(UserError, match="Unknown ChatOpenAI option 'dialect'"):  # a local model's option
        ChatOpenAI("gpt-5-mini", api_key="sk-test", dialect="json")


def test_init_chat_model_still_lets_dialect_through_for_a_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolwire.models import init_chat_model

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert init_chat_model("openai:gpt-5-mini", dialect="json").model == "gpt-5-mini"
    with pytest.raises(UserError, match="did you mean 'temperature'"):
        init_chat_model("openai:gpt-5-mini", temprature=0)


def test_misspelled_mcp_options_get_the_close_match() -> None:
    from toolwire.mcp import load_tools, serve

    with pytest.raises(UserError, match=r"^Unknown load_tools option 'conect_timeout': did you mean 'connect_timeout'"):
        load_tools("python -c pass", conect_timeout=5)
    with pytest.raises(UserError, match=r"^Unknown serve option 'prot': did you mean 'port'\?$"):
        serve([remember], prot=8000)


# -- 5, 6 ----------------------------------------------------------------------------------------------


def test_a_tool_call_without_its_type_is_read_as_arguments_and_the_error_says_so() -> None:
    with pytest.raises(ToolValidationError) as info:
        remember.invoke({"name": "remember", "args": {"a": 1}, "id": "c1"})
    assert str(info.value).endswith('To pass a tool call rather than arguments, add "type": "tool_call" to it.')
    with pytest.raises(ToolValidationError) as info:  # other bad arguments: no such hint
        remember.invoke({"a": "x", "name": "y"})
    assert "tool_call" not in str(info.value)


def test_a_lambda_tool_says_to_name_and_describe_it() -> None:
    with pytest.raises(SchemaError, match=r"^A lambda has no name or docstring to make a tool from: use "
                                          r"Tool\.from_function"):
        tool(lambda x: x)
    made = Tool.from_function(lambda x: x, name="echo", description="Echo x.")
    assert made.invoke({"x": 3}) == 3


# -- 7 -------------------------------------------------------------------------------------------------


def test_a_malformed_executor_item_is_not_called_a_tool_named_a_tool() -> None:
    [message] = ToolExecutor([remember]).execute(["junk"])  # type: ignore[list-item]
    assert message.status == "error"
    assert message.content.startswith("Error: a tool call was not valid: a tool call must be a dict")


# -- 8, 9 ----------------------------------------------------------------------------------------------


def test_the_models_package_lists_its_provider_classes() -> None:
    import toolwire.models as models

    for name in ("ChatOpenAI", "ChatAnthropic", "ChatGoogleGenAI", "ChatLlamaCpp", "init_chat_model"):
        assert name in dir(models)
    assert {"ChatOpenAI", "ChatAnthropic", "ChatGoogleGenAI"} <= set(models.__all__)
    assert all(getattr(models, name) is not None for name in models.__all__)


def test_recorded_tool_choice_is_auto_after_a_plain_bind() -> None:
    model = ScriptedChatModel([AIMessage("a"), AIMessage("b"), AIMessage("c")])
    model.bind_tools([remember]).invoke("x")
    model.bind_tools([remember], tool_choice=None).invoke("x")
    model.invoke("x")
    assert [request.tool_choice for request in model.requests] == ["auto", None, None]
