"""Review 39: a LangChain-style user's pass over tool_choice / parallel_tool_calls per provider, the README's and
docs' examples, tool dicts as the provider docs write them, and Agent edge cases.

The README and docs examples all ran as documented (with ScriptedChatModel and local servers). Faults found
(each fixed; each test failed before its fix):

1. Gemini: a generation option the SDK's ``GenerateContentConfig`` refuses (a typo such as ``temprature``,
   ``model_kwargs={"thinking_budget": ...}``) is reported as "The server answered with a body that is not a Gemini
   reply ... check base_url and any proxy", marked retryable and retried ``max_retries`` times, although no request
   was ever sent; the option's name is not shown.
2. ``bind_tools`` refuses the Responses API's own flat function-tool dict (``{"type": "function", "name", ...}``)
   with "A tool dict needs 'name'", which it has.
3. ``bind_tools`` drops the ``"strict": true`` of an OpenAI tool dict (the form of OpenAI's function-calling guide):
   Chat Completions gets no ``strict``, and the Responses API gets ``"strict": false``.
4. ``ChatOpenAI(use_responses_api=True).bind_tools([{"type": "web_search"}])`` (an OpenAI Responses built-in tool)
   is refused as "a server tool of another provider".
5. ``Agent(model, [], tool_choice=False | {"type": "auto"} | {"type": "none"})`` is refused: "forces a tool call",
   though ``bind_tools`` reads these as "none"/"auto".
6. ``Agent(anthropic_model, [server_tool], tool_choice="required")`` is refused: "the Agent has no tools", though the
   server tool is bound and ``bind_tools`` takes the same choice.
7. A bound tool named ``none`` (or ``auto``, ``required``) forced with the explicit dict form
   ``{"type": "function", "function": {"name": "none"}}`` is sent as the mode ``"none"``: calls are forbidden instead
   of forced. (Fixed by refusing it with a clear message: the neutral ``tool_choice`` is the name itself.)
8. A toolwire tool that returns a ``ToolMessage`` (as LangChain tools may) is answered with the quoted ``str()`` of
   the message (``'"content=\\'...\\' tool_call_id=...'"``): its content is mangled and its artifact lost, whereas a
   LangChain tool returning a LangChain ToolMessage keeps both.
9. ``toolwire ask --tools f.py``: entries of ``TOOLS`` that are not runnable toolwire tools (a provider server-tool
   dict, a pydantic schema class) are dropped silently.

No model weights, no network: provider tests use a tiny HTTP server on 127.0.0.1.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from toolwire import Agent, ToolMessage, tool
from toolwire.errors import UserError
from toolwire.testing import ScriptedChatModel

# -- a local server that records request bodies and answers each API with a plain text reply ------------------


def _reply(path: str) -> dict[str, Any]:
    if path.endswith("/chat/completions"):
        return {"id": "x", "object": "chat.completion", "created": 0, "model": "m",
                "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "hi"}}]}
    if path.endswith("/responses"):
        return {"id": "r", "object": "response", "created_at": 0, "model": "m", "status": "completed",
                "output": [{"type": "message", "id": "m1", "role": "assistant", "status": "completed",
                            "content": [{"type": "output_text", "text": "hi", "annotations": []}]}],
                "parallel_tool_calls": True, "tool_choice": "auto", "tools": []}
    if path.endswith("/messages"):
        return {"id": "msg", "type": "message", "role": "assistant", "model": "m",
                "content": [{"type": "text", "text": "hi"}], "stop_reason": "end_turn", "stop_sequence": None,
                "usage": {"input_tokens": 1, "output_tokens": 1}}
    return {"candidates": [{"content": {"role": "model", "parts": [{"text": "hi"}]}, "finishReason": "STOP",
                            "index": 0}]}


class _Recorder:
    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                owner.bodies.append(json.loads(self.rfile.read(int(self.headers.get("content-length") or 0))))
                data = json.dumps(_reply(self.path.split("?")[0])).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture
def recorder() -> Iterator[_Recorder]:
    made = _Recorder()
    yield made
    made.server.shutdown()
    made.server.server_close()


def _openai(recorder: _Recorder, **kwargs: Any) -> Any:
    pytest.importorskip("openai")
    from toolwire.models import ChatOpenAI

    return ChatOpenAI("gpt-x", base_url=recorder.url + "/v1", api_key="sk-review39-0000", max_retries=0, **kwargs)


@tool
def get_weather(city: str) -> str:
    """Get the current weather of a city."""
    return f"It's always sunny in {city}!"


# -- 1 -------------------------------------------------------------------------------------------------------


def test_gemini_option_the_sdk_refuses_is_a_clear_non_retryable_error(recorder: _Recorder) -> None:
    pytest.importorskip("google.genai")
    from toolwire.models import ChatGoogleGenAI

    model = ChatGoogleGenAI("gemini-2.5-flash", base_url=recorder.url, api_key="g-review39-0000", max_retries=2,
                            retry_backoff=0.001)
    with pytest.raises(Exception) as caught:
        model.invoke("hi", temprature=0.2)  # a typo of temperature
    error = caught.value
    assert recorder.bodies == []  # nothing was sent: the SDK refused the config before any request
    assert "not a Gemini reply" not in str(error)  # the server never answered anything
    assert getattr(error, "retryable", False) is False  # the same config fails the same way every time
    assert "temprature" in str(error)  # the option to fix is named


# -- 2 -------------------------------------------------------------------------------------------------------


def test_bind_tools_takes_the_responses_api_flat_function_dict() -> None:
    flat = {"type": "function", "name": "get_weather", "description": "Get the weather.",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}
    bound = ScriptedChatModel(["x"]).bind_tools([flat])
    assert [spec.name for spec in bound.tool_specs] == ["get_weather"]
    assert bound.tool_specs[0].parameters["required"] == ["city"]


# -- 3 -------------------------------------------------------------------------------------------------------

_STRICT_DICT = {"type": "function", "function": {
    "name": "get_weather", "description": "Get the weather.", "strict": True,
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"],
                   "additionalProperties": False}}}


def test_openai_tool_dict_keeps_its_strict_flag(recorder: _Recorder) -> None:
    _openai(recorder).bind_tools([_STRICT_DICT]).invoke("hi")
    _openai(recorder, use_responses_api=True).bind_tools([_STRICT_DICT]).invoke("hi")
    chat, responses = recorder.bodies
    assert chat["tools"][0]["function"].get("strict") is True
    assert responses["tools"][0]["strict"] is True


# -- 4 -------------------------------------------------------------------------------------------------------


def test_responses_api_built_in_tool_can_be_bound(recorder: _Recorder) -> None:
    model = _openai(recorder, use_responses_api=True)
    model.bind_tools([get_weather, {"type": "web_search"}]).invoke("hi")
    assert {"type": "web_search"} in recorder.bodies[-1]["tools"]


# -- 5 -------------------------------------------------------------------------------------------------------


def test_agent_without_tools_takes_non_forcing_tool_choice_forms() -> None:
    for choice in (False, {"type": "auto"}, {"type": "none"}):
        result = Agent(ScriptedChatModel(["hello"]), [], tool_choice=choice).invoke("hi")
        assert result.output == "hello"


# -- 6 -------------------------------------------------------------------------------------------------------


def test_agent_forcing_a_bound_server_tool(recorder: _Recorder) -> None:
    pytest.importorskip("anthropic")
    from toolwire.models import ChatAnthropic

    model = ChatAnthropic("claude-x", base_url=recorder.url, api_key="a-review39-0000", max_retries=0)
    web_search = {"type": "web_search_20250305", "name": "web_search", "max_uses": 2}
    assert model.bind_tools([web_search], tool_choice="required").tool_choice == "required"  # bind_tools takes it
    Agent(model, [web_search], tool_choice="required").invoke("news today?")
    assert recorder.bodies[-1]["tool_choice"] == {"type": "any"}


# -- 7 -------------------------------------------------------------------------------------------------------


@tool("none")
def none_tool(x: int) -> int:
    """Return x unchanged."""
    return x


def test_forcing_a_tool_whose_name_is_a_mode_word(recorder: _Recorder) -> None:
    # the neutral tool_choice cannot tell the tool "none" from the mode "none": forcing it is refused, never sent as
    # the mode (which forbids calls instead of forcing one); the tool itself binds and runs as any other
    forced = {"type": "function", "function": {"name": "none"}}
    with pytest.raises(UserError, match="rename the tool"):
        _openai(recorder).bind_tools([none_tool], tool_choice=forced)
    with pytest.raises(UserError, match="rename the tool"):
        ScriptedChatModel(["x"]).bind_tools([none_tool], tool_choice={"type": "tool", "name": "none"})
    _openai(recorder).bind_tools([none_tool], tool_choice="required").invoke("hi")
    assert recorder.bodies[-1]["tool_choice"] == "required"
    assert recorder.bodies == recorder.bodies[-1:]  # nothing was sent for the refused choices


# -- 8 -------------------------------------------------------------------------------------------------------


@tool
def returns_message(x: int) -> ToolMessage:
    """Return a ToolMessage with an artifact, as a LangChain tool may."""
    return ToolMessage("custom text", tool_call_id="ignored", artifact={"rows": [1, 2]})


def test_tool_returning_a_tool_message_keeps_content_and_artifact() -> None:
    answer = returns_message.invoke({"name": "returns_message", "args": {"x": 1}, "id": "c1", "type": "tool_call"})
    assert answer.tool_call_id == "c1"
    assert answer.content == "custom text"
    assert answer.artifact == {"rows": [1, 2]}


# -- 9 -------------------------------------------------------------------------------------------------------


def test_cli_tools_file_entries_are_not_dropped_silently(tmp_path: Path) -> None:
    from toolwire.cli import load_tools

    path = tmp_path / "review39_tools.py"
    path.write_text(
        "from pydantic import BaseModel\n"
        "from toolwire import tool\n\n"
        "@tool\n"
        "def get_time(zone: str) -> str:\n"
        "    \"\"\"Get the time in a zone.\"\"\"\n"
        "    return '12:00'\n\n"
        "class Lookup(BaseModel):\n"
        "    \"\"\"Look something up.\"\"\"\n"
        "    q: str\n\n"
        "TOOLS = [get_time, {'type': 'web_search_20250305', 'name': 'web_search'}, Lookup]\n"
    )
    try:
        tools = load_tools(str(path))
    except UserError as exc:  # refusing what it cannot serve, saying so, is fine too
        assert "Lookup" in str(exc) or "web_search" in str(exc)
        return
    names = {getattr(t, "name", None) for t in tools}
    assert {"get_time", "web_search", "Lookup"} <= names


def test_cli_tools_file_keeps_server_tools_for_ask_and_refuses_them_for_mcp(tmp_path: Path) -> None:
    from toolwire.cli import load_tools
    from toolwire.models.base import ServerTool

    path = tmp_path / "review39_servers.py"
    path.write_text(
        "from toolwire import tool\n\n"
        "@tool\n"
        "def get_time(zone: str) -> str:\n"
        "    \"\"\"Get the time in a zone.\"\"\"\n"
        "    return '12:00'\n\n"
        "TOOLS = [get_time, {'type': 'web_search_20250305', 'name': 'web_search'}]\n"
    )
    kept = load_tools(str(path), server_tools=True)
    assert [t.name for t in kept] == ["get_time", "web_search"] and isinstance(kept[1], ServerTool)
    with pytest.raises(UserError, match=r"web_search.*server tool"):
        load_tools(str(path))
