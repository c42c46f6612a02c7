"""Review 72: OpenAI replies cut short, and Responses API text that only the finishing events carry.

2. A Chat Completions stream that ended without a ``finish_reason`` (no ``data: [DONE]`` either) was taken as a
   whole reply: text cut mid-sentence came back as the answer, and a parallel call cut right after its header
   (``"arguments": ""``) became a valid ``{}`` call the Agent ran with its defaults. Under OpenAI's rules
   (``compatible=False``) such a stream is now a retryable ProviderError, as in the other codecs; with
   ``compatible=True`` it is still read (a warning), but a call whose argument text never began or is unclosed
   is an invalid call with the cut-off error, never run.
3. ``finish_reason: "length"`` with a call whose ``arguments`` is ``""`` (cut right after the name) read as a valid
   ``{}`` call, in ``invoke`` and ``stream``; it is now the cut-off invalid call (``""`` stays ``{}`` in a reply
   that finished normally). The Responses API's ``incomplete`` replies alike.
4. A Responses API stream whose message text came only in ``response.output_text.done``,
   ``response.content_part.done``, ``response.output_item.done`` or ``response.completed`` (no deltas) lost it, and
   a lost delta lost its text: the finishing events' text now fills in what the deltas did not bring.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import httpx
import pytest

from toolwire import Agent, tool
from toolwire.errors import ProviderError
from toolwire.messages import AIMessage, merge_chunks
from toolwire.models.lowering._calls import CUT_OFF, STREAM_CUT
from toolwire.models.lowering.openai import (
    ResponsesStreamState,
    StreamState,
    parse_response,
    parse_responses_response,
)

openai = pytest.importorskip("openai")

# --------------------------------------------------------------------------- helpers


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o-mini",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def _call_piece(index: int, call_id: str | None, name: str | None, args: str) -> dict[str, Any]:
    fn = {"arguments": args, **({"name": name} if name else {})}
    return _chunk({"tool_calls": [{"index": index, **({"id": call_id} if call_id else {}), "type": "function",
                                   "function": fn}]})


def _chat(calls: list[tuple[str, Any, str]], finish: str | None) -> dict[str, Any]:
    tool_calls = [{"id": i, "type": "function", "function": {"name": n, **({} if a is None else {"arguments": a})}}
                  for n, a, i in calls]
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4o-mini",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": None, "tool_calls": tool_calls},
                         "finish_reason": finish}]}


def _fold(state: Any, events: list[dict[str, Any]]) -> AIMessage:
    chunks = [c for c in (state.feed(e) for e in events) if c is not None] + [state.finish()]
    return merge_chunks(chunks, as_chunk=False)  # type: ignore[return-value]


def _sse(events: list[Any], done: bool = True) -> bytes:
    return ("".join(f"data: {json.dumps(e)}\n\n" for e in events) + ("data: [DONE]\n\n" if done else "")).encode()


class _Server:
    """Answers each request with the next scripted body (SSE bytes or a JSON reply), through httpx.MockTransport."""

    def __init__(self, answers: list[bytes | dict[str, Any]]) -> None:
        self.answers = list(answers)

    def __call__(self, request: httpx.Request) -> httpx.Response:
        answer = self.answers.pop(0)
        if isinstance(answer, bytes):
            return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=answer)
        return httpx.Response(200, json=answer)


def _model(monkeypatch: pytest.MonkeyPatch, answers: list[bytes | dict[str, Any]], **kwargs: Any) -> Any:
    from toolwire.models import ChatOpenAI

    server = _Server(answers)
    base_url = kwargs.pop("base_url", "https://api.openai.com/v1")

    def make(self: Any, asynchronous: bool) -> Any:
        if asynchronous:
            return openai.AsyncOpenAI(api_key="sk-test", base_url=base_url, max_retries=0,
                                      http_client=httpx.AsyncClient(transport=httpx.MockTransport(server)))
        return openai.OpenAI(api_key="sk-test", base_url=base_url, max_retries=0,
                             http_client=httpx.Client(transport=httpx.MockTransport(server)))

    monkeypatch.setattr(ChatOpenAI, "_make_client", make)
    return ChatOpenAI("gpt-4o-mini", api_key="sk-test", base_url=base_url, max_retries=0, **kwargs)


RAN: list[tuple[str, str]] = []


@tool
def get_weather(city: str) -> str:
    """Get the weather for a city."""
    RAN.append(("get_weather", city))
    return f"sunny in {city}"


@tool
def purge_cache(scope: str = "all") -> str:
    """Purge the cache (scope: 'all' or a key prefix)."""
    RAN.append(("purge_cache", scope))
    return f"purged {scope}"


CUT_TEXT = [_chunk({"role": "assistant", "content": "The contract may be signed"}), _chunk({"content": " only if"})]
CUT_CALLS = [_chunk({"role": "assistant", "content": None}),
             _call_piece(0, "call_A", "get_weather", '{"city": "Paris"}'),
             _call_piece(1, "call_B", "purge_cache", "")]
ANSWER = [_chunk({"role": "assistant", "content": "Done."}), _chunk({}, "stop")]


# --------------------------------------------------------------------------- 2. a chat stream without finish_reason


@pytest.mark.parametrize("events", [CUT_TEXT, CUT_CALLS])
def test_openai_rules_refuse_a_stream_without_a_finish_reason(events: list[dict[str, Any]]) -> None:
    state = StreamState()  # compatible=False: OpenAI's own rules
    for event in events:
        state.feed(event)
    with pytest.raises(ProviderError, match="stream ended before the reply was complete") as caught:
        state.finish()
    assert caught.value.retryable


@pytest.mark.parametrize(("args", "kept"), [("", ""), ('{"scope": "us', '{"scope": "us'), ("  ", "  ")])
def test_compatible_stream_cut_in_a_call_makes_it_invalid(args: str, kept: str,
                                                          caplog: pytest.LogCaptureFixture) -> None:
    events = [*CUT_CALLS[:2], _call_piece(1, "call_B", "purge_cache", args)]
    with caplog.at_level(logging.WARNING, logger="toolwire.lowering"):
        reply = _fold(StreamState(compatible=True), events)
    assert "without a finish_reason" in caplog.text
    assert [(c["name"], c["args"], c["id"]) for c in reply.tool_calls] == [("get_weather", {"city": "Paris"}, "call_A")]
    assert [(c["name"], c["args"], c["id"], c["error"]) for c in reply.invalid_tool_calls] == [
        ("purge_cache", kept, "call_B", STREAM_CUT)]  # (review 74: a lost end, not necessarily the token limit)
    assert reply.response_metadata["finish_reason"] is None


def test_compatible_stream_cut_keeps_its_text_with_a_warning() -> None:
    reply = _fold(StreamState(compatible=True), CUT_TEXT)
    assert reply.text == "The contract may be signed only if" and reply.response_metadata["finish_reason"] is None


@pytest.mark.parametrize("compatible", [False, True])
def test_a_finished_stream_still_reads_empty_arguments_as_an_empty_object(compatible: bool) -> None:
    reply = _fold(StreamState(compatible=compatible), [*CUT_CALLS, _chunk({}, "tool_calls")])
    assert [(c["name"], c["args"]) for c in reply.tool_calls] == [("get_weather", {"city": "Paris"}),
                                                                  ("purge_cache", {})]
    assert reply.invalid_tool_calls == []
    assert reply == parse_response(_chat([("get_weather", '{"city": "Paris"}', "call_A"),
                                          ("purge_cache", "", "call_B")], "tool_calls"))


def test_agent_on_openai_gets_a_retryable_error_for_a_cut_stream(monkeypatch: pytest.MonkeyPatch) -> None:
    model = _model(monkeypatch, [_sse(CUT_TEXT, done=False), _sse(CUT_CALLS, done=False)], streaming=True)
    for _ in range(2):
        with pytest.raises(ProviderError, match="no chunk with a finish_reason") as caught:
            Agent(model, [get_weather, purge_cache]).invoke("q")
        assert caught.value.retryable


def test_async_stream_on_openai_raises_for_a_cut_stream(monkeypatch: pytest.MonkeyPatch) -> None:
    model = _model(monkeypatch, [_sse(CUT_CALLS, done=False)]).bind_tools([get_weather, purge_cache])

    async def run() -> list[Any]:
        return [chunk async for chunk in model.astream("q")]

    with pytest.raises(ProviderError, match="no chunk with a finish_reason") as caught:
        asyncio.run(run())
    assert caught.value.retryable


@pytest.mark.parametrize("run_async", [False, True])
def test_agent_on_a_compatible_server_never_runs_a_cut_call(monkeypatch: pytest.MonkeyPatch, run_async: bool) -> None:
    model = _model(monkeypatch, [_sse(CUT_CALLS, done=False), _sse(ANSWER)], streaming=True,
                   base_url="http://gpu-box:8000/v1", text_tool_calls=False)
    agent = Agent(model, [get_weather, purge_cache])
    RAN.clear()
    result = asyncio.run(agent.ainvoke("q")) if run_async else agent.invoke("q")
    assert RAN == [("get_weather", "Paris")]
    answered = [m for m in result.messages if getattr(m, "tool_call_id", None) == "call_B"]
    assert len(answered) == 1 and "cut off" in answered[0].text


# --------------------------------------------------------------------------- 3. finish_reason "length", empty arguments


@pytest.mark.parametrize("args", ["", None, " \n"])
def test_length_with_empty_arguments_is_a_cut_call(args: Any) -> None:
    reply = parse_response(_chat([("purge_cache", '{"scope": "user:42"}', "call_1"), ("purge_cache", args, "call_2")],
                                 "length"))
    assert [(c["args"], c["id"]) for c in reply.tool_calls] == [({"scope": "user:42"}, "call_1")]
    assert [(c["name"], c["id"], c["error"]) for c in reply.invalid_tool_calls] == [("purge_cache", "call_2", CUT_OFF)]


@pytest.mark.parametrize("finish", ["tool_calls", "stop"])
def test_a_finished_reply_reads_empty_arguments_as_an_empty_object(finish: str) -> None:
    reply = parse_response(_chat([("purge_cache", "", "call_2")], finish))
    assert [(c["args"], c["id"]) for c in reply.tool_calls] == [({}, "call_2")] and reply.invalid_tool_calls == []


def test_length_with_an_empty_legacy_function_call_is_a_cut_call() -> None:
    reply = parse_response({"id": "chatcmpl-1", "model": "m", "choices": [{"index": 0, "finish_reason": "length",
                            "message": {"content": None, "function_call": {"name": "purge_cache", "arguments": ""}}}]})
    assert reply.tool_calls == [] and reply.invalid_tool_calls[0]["error"] == CUT_OFF


@pytest.mark.parametrize("compatible", [False, True])
def test_length_stream_with_empty_arguments_equals_the_whole_reply(compatible: bool) -> None:
    reply = _fold(StreamState(compatible=compatible), [*CUT_CALLS, _chunk({}, "length")])
    assert [c["id"] for c in reply.tool_calls] == ["call_A"]
    assert [(c["id"], c["error"]) for c in reply.invalid_tool_calls] == [("call_B", CUT_OFF)]
    assert reply == parse_response(_chat([("get_weather", '{"city": "Paris"}', "call_A"),
                                          ("purge_cache", "", "call_B")], "length"))


@pytest.mark.parametrize("streaming", [False, True])
def test_agent_never_runs_a_call_cut_after_its_name(monkeypatch: pytest.MonkeyPatch, streaming: bool) -> None:
    first: bytes | dict[str, Any] = _sse([*CUT_CALLS, _chunk({}, "length")]) if streaming else _chat(
        [("get_weather", '{"city": "Paris"}', "call_A"), ("purge_cache", "", "call_B")], "length")
    done: bytes | dict[str, Any] = _sse(ANSWER) if streaming else {
        "id": "chatcmpl-2", "object": "chat.completion", "created": 1, "model": "gpt-4o-mini",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "Done."}, "finish_reason": "stop"}]}
    model = _model(monkeypatch, [first, done], streaming=streaming)
    RAN.clear()
    result = Agent(model, [get_weather, purge_cache]).invoke("q")
    assert RAN == [("get_weather", "Paris")] and result.output == "Done."


def _response(output: list[dict[str, Any]], status: str = "completed", reason: str | None = None) -> dict[str, Any]:
    return {"id": "resp_1", "object": "response", "created_at": 1, "status": status, "model": "gpt-5",
            "output": output, "incomplete_details": {"reason": reason} if reason else None,
            "usage": {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}}


FC = {"type": "function_call", "id": "fc_1", "call_id": "call_A", "name": "get_weather",
      "arguments": '{"city":"Paris"}', "status": "completed"}


def test_incomplete_responses_reply_with_empty_arguments_is_a_cut_call() -> None:
    cut = {**FC, "arguments": "", "status": "incomplete"}
    whole = parse_responses_response(_response([cut], "incomplete", "max_output_tokens"))
    assert whole.tool_calls == [] and [(c["id"], c["error"]) for c in whole.invalid_tool_calls] == [("call_A", CUT_OFF)]
    events = [{"type": "response.created", "response": _response([], "in_progress")},
              {"type": "response.output_item.added", "output_index": 0, "item": cut},
              {"type": "response.incomplete", "response": _response([cut], "incomplete", "max_output_tokens")}]
    assert _fold(ResponsesStreamState(), events) == whole
    finished = parse_responses_response(_response([{**FC, "arguments": ""}]))
    assert [c["args"] for c in finished.tool_calls] == [{}]


# --------------------------------------------------------------------------- 4. Responses text in the done events

MSG = {"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
       "content": [{"type": "output_text", "text": "It is sunny in Paris.", "annotations": []}]}
TEXT = MSG["content"][0]["text"]
START = [{"type": "response.created", "response": _response([], "in_progress")},
         {"type": "response.output_item.added", "output_index": 0, "item": {**MSG, "content": [],
                                                                              "status": "in_progress"}}]
END = [{"type": "response.output_item.added", "output_index": 1, "item": {**FC, "arguments": ""}},
       {"type": "response.function_call_arguments.done", "output_index": 1, "item_id": "fc_1",
        "arguments": FC["arguments"]},
       {"type": "response.output_item.done", "output_index": 1, "item": FC},
       {"type": "response.completed", "response": _response([MSG, FC])}]
TEXT_DONE = {"type": "response.output_text.done", "output_index": 0, "item_id": "msg_1", "content_index": 0,
             "text": TEXT}
PART_DONE = {"type": "response.content_part.done", "output_index": 0, "item_id": "msg_1", "content_index": 0,
             "part": MSG["content"][0]}
ITEM_DONE = {"type": "response.output_item.done", "output_index": 0, "item": MSG}


@pytest.mark.parametrize("done", [[TEXT_DONE, PART_DONE, ITEM_DONE], [TEXT_DONE], [PART_DONE], [ITEM_DONE], []],
                         ids=["all", "output_text.done", "content_part.done", "output_item.done", "completed"])
def test_responses_text_only_in_done_events_is_streamed(done: list[dict[str, Any]]) -> None:
    reply = _fold(ResponsesStreamState(), [*START, *done, *END])
    assert reply.text == TEXT and [c["id"] for c in reply.tool_calls] == ["call_A"]
    assert reply == parse_responses_response(_response([MSG, FC]))


def test_responses_text_and_call_only_in_the_completed_event() -> None:
    events = [START[0], {"type": "response.completed", "response": _response([MSG, FC])}]
    assert _fold(ResponsesStreamState(), events) == parse_responses_response(_response([MSG, FC]))


def test_responses_lost_delta_is_filled_in_once() -> None:
    delta = {"type": "response.output_text.delta", "output_index": 0, "item_id": "msg_1", "content_index": 0}
    events = [*START, {**delta, "delta": "It is "}, {**delta, "delta": "sunny"}, TEXT_DONE, PART_DONE, ITEM_DONE,
              *END]
    state = ResponsesStreamState()
    chunks = [c for c in (state.feed(e) for e in events) if c is not None] + [state.finish()]
    assert [c.content for c in chunks if c.content] == ["It is ", "sunny", " in Paris."]
    assert merge_chunks(chunks, as_chunk=False) == parse_responses_response(_response([MSG, FC]))


def test_responses_refusal_only_in_its_done_event() -> None:
    refusal = {"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
               "content": [{"type": "refusal", "refusal": "I can't help with that."}]}
    events = [*START, {"type": "response.refusal.done", "output_index": 0, "item_id": "msg_1", "content_index": 0,
                       "refusal": "I can't help with that."},
              {"type": "response.completed", "response": _response([refusal])}]
    reply = _fold(ResponsesStreamState(), events)
    assert reply == parse_responses_response(_response([refusal]))
    assert reply.response_metadata["finish_reason"] == "refusal"


def test_responses_done_text_that_is_no_extension_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    delta = {"type": "response.output_text.delta", "output_index": 0, "item_id": "msg_1", "content_index": 0}
    events = [*START, {**delta, "delta": "It is rainy"}, TEXT_DONE, PART_DONE, ITEM_DONE, *END]
    with caplog.at_level(logging.WARNING, logger="toolwire.lowering"):
        reply = _fold(ResponsesStreamState(), events)
    assert reply.text == "It is rainy"  # what was streamed cannot be taken back
    assert caplog.text.count("differs from its deltas") == 1  # the later done events compare with the finished text


def test_responses_stream_async_gets_the_done_text(monkeypatch: pytest.MonkeyPatch) -> None:
    events = [*START, TEXT_DONE, PART_DONE, ITEM_DONE, *END]
    model = _model(monkeypatch, [_sse(events, done=False), _sse(events, done=False)], use_responses_api=True)
    model = model.bind_tools([get_weather])

    async def run() -> AIMessage:
        return merge_chunks([chunk async for chunk in model.astream("q")], as_chunk=False)  # type: ignore[return-value]

    streamed = asyncio.run(run())
    assert streamed.text == TEXT and [c["id"] for c in streamed.tool_calls] == ["call_A"]
    assert merge_chunks(list(model.stream("q")), as_chunk=False) == streamed
