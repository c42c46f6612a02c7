"""Review 66: the hosted providers driven against fake servers (the official SDKs against the local wire
servers). Each test failed on the code before its fix; the checks that need no server are in
``tests/test_review66.py``.

F1. A malformed tool call went back in later requests with its broken ``arguments`` text; vLLM and SGLang
    ``json.loads`` every past call's arguments and answered 400 on every later request (vllm-project/vllm#43995).
    The Chat wire server now refuses arguments that do not parse, as vLLM does.
F2. Responses API with reasoning: the reasoning items went first, then an id-less assistant message, then the
    function calls; OpenAI wants each reasoning item followed by the item that followed it in the output. The
    output's order and the message items' ids are kept and sent back; the wire server checks the rule.
F4. Gemini's 429 ``retryDelay`` (in the body) was ignored; OpenAI's 429 ``insufficient_quota`` was retried and said
    "wait".
F5. ``with_structured_output`` always sent ``parallel_tool_calls: false`` (o3 and o4-mini refuse it).
F6. Parse errors showed ``{"city": "Paris"}`` whatever the tool; a call cut by the token limit was told to "send the
    complete JSON".
F7. Gemini's async timeout bounded a whole stream (aiohttp's total) where the sync one bounds each read.
F8. A proxy's HTML page with status 200 on a stream was a retryable "stream ended" (Gemini retried it).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

from toolwire import Agent, AIMessage, HumanMessage, ProviderError, ToolMessage, tool
from toolwire.messages import merge_chunks
from toolwire.models import _retry as retry_module
from toolwire.models.lowering._calls import CUT_OFF
from toolwire.models.lowering.openai import (
    ResponsesStreamState,
    lower_responses_messages,
    parse_responses_response,
)

from .conftest import build_model
from .scripted_http import Answer, ScriptedServer
from .wire_openai import OpenAIChat, OpenAIResponses
from .wire_raw import Raw, chunk, completion
from .wire_servers import Reply, WireServer, sse


@tool
def write_file(path: str, text: str) -> str:
    """Write a text file."""
    return f"wrote {len(text)} characters to {path}"


@tool
def get_weather(city: str) -> str:
    """Get the weather of a city."""
    return f"sunny in {city}"


def merged(model: Any, prompt: Any = "q") -> AIMessage:
    return merge_chunks(list(model.stream(prompt)), as_chunk=False)  # type: ignore[return-value]


# --------------------------------------------------------------------------- F1: past calls as valid JSON

def test_the_chat_wire_server_refuses_past_arguments_that_do_not_parse():
    """The fake applies vLLM's rule, so a lowering that sent the raw text fails every test that sends one back."""
    body = {"model": "m", "messages": [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "write_file", "arguments": '{"path": "a'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "Error"}]}
    problems = OpenAIChat().validate(body, {"authorization": "Bearer x"}, "chat", None)  # type: ignore[arg-type]
    assert any("function.arguments: is not valid JSON" in p for p in problems)


def _write_file_call(arguments: str, streaming: bool) -> Raw:
    """A Chat Completions reply (streamed or whole) calling write_file with these arguments, as written."""
    call = {"id": "c1", "type": "function", "function": {"name": "write_file", "arguments": arguments}}
    if streaming:
        return Raw(events=[chunk({"tool_calls": [{"index": 0, **call}]}), chunk({}, "tool_calls"), "[DONE]"])
    return Raw(body=completion({"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls"))


@pytest.mark.parametrize("streaming", [False, True])
def test_an_agent_run_goes_on_after_a_malformed_call(raw, make, streaming):
    bad = '{"path": "a.txt", "text": "He said "hi""}'
    first = _write_file_call(bad, streaming)
    raw.queue(first, Reply(text="done"))
    result = Agent(make(streaming=streaming), [write_file]).invoke("write it")
    assert result.output == "done"  # (was: 400 on the second request, and on every resume)
    sent = raw.requests[-1].body["messages"][1]["tool_calls"][0]["function"]["arguments"]
    assert json.loads(sent) == {"path": "a.txt", "text": "He said "}
    assert result.messages[2].status == "error"  # the error result still says what was wrong


# --------------------------------------------------------------------------- F2: reasoning items in order

def _response(output: list[dict[str, Any]], rid: str = "resp_1") -> dict[str, Any]:
    return {"id": rid, "object": "response", "created_at": 1, "status": "completed", "model": "gpt-5-mini",
            "output": output, "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
            "usage": {"input_tokens": 5, "output_tokens": 5, "total_tokens": 10}}


def _message(item_id: str, text: str) -> dict[str, Any]:
    return {"type": "message", "id": item_id, "status": "completed", "role": "assistant",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}


def _call(item_id: str, call_id: str, city: str) -> dict[str, Any]:
    return {"type": "function_call", "id": item_id, "call_id": call_id, "name": "get_weather",
            "arguments": json.dumps({"city": city}), "status": "completed"}


def _reasoning(item_id: str) -> dict[str, Any]:
    return {"type": "reasoning", "id": item_id, "summary": [], "encrypted_content": f"enc-{item_id}"}


PREAMBLE = [_reasoning("rs_a"), _message("msg_a", "Let me check."), _reasoning("rs_b"), _call("fc_b", "call_b", "Oslo")]


def _stream_events(output: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A Responses stream of ``output``: every item added and done, text and arguments as deltas."""
    out: list[dict[str, Any]] = [{"type": "response.created", "response": {**_response([]), "status": "in_progress"}}]
    for index, item in enumerate(output):
        opened = {**item, "arguments": ""} if item["type"] == "function_call" else (
            {**item, "status": "in_progress", "content": []} if item["type"] == "message" else item)
        out.append({"type": "response.output_item.added", "output_index": index, "item": opened})
        if item["type"] == "message":
            out.append({"type": "response.output_text.delta", "output_index": index, "item_id": item["id"],
                        "content_index": 0, "delta": item["content"][0]["text"]})
        elif item["type"] == "function_call":
            out.append({"type": "response.function_call_arguments.delta", "output_index": index,
                        "item_id": item["id"], "delta": item["arguments"]})
        out.append({"type": "response.output_item.done", "output_index": index, "item": item})
    out.append({"type": "response.completed", "response": _response(output)})
    return [{**event, "sequence_number": n} for n, event in enumerate(out)]


class RawResponses(OpenAIResponses):
    """The Responses adapter answering :class:`Raw` replies verbatim; the reasoning items of each reply are
    registered with the server, whose rule (``OpenAIResponses._item_order``) checks they come back in order."""

    def _remember(self, output: list[dict[str, Any]], server: WireServer) -> None:
        for item, after in itertools.pairwise(output):
            if item.get("type") == "reasoning" and after.get("id"):
                server.followers[item["id"]] = after["id"]

    def render(self, reply: Reply, body: dict[str, Any], model: str, server: WireServer) -> dict[str, Any]:
        assert isinstance(reply, Raw) and reply.body is not None
        self._remember(reply.body["output"], server)
        return reply.body

    def render_stream(self, reply: Reply, body: dict[str, Any], model: str, server: WireServer) -> list[bytes]:
        assert isinstance(reply, Raw) and reply.events is not None
        self._remember(reply.events[-1]["response"]["output"], server)
        return [sse(e, e["type"]) for e in reply.events]


@pytest.fixture
def responses() -> Iterator[WireServer]:
    with WireServer(RawResponses(), brain=None) as server:
        yield server
    assert not server.problems, f"requests the real API would reject: {server.problems}"


def _reply(output: list[dict[str, Any]], streaming: bool, rid: str = "resp_1") -> Raw:
    return Raw(events=_stream_events(output)) if streaming else Raw(body=_response(output, rid))


@pytest.mark.parametrize("streaming", [False, True])
def test_a_preamble_goes_back_between_its_reasoning_items(responses, streaming):
    responses.queue(_reply(PREAMBLE, streaming), _reply([_message("msg_c", "Sunny.")], streaming, "resp_2"))
    model = build_model("openai-responses", responses.url, streaming=streaming)
    result = Agent(model, [get_weather]).invoke("Weather in Oslo?")
    assert result.output == "Sunny."
    sent = responses.requests[-1].body["input"]
    assert [item.get("id") for item in sent[1:5]] == ["rs_a", "msg_a", "rs_b", "fc_b"]
    assert sent[2] == _message("msg_a", "Let me check.") and sent[3] == _reasoning("rs_b")


@pytest.mark.parametrize("streaming", [False, True])
def test_a_text_answer_goes_back_with_its_message_id_after_its_reasoning(responses, streaming):
    responses.queue(_reply([_reasoning("rs_1"), _call("fc_1", "call_1", "Paris")], streaming),
                    _reply([_reasoning("rs_2"), _message("msg_2", "It is sunny.")], streaming, "resp_2"),
                    _reply([_message("msg_3", "Also sunny.")], streaming, "resp_3"))
    agent = Agent(build_model("openai-responses", responses.url, streaming=streaming), [get_weather])
    first = agent.invoke("Weather in Paris?")
    agent.invoke([*first.messages, HumanMessage("And tomorrow?")])  # (was: 400, rs_2 without msg_2)
    sent = responses.requests[-1].body["input"]
    at = next(i for i, item in enumerate(sent) if item.get("id") == "rs_2")
    assert sent[at + 1] == _message("msg_2", "It is sunny.")


def test_invoke_and_stream_keep_the_same_output_order():
    whole = parse_responses_response(_response(PREAMBLE))
    state = ResponsesStreamState()
    chunks = [c for c in map(state.feed, _stream_events(PREAMBLE)) if c is not None] + [state.finish()]
    assert merge_chunks(chunks, as_chunk=False) == whole
    assert whole.provider_data["openai"]["output"] == [  # type: ignore[index]
        {"type": "reasoning", "index": 0}, _message("msg_a", "Let me check."), {"type": "reasoning", "index": 1},
        {"type": "function_call", "id": "fc_b", "call_id": "call_b"}]


def test_a_built_in_tools_item_after_reasoning_goes_back_in_its_place():
    search = {"type": "web_search_call", "id": "ws_1", "status": "completed",
              "action": {"type": "search", "query": "weather Oslo"}}
    reply = parse_responses_response(_response([_reasoning("rs_1"), search, _message("msg_1", "Sunny in Oslo.")]))
    items = lower_responses_messages([HumanMessage("q"), reply, HumanMessage("thanks")])
    assert items[1:4] == [_reasoning("rs_1"), search, _message("msg_1", "Sunny in Oslo.")]


def test_a_reply_kept_without_the_order_goes_back_as_before():
    """An AIMessage stored by an older toolwire (reasoning and call ids, no output order) still lowers."""
    message = AIMessage("Checking.", tool_calls=[{"name": "get_weather", "args": {"city": "Oslo"}, "id": "call_1"}],
                        provider_data={"openai": {"reasoning": [_reasoning("rs_1")],
                                                  "function_call_ids": {"call_1": "fc_1"}}})
    items = lower_responses_messages([HumanMessage("q"), message, ToolMessage("sunny", tool_call_id="call_1")])
    assert [i.get("id") or i.get("role") for i in items[1:4]] == ["rs_1", "assistant", "fc_1"]


def test_the_responses_wire_server_checks_the_reasoning_order():
    server: Any = type("S", (), {"followers": {"rs_1": "msg_1"}, "issued": {}, "returned": []})()
    old = [{"role": "user", "content": "q"}, _reasoning("rs_1"), {"role": "assistant", "content": "Hi."}]
    problems = OpenAIResponses().validate({"model": "m", "input": old}, {}, "responses", server)
    assert any("was provided without its required following item" in p for p in problems)
    alone = [{"role": "user", "content": "q"}, _message("msg_1", "Hi.")]
    problems = OpenAIResponses().validate({"model": "m", "input": alone}, {}, "responses", server)
    assert any("without its required 'reasoning' item" in p for p in problems)


# --------------------------------------------------------------------------- F4: retry delays and billing

GEMINI_429 = {"error": {"code": 429, "status": "RESOURCE_EXHAUSTED", "message": "Quota exceeded.", "details": [
    {"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": []},
    {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "7s"}]}}


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The retry policy's waits, recorded instead of slept."""
    slept: list[float] = []
    monkeypatch.setattr(retry_module, "time", type("T", (), {"sleep": staticmethod(slept.append)}))
    return slept


def test_gemini_retry_delay_in_the_body_is_honoured(waits):
    reply = {"candidates": [{"content": {"role": "model", "parts": [{"text": "ok"}]}, "finishReason": "STOP"}]}
    with ScriptedServer() as server:
        server.push(Answer(429, GEMINI_429), Answer(200, reply))
        model = build_model("gemini", server.url, max_retries=1)
        assert model.invoke("q").text == "ok"
    assert waits == [7.0]  # (was: about 0.5, the backoff)


QUOTA = {"error": {"message": "You exceeded your current quota, please check your plan and billing details.",
                   "type": "insufficient_quota", "param": None, "code": "insufficient_quota"}}


def test_insufficient_quota_is_not_retried_and_says_to_add_credit(raw, make, waits):
    raw.queue(raw.fail(429, QUOTA), raw.fail(429, QUOTA))
    with pytest.raises(ProviderError) as caught:
        make(max_retries=2).invoke("q")
    error = caught.value
    assert len(raw.requests) == 1 and not error.retryable and error.status == 429 and not waits
    assert "add credit" in str(error) and "wait" not in str(error) and "max_retries" not in str(error)


# --------------------------------------------------------------------------- F5: structured output

def test_structured_output_does_not_send_parallel_tool_calls_to_openai(raw, make):
    from pydantic import BaseModel

    class City(BaseModel):
        name: str

    two = [{"id": f"c{n}", "type": "function", "function": {"name": "City", "arguments": json.dumps({"name": city})}}
           for n, city in enumerate(["Paris", "Rome"])]
    raw.queue(Raw(body=completion({"role": "assistant", "content": None, "tool_calls": two}, "tool_calls")))
    out = make().with_structured_output(City, include_raw=True).invoke("Where is the Eiffel Tower?")
    assert "parallel_tool_calls" not in raw.requests[-1].body  # (was: false, which o3 and o4-mini refuse)
    assert out["parsed"] == City(name="Paris") and len(out["raw"].tool_calls) == 1  # one call kept all the same
    raw.queue(Raw(body=completion({"role": "assistant", "content": None, "tool_calls": two[:1]}, "tool_calls")))
    make().bind_tools([], parallel_tool_calls=False).with_structured_output(City).invoke("?")
    assert raw.requests[-1].body["parallel_tool_calls"] is False  # where the user asked for it


# --------------------------------------------------------------------------- F6: errors the model can act on

@pytest.mark.parametrize("streaming", [False, True])
def test_the_agents_error_result_shows_the_tools_shape(raw, make, streaming):
    bad = '{"path": "a.txt" "text": "hi"}'
    first = _write_file_call(bad, streaming)
    raw.queue(first, Reply(text="done"))
    result = Agent(make(streaming=streaming), [write_file]).invoke("q")
    assert '{"path": <text>, "text": <text>}' in result.messages[2].text
    assert '"city"' not in result.messages[2].text


CUT = '{"path": "a.txt", "text": "Lorem ipsum dolor sit'


def test_a_call_cut_at_the_token_limit_says_so_invoked_and_streamed(raw, make):
    call = {"id": "c1", "type": "function", "function": {"name": "write_file", "arguments": CUT}}
    raw.queue(Raw(body=completion({"role": "assistant", "content": None, "tool_calls": [call]}, "length")),
              Raw(events=[chunk({"tool_calls": [{"index": 0, **call}]}), chunk({}, "length"), "[DONE]"]))
    model = make().bind_tools([write_file])
    invoked, streamed = model.invoke("q"), merged(model)
    for reply in (invoked, streamed):
        (bad,) = reply.invalid_tool_calls
        assert bad["error"] == CUT_OFF and bad["args"] == CUT  # (was: "send the complete JSON object")
    assert "max_tokens" in CUT_OFF and "shorter arguments" in CUT_OFF


# --------------------------------------------------------------------------- F7: Gemini's async timeout

def _gemini_chunk(text: str, finish: str | None = None) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": [{"text": text}]}, "index": 0}
    return {"candidates": [{**candidate, "finishReason": finish}] if finish else [candidate]}


SLOW = [_gemini_chunk("a"), _gemini_chunk("b"), _gemini_chunk("c"), _gemini_chunk("d", "STOP")]


def _astream_text(model: Any) -> str:
    async def main() -> str:
        return "".join([c.text async for c in model.astream("q")])

    return asyncio.run(main())


def test_gemini_async_stream_bounds_each_chunk_not_the_whole_stream():
    with ScriptedServer() as server:
        # (a 1 s timeout and 0.4 s pauses, not 0.5 and 0.25: each chunk keeps 0.6 s to spare on a loaded machine)
        server.push(Answer(events=SLOW, pauses=[0.0, 0.4, 0.4, 0.4]))
        model = build_model("gemini", server.url, timeout=1.0)
        started = time.monotonic()
        assert _astream_text(model) == "abcd"  # (was: timed out at 1 s, the total)
        assert time.monotonic() - started >= 1.2
        server.push(Answer(events=SLOW, pauses=[0.0, 2.5]))
        with pytest.raises(ProviderError, match=r"timed out after 1 s"):
            _astream_text(model)  # a chunk that does not come in time still fails


# --------------------------------------------------------------------------- F8: a proxy's page on a stream

PAGE = "<html><body><h1>Sign in to Corporate Proxy</h1></body></html>"


@pytest.mark.parametrize("provider", ["openai-chat", "anthropic", "gemini"])
def test_a_proxy_page_on_a_stream_says_to_check_base_url(provider):
    with ScriptedServer() as server:
        server.push(*[Answer(body=PAGE, content_type="text/html")] * 3)
        model = build_model(provider, server.url, max_retries=2, streaming=True)
        with pytest.raises(ProviderError) as caught:
            model.invoke("hi")
        assert len(server.requests) == 1 and not caught.value.retryable  # (was: retryable, Gemini retried it)
        assert "Check base_url and any proxy" in str(caught.value)


def test_a_stream_of_events_that_ends_before_its_first_still_may_be_retried():
    with ScriptedServer() as server:
        server.push(Answer(events=[]), Answer(events=[]))
        with pytest.raises(ProviderError, match="stream ended before the reply was complete") as caught:
            build_model("anthropic", server.url, max_retries=1, streaming=True).invoke("hi")
    assert caught.value.retryable


def test_a_gemini_stream_line_cut_mid_json_stays_retryable():
    with ScriptedServer() as server:
        server.push(*[Answer(body=b'data: {"candidates": [{"content": \r\n\r\n', content_type="text/event-stream")] * 2)
        with pytest.raises(ProviderError) as caught:
            build_model("gemini", server.url, max_retries=1, streaming=True).invoke("hi")
    assert caught.value.retryable and len(server.requests) == 2
