"""Review 37: the public API and the CLI with wrong input, as a careless or confused user writes it.

The first sixteen tests are the faults found (a crash, an internal error that does not say what to do, a silent
wrong result, lost data or a leaked secret), each failing before its fix; the rest are behaviours checked that
work. No GGUF model is loaded and nothing reaches the network: hosted models talk to a scripted server on
127.0.0.1.
"""

from __future__ import annotations

import functools
import socket
import traceback
from typing import Any

import pytest
from typer.testing import CliRunner

from providers.scripted_http import Answer, ScriptedServer
from toolwire import (
    Agent,
    AIMessage,
    HumanMessage,
    SystemMessage,
    ToolExecutor,
    ToolMessage,
    ToolwireError,
    UserError,
    tool,
)
from toolwire import cli as tw_cli
from toolwire.models.base import BaseChatModel
from toolwire.models.factory import init_chat_model
from toolwire.testing import ScriptedChatModel

KEY = "sk-review37SECRETkey0123456789abcdef"
CHAT_REPLY = {"id": "r1", "object": "chat.completion", "model": "m",
              "choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}]}


@tool
def get_weather(city: str) -> str:
    """Get the current weather of a city."""
    return f"It's always sunny in {city}!"


def _one_clear_error(exc: BaseException) -> None:
    assert isinstance(exc, ToolwireError), f"{type(exc).__name__}: {exc}"
    assert "\n" not in str(exc).strip()


# == faults =====================================================================================================


def test_following_the_advice_of_tools_own_errors_works() -> None:
    def nodoc(city: str) -> str:
        return city

    with pytest.raises(ToolwireError, match="pass description="):
        tool(nodoc)
    made = tool(nodoc, description="Echo the city.")  # what the error said to do
    assert made.description == "Echo the city."
    class Power:  # a callable object has no __name__ (a partial of a function takes the function's: review 77)
        def __call__(self, base: int, exp: int) -> int:
            return base ** exp

    with pytest.raises(ToolwireError, match="pass name="):
        tool(functools.partial(Power(), 2), description="2 ** exp.")
    made = tool(functools.partial(Power(), 2), name="power_of_two", description="2 ** exp.")
    assert made.name == "power_of_two"
    assert tool(functools.partial(pow, 2)).name == "pow"


def test_init_chat_model_with_the_model_keyword_is_not_a_local_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    try:
        model = init_chat_model(model="openai:gpt-4o")
    except UserError:
        return  # refused in one sentence: fine
    assert model.provider == "openai", repr(model)


def test_init_chat_model_with_a_name_that_is_not_text_is_one_sentence() -> None:
    for name in (5, ["openai:gpt-4o"]):
        with pytest.raises(UserError):
            init_chat_model(name)  # type: ignore[arg-type]


def test_a_misspelled_option_of_a_hosted_model_is_a_user_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with pytest.raises(UserError, match="temperature"):
        init_chat_model("openai:gpt-4o", temprature=0)


def test_an_api_key_with_a_line_end_never_shows_in_the_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY + "\n")
    with ScriptedServer() as server:
        server.push(Answer(200, CHAT_REPLY))
        model = init_chat_model("openai:m", base_url=server.url + "/v1", max_retries=0)
        try:
            reply = model.invoke("hi")
        except Exception as exc:  # an error is fine, as long as it does not show the key
            shown = "".join(traceback.format_exception(exc))
            assert KEY not in shown, str(exc)
        else:
            assert reply.text == "hi"  # the key was used without its line end


def test_an_api_key_with_a_pasted_quote_is_one_sentence(monkeypatch: pytest.MonkeyPatch) -> None:
    with ScriptedServer() as server:
        result = CliRunner().invoke(tw_cli.app, ["ask", "hi", "--model", f"openai-compatible:m@{server.url}/v1"],
                                    env={"OPENAI_API_KEY": KEY + "\u201d"})
    assert result.exit_code == 1
    assert isinstance(result.exception, SystemExit), repr(result.exception)  # no traceback
    assert "error:" in result.output and KEY not in result.output


def test_models_list_without_a_home_folder_says_to_set_toolwire_home(monkeypatch: pytest.MonkeyPatch) -> None:
    import pwd

    def no_entry(uid: int) -> Any:
        raise KeyError(uid)

    monkeypatch.delenv("HOME", raising=False)
    monkeypatch.delenv("TOOLWIRE_HOME", raising=False)
    monkeypatch.setattr(pwd, "getpwuid", no_entry)
    result = CliRunner().invoke(tw_cli.app, ["models", "list"])
    assert isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code == 1 and "TOOLWIRE_HOME" in result.output


def test_agent_checks_its_system_prompt_when_built() -> None:
    model = ScriptedChatModel(["done"], cycle=True)
    try:
        agent = Agent(model, [get_weather], system_prompt=SystemMessage("Be brief."))  # type: ignore[arg-type]
    except UserError:
        return  # refused at once in one sentence: fine
    result = agent.invoke("hi")  # or taken as the system message it is
    assert (result.messages[0].type, result.messages[0].content) == ("system", "Be brief.")


def test_agent_with_a_model_class_says_to_build_the_model() -> None:
    with pytest.raises(UserError, match="model"):
        Agent(ScriptedChatModel, [get_weather])  # type: ignore[arg-type]


def test_executor_call_with_an_ai_message_is_answered_or_refused_clearly() -> None:
    reply = AIMessage("", tool_calls=[{"name": "get_weather", "args": {"city": "Paris"}, "id": "c1"}])
    executor = ToolExecutor([get_weather])
    try:
        answers = executor.call(reply)  # type: ignore[arg-type]
    except UserError as exc:
        assert "execute" in str(exc)
        return
    assert [m.text for m in answers] == ["It's always sunny in Paris!"]


def test_a_number_in_a_user_messages_content_list_is_not_lost() -> None:
    from toolwire.models.lowering.openai import lower_messages

    try:
        message = HumanMessage(["The order number is", 42])  # type: ignore[list-item]
    except (UserError, TypeError) as exc:
        assert "42" in str(exc) or "int" in str(exc)
        return
    assert "42" in repr(lower_messages([message]))


def test_stdio_server_args_given_as_one_string_are_not_split_into_characters() -> None:
    from toolwire.mcp import StdioServer

    try:
        server = StdioServer("python", args="server.py")  # type: ignore[arg-type]
    except ToolwireError:
        return  # refused: fine
    assert list(server.args) == ["server.py"]


def test_serving_one_tool_instead_of_a_list_is_one_sentence() -> None:
    from toolwire.mcp import build_server

    with pytest.raises(UserError, match=r"\[get_weather\]|list"):
        build_server(get_weather)  # type: ignore[arg-type]


def test_serving_http_on_a_busy_port_raises_an_error_not_system_exit() -> None:
    from toolwire.mcp import serve

    with socket.create_server(("127.0.0.1", 0)) as busy:
        port = busy.getsockname()[1]
        try:
            serve([get_weather], transport="http", host="127.0.0.1", port=port)
        except SystemExit as exc:
            pytest.fail(f"serve() raised SystemExit({exc.code})")
        except ToolwireError as exc:
            assert str(port) in str(exc)
            return
    pytest.fail("serve() returned although the port was in use")


def test_tool_from_schema_refuses_a_function_that_does_not_take_the_schemas_arguments() -> None:
    from toolwire.interop import tool_from_schema

    spec = {"type": "function", "function": {
        "name": "add", "description": "Add two integers.",
        "parameters": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                       "required": ["a", "b"]}}}

    def add(x: int, y: int) -> int:
        return x + y

    with pytest.raises(ToolwireError):
        tool_from_schema(spec, add)


def test_yes_no_options_refuse_text() -> None:
    with pytest.raises(UserError):
        ToolExecutor([get_weather], handle_errors="false")  # type: ignore[arg-type]
    with pytest.raises(UserError):
        Agent(ScriptedChatModel(["x"]), [get_weather], hide_error_details="no")  # type: ignore[arg-type]

    def echo(x: int) -> int:
        """Echo x."""
        return x

    with pytest.raises(ToolwireError):
        tool(return_direct="no")(echo)  # type: ignore[call-overload]


# == checked, and working =========================================================================================


@pytest.mark.parametrize("call", [
    lambda m: m.invoke(None),
    lambda m: m.invoke({"role": "user"}),
    lambda m: m.invoke([("bogus", "hi")]),
    lambda m: m.bind_tools("get_weather"),
    lambda m: m.bind_tools([{}]),
    lambda m: m.bind_tools([get_weather, get_weather]),
    lambda m: m.bind_tools([get_weather], tool_choice="nope"),
    lambda m: m.bind_tools([get_weather], parallel_tool_calls="no"),
    lambda m: Agent(m, [get_weather], max_steps=0),
    lambda m: Agent(m, [get_weather], timeout="5"),
    lambda m: Agent(m, get_weather),
    lambda m: Agent(None, [get_weather]),
    lambda m: ToolExecutor([get_weather], max_concurrency=0),
    lambda m: ToolExecutor([get_weather]).execute({"name": "get_weather", "args": {}, "id": "1"}),
    lambda m: init_chat_model("openai:"),
    lambda m: init_chat_model("OpenAI:gpt-4o"),
])
def test_wrong_input_is_one_clear_sentence(call: Any) -> None:
    with pytest.raises(ToolwireError) as caught:
        call(ScriptedChatModel(["hi"], cycle=True))
    _one_clear_error(caught.value)


def test_langchain_message_shapes_are_read() -> None:
    model = ScriptedChatModel(["ok"], cycle=True)
    model.invoke([("user", "hi"), ("assistant", "yo"), ("human", "again")])
    assert model.requests[-1].messages == [HumanMessage("hi"), AIMessage("yo"), HumanMessage("again")]
    call = AIMessage("", tool_calls=[{"name": "get_weather", "args": '{"city": "Paris"}', "id": "c1"}]).tool_calls[0]
    assert call["args"] == {"city": "Paris"}  # arguments as JSON text are read
    assert isinstance(get_weather.invoke(call), ToolMessage)
    with pytest.raises(TypeError, match="tool_call_id"):
        ToolMessage("x")  # type: ignore[call-arg]


def test_api_keys_stay_out_of_reprs(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("openai:gpt-4o", "anthropic:claude-x", "google:gemini-x"):
        model = init_chat_model(name, api_key=KEY)
        assert isinstance(model, BaseChatModel)
        assert KEY not in repr(model) and KEY not in str(model) and KEY not in repr(model.bind_tools([get_weather]))


def test_cli_bad_tools_files_are_one_line(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "latin.py").write_bytes(b"\xff\xfe not utf-8")
    (tmp_path / "exits.py").write_text("import sys\nsys.exit(3)\n")
    (tmp_path / "folder").mkdir()
    for spec in ("missing.py", "folder", "latin.py", "exits.py"):
        result = CliRunner().invoke(tw_cli.app, ["ask", "hi", "--tools", spec, "--model", "/nonexistent.gguf"])
        assert result.exit_code == 1, (spec, result.output)
        assert isinstance(result.exception, SystemExit), (spec, repr(result.exception))
        assert result.output.startswith("error:") and spec in result.output


def test_cli_refuses_bad_option_values_before_any_model_loads() -> None:
    for args in (["ask", "hi", "--max-steps", "0"], ["ask", "hi", "--n-ctx", "10"], ["ask", ""],
                 ["ask", "hi", "--model", "nope"], ["ask", "hi", "--dialect", "xml"],
                 ["mcp", "serve", "--tools", "x.py", "--transport", "ws"]):
        result = CliRunner().invoke(tw_cli.app, args)
        assert result.exit_code in (1, 2), (args, result.output)
        assert isinstance(result.exception, SystemExit), (args, repr(result.exception))
