"""Review 262 #1: Mistral-family servers (api.mistral.ai, vLLM in Mistral mode, llama.cpp with a Mistral template)
refuse every tool call id that is not 9 letters and digits. ``ChatOpenAI`` sends such a target each call id mapped to
that form (alike in the call and its result, deterministic, collision-free, ids that fit kept); toolwire's own
messages keep their ids, and every other target's request is unchanged."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from tests._queued_http import QueuedServer, serving

from toolwire import Agent, AIMessage, HumanMessage, ToolMessage, tool
from toolwire.errors import UserError
from toolwire.models import ChatOpenAI
from toolwire.models.base import ChatRequest
from toolwire.models.lowering import openai as codec

_FITS = re.compile(r"[a-zA-Z0-9]{9}")


def _bad_id(body: dict[str, Any]) -> str | None:
    """The first id mistral_common would refuse in a Chat Completions body, else None."""
    ids = [c["id"] for m in body["messages"] for c in m.get("tool_calls") or []]
    ids += [m["tool_call_id"] for m in body["messages"] if m["role"] == "tool"]
    return next((i for i in ids if not _FITS.fullmatch(i)), None)


def _reply(message: dict[str, Any]) -> dict[str, Any]:
    return {"id": "x", "object": "chat.completion", "created": 0, "model": "mistral",
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}


def _mistral_answer(body: Any, n: int) -> Any:
    """A Mistral model behind vLLM's Mistral mode without a tool parser: the first reply's call comes as
    ``[TOOL_CALLS]`` text (toolwire reads it and gives it an id of its own), every id sent back is checked."""
    bad = _bad_id(body)
    if bad is not None:
        return 400, {"object": "error", "message": f"Tool call id was {bad} but must be a-z, A-Z, 0-9, with a "
                     "length of 9.", "type": "BadRequestError", "param": None, "code": 400}
    if n == 0:
        return _reply({"role": "assistant",
                       "content": '[TOOL_CALLS][{"name": "web_search", "arguments": {"q": "rain in Oslo"}}]'})
    return _reply({"role": "assistant", "content": "It rains in Oslo."})


@pytest.fixture
def server() -> Iterator[QueuedServer]:
    with serving("/v1") as found:
        found.answer = _mistral_answer
        yield found


@tool
def web_search(q: str) -> str:
    """Search the web."""
    return "It rains in Oslo."


_HISTORY = [
    HumanMessage("Weather in Oslo?"),
    AIMessage("", tool_calls=[{"name": "get_weather", "args": {"city": "Oslo"}, "id": "call_Qx3bT9kLmN2pR7sV8wY1zA4c"},
                              {"name": "get_weather", "args": {"city": "Bergen"}, "id": "abc123def"}]),
    ToolMessage("Rain, 8 C", tool_call_id="call_Qx3bT9kLmN2pR7sV8wY1zA4c"),
    ToolMessage("Sun, 12 C", tool_call_id="abc123def"),
    AIMessage("", tool_calls=[{"name": "get_weather", "args": {"city": "Oslo"}, "id": "c1"},
                              {"name": "get_weather", "args": {"city": "Bergen"}, "id": "c1_2"},
                              {"name": "get_weather", "args": {"city": "Tromsø"}, "id": "functions.get_weather:0"}]),
    ToolMessage("Rain", tool_call_id="c1"),
    ToolMessage("Sun", tool_call_id="c1_2"),
    ToolMessage("Snow", tool_call_id="functions.get_weather:0"),
    AIMessage("Rain in Oslo, sun in Bergen, snow in Tromsø."),
    HumanMessage("And tomorrow?"),
]


def _body(model: ChatOpenAI, messages: list[Any] | None = None) -> dict[str, Any]:
    return model._lower(ChatRequest(messages=list(_HISTORY if messages is None else messages)))


def _pairs(body: dict[str, Any]) -> tuple[list[str], list[str]]:
    calls = [c["id"] for m in body["messages"] for c in m.get("tool_calls") or []]
    results = [m["tool_call_id"] for m in body["messages"] if m["role"] == "tool"]
    return calls, results


def test_agent_with_ids_of_its_own_runs_on_a_mistral_model(server: QueuedServer) -> None:
    llm = ChatOpenAI(model="mistralai/Mistral-7B-Instruct-v0.3", base_url=server.url)
    result = Agent(llm, [web_search]).invoke("Is it raining in Oslo?")
    assert result.output == "It rains in Oslo."
    sent = server.requests[-1]
    assert _bad_id(sent) is None
    calls, results = _pairs(sent)
    assert len(calls) == 1 and calls == results
    own = next(m for m in result.messages if isinstance(m, AIMessage) and m.tool_calls).tool_calls[0]["id"]
    assert own != calls[0]  # (toolwire's own id, kept on its message)
    assert [m.tool_call_id for m in result.messages if isinstance(m, ToolMessage)] == [own]


def _final(body: Any, n: int) -> Any:
    """The answer to a request whose ids pass: a whole reply, or the same as stream chunks."""
    found = _mistral_answer(body, 1)
    if isinstance(found, tuple) or not body.get("stream"):
        return found
    delta = {"id": "x", "object": "chat.completion.chunk", "created": 0, "model": "mistral"}
    return [{**delta, "choices": [{"index": 0, "delta": {"role": "assistant", "content": "It rains in Oslo."},
                                   "finish_reason": None}]},
            {**delta, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}]


def test_stream_and_async_send_the_same_ids(server: QueuedServer) -> None:
    server.answer = _final
    whole = ChatOpenAI(model="mistral-small-latest", base_url=server.url, api_key="k").invoke(_HISTORY)
    assert whole.text == "It rains in Oslo."
    streamed = ChatOpenAI(model="mistral-small-latest", base_url=server.url, api_key="k", streaming=True)
    assert asyncio.run(streamed.ainvoke(_HISTORY)).text == "It rains in Oslo."
    first, second = server.requests[-2:]
    assert second.get("stream") and first["messages"] == second["messages"] and _bad_id(first) is None


@pytest.mark.parametrize("model", ["mistral-small-latest", "open-mixtral-8x22b", "codestral-latest",
                                   "ministral-8b-latest", "devstral-small-2507", "magistral-medium-latest",
                                   "pixtral-12b", "mistralai/Mistral-Small-3.2-24B-Instruct-2506",
                                   "Mistral-Nemo-Instruct-2407-Q4_K_M.gguf", "voxtral-mini-latest"])
def test_family_found_by_model_name(model: str) -> None:
    body = _body(ChatOpenAI(model=model, base_url="http://127.0.0.1:8000/v1"))
    assert _bad_id(body) is None


def test_family_found_by_host_and_forced_by_option() -> None:
    hosted = ChatOpenAI(model="some-served-name", base_url="https://api.mistral.ai/v1", api_key="k")
    assert _bad_id(_body(hosted)) is None
    forced = ChatOpenAI(model="my-finetune", base_url="http://127.0.0.1:8000/v1", mistral_call_ids=True)
    assert _bad_id(_body(forced)) is None
    off = ChatOpenAI(model="mistral-small-latest", base_url="https://api.mistral.ai/v1", api_key="k",
                     mistral_call_ids=False)
    assert _bad_id(_body(off)) == "call_Qx3bT9kLmN2pR7sV8wY1zA4c"


def test_ids_pair_up_are_distinct_and_ids_that_fit_are_kept() -> None:
    body = _body(ChatOpenAI(model="mistral-small-latest", base_url="http://127.0.0.1:8000/v1"))
    calls, results = _pairs(body)
    assert calls == results and len(set(calls)) == len(calls) == 5
    assert calls[1] == "abc123def"
    assert all(_FITS.fullmatch(i) for i in calls)


def test_same_conversation_same_bytes_and_a_longer_one_keeps_the_prefix() -> None:
    model = ChatOpenAI(model="mistral-small-latest", base_url="http://127.0.0.1:8000/v1")
    first = json.dumps(_body(model))
    assert json.dumps(_body(ChatOpenAI(model="mistral-small-latest", base_url="http://127.0.0.1:8000/v1"))) == first
    longer = [*_HISTORY, AIMessage("", tool_calls=[{"name": "get_weather", "args": {"city": "Oslo"}, "id": "call_9"}]),
              ToolMessage("Rain", tool_call_id="call_9")]
    body = _body(model, longer)
    assert json.dumps(body["messages"][:len(_HISTORY)]) == json.dumps(json.loads(first)["messages"])
    assert _bad_id(body) is None


def test_colliding_hashes_still_give_distinct_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    import hashlib

    from toolwire.models import _template_conversation as mapping

    class Colliding:  # every first try of an id gives the same text, as a hash collision would
        @staticmethod
        def sha256(data: bytes) -> Any:
            real = hashlib.sha256(data)
            return type("H", (), {"hexdigest": lambda self: real.hexdigest() if b"#" in data else "0" * 64})()

    monkeypatch.setattr(mapping, "hashlib", Colliding)
    many = [AIMessage("", tool_calls=[{"name": "f", "args": {}, "id": f"call_{n}"} for n in range(300)])]
    many += [ToolMessage("ok", tool_call_id=f"call_{n}") for n in range(300)]
    calls, results = _pairs(_body(ChatOpenAI(model="mistral-large", base_url="http://127.0.0.1:8000/v1"), many))
    assert calls == results and len(set(calls)) == 300 and all(_FITS.fullmatch(i) for i in calls)


def test_own_messages_keep_their_ids() -> None:
    history = [m.model_copy(deep=True) for m in _HISTORY]
    before = [m.model_dump() for m in history]
    _body(ChatOpenAI(model="mistral-small-latest", base_url="http://127.0.0.1:8000/v1"), history)
    assert [m.model_dump() for m in history] == before


@pytest.mark.parametrize("settings", [
    {"model": "gpt-5-mini", "api_key": "k"},
    {"model": "Qwen/Qwen3-8B", "base_url": "http://127.0.0.1:8000/v1"},
    {"model": "llama3.1", "base_url": "http://127.0.0.1:11434/v1"},
    {"model": "mistral-small-latest", "base_url": "http://127.0.0.1:8000/v1", "mistral_call_ids": False},
])
def test_other_targets_send_the_same_bytes(settings: dict[str, Any]) -> None:
    model = ChatOpenAI(**settings)
    request = ChatRequest(messages=list(_HISTORY))
    field = "max_tokens" if model._compatible else "max_completion_tokens"
    expected = codec.lower_request(request, model.model, model.options, max_tokens_field=field,
                                   compatible=model._compatible)
    assert json.dumps(model._lower(request)) == json.dumps(expected)


def test_responses_api_is_unchanged() -> None:
    model = ChatOpenAI(model="mistral-small-latest", base_url="http://127.0.0.1:8000/v1", use_responses_api=True)
    request = ChatRequest(messages=list(_HISTORY))
    assert json.dumps(model._lower(request)) == json.dumps(
        codec.lower_responses_request(request, model.model, model.options))


def test_option_must_be_a_bool() -> None:
    with pytest.raises(UserError, match="mistral_call_ids must be True, False or None"):
        ChatOpenAI(model="m", base_url="http://127.0.0.1:8000/v1", mistral_call_ids="yes")  # type: ignore[arg-type]
