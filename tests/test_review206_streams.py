"""Review 206: stream retries and the Responses API's call arguments.

1. A compatible server's stream whose text the text-call reader held back (a reply opening with ``<tool_call>``: the
   caller got only empty chunks) was not retried when its connection broke, because the retry judged the raw
   chunks; the retry now judges what the caller gets (the reader runs inside each try, and the one-call filter of
   ``parallel_tool_calls=False`` is judged as it will pass the chunks on), sync and async.
2. ``with_structured_output(...).stream``/``astream``, which yield nothing before the reply is complete, now retry a
   stream cut at any point, as ``invoke`` does.
3. A Responses API stream's function call takes its final arguments from ``function_call_arguments.done``,
   ``output_item.done`` or ``response.completed`` when the deltas do not add up to them (arguments repeated in
   ``output_item.added``, a lost delta), so the stream gives the call ``invoke`` gives.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
from pydantic import BaseModel

from toolwire import tool
from toolwire.errors import ProviderError
from toolwire.messages import AIMessage, merge_chunks

openai = pytest.importorskip("openai")


# --------------------------------------------------------------------------- a server whose streams may break


class _Cut(httpx.SyncByteStream, httpx.AsyncByteStream):
    """An SSE body sent piece by piece; with ``cut``, the connection breaks after the last piece."""

    def __init__(self, pieces: list[bytes], cut: bool) -> None:
        self.pieces, self.cut = pieces, cut

    def __iter__(self) -> Iterator[bytes]:
        yield from self.pieces
        if self.cut:
            raise httpx.RemoteProtocolError("peer closed connection without sending complete message body")

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for piece in self.pieces:
            yield piece
        if self.cut:
            raise httpx.RemoteProtocolError("peer closed connection without sending complete message body")


class _Server:
    """Answers each request with the next queued ``(events, cut)`` stream, or a dict as a JSON reply."""

    def __init__(self, answers: list[Any]) -> None:
        self.answers = list(answers)
        self.requests = 0
        self.streamed: list[bool] = []  # each request's "stream" field

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests += 1
        self.streamed.append(bool(json.loads(request.content).get("stream")))
        answer = self.answers.pop(0)
        if isinstance(answer, dict):
            return httpx.Response(200, json=answer)
        events, cut = answer
        pieces = [f"data: {json.dumps(e)}\n\n".encode() for e in events]
        if not cut:
            pieces.append(b"data: [DONE]\n\n")
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, stream=_Cut(pieces, cut))


def _model(monkeypatch: pytest.MonkeyPatch, server: _Server, **kwargs: Any) -> Any:
    from toolwire.models import ChatOpenAI

    base_url = kwargs.pop("base_url", "http://127.0.0.1:9/v1")

    def make(self: Any, asynchronous: bool) -> Any:
        if asynchronous:
            return openai.AsyncOpenAI(api_key="sk-test", base_url=base_url, max_retries=0,
                                      http_client=httpx.AsyncClient(transport=httpx.MockTransport(server)))
        return openai.OpenAI(api_key="sk-test", base_url=base_url, max_retries=0,
                             http_client=httpx.Client(transport=httpx.MockTransport(server)))

    monkeypatch.setattr(ChatOpenAI, "_make_client", make)
    return ChatOpenAI("q", api_key="sk-test", base_url=base_url, max_retries=2, retry_backoff=0.0, **kwargs)


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "q",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def _piece(index: int, call_id: str | None, name: str | None, args: str) -> dict[str, Any]:
    fn = {"arguments": args, **({"name": name} if name else {})}
    return _chunk({"tool_calls": [{"index": index, **({"id": call_id} if call_id else {}), "type": "function",
                                   "function": fn}]})


def _collect(model: Any, label: str, *args: Any, **options: Any) -> list[Any]:
    if label == "stream":
        return list(model.stream(*args, **options))

    async def run() -> list[Any]:
        return [c async for c in model.astream(*args, **options)]

    return asyncio.run(run())


@tool
def get_weather(city: str) -> str:
    """Get the weather for a city."""
    return f"sunny in {city}"


@tool
def purge_cache(scope: str = "all") -> str:
    """Purge the cache."""
    return f"purged {scope}"


# --------------------------------------------------------------------------- 1. held text, held calls


TEXT_CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
TEXT_STREAM = [_chunk({"content": TEXT_CALL[i:i + 8]}) for i in range(0, len(TEXT_CALL), 8)] + [_chunk({}, "stop")]


@pytest.mark.parametrize("label", ["stream", "astream"])
def test_1_a_stream_whose_call_text_was_held_back_is_retried(monkeypatch: pytest.MonkeyPatch, label: str) -> None:
    server = _Server([(TEXT_STREAM[:3], True), (TEXT_STREAM, False)])
    model = _model(monkeypatch, server).bind_tools([get_weather])
    reply = merge_chunks(_collect(model, label, "weather in Paris?"), as_chunk=False)
    assert server.requests == 2
    assert [(c["name"], c["args"]) for c in reply.tool_calls] == [("get_weather", {"city": "Paris"})]
    assert reply.content == "" and not reply.invalid_tool_calls


@pytest.mark.parametrize("label", ["stream", "astream"])
def test_1_text_handed_out_is_still_not_retried(monkeypatch: pytest.MonkeyPatch, label: str) -> None:
    plain = [_chunk({"content": "The weather "}), _chunk({"content": "is fine"})]
    server = _Server([(plain, True), ([*plain, _chunk({}, "stop")], False)])
    model = _model(monkeypatch, server).bind_tools([get_weather])
    got: list[Any] = []
    with pytest.raises(ProviderError):
        if label == "stream":
            for chunk in model.stream("weather?"):
                got.append(chunk)
        else:
            async def run() -> None:
                async for chunk in model.astream("weather?"):
                    got.append(chunk)
            asyncio.run(run())
    assert server.requests == 1
    assert "".join(c.content for c in got) == "The weather is fine"


FORCED_FIRST_OTHER = [_chunk({"role": "assistant", "content": None}),
                      _piece(0, "call_A", "purge_cache", '{"scope": "all"}')]
FORCED_GOOD = [_chunk({"role": "assistant", "content": None}), _piece(0, "call_B", "get_weather", '{"city": '),
               _piece(0, None, None, '"Paris"}'), _chunk({}, "tool_calls")]


@pytest.mark.parametrize("label", ["stream", "astream"])
def test_1_a_stream_whose_call_the_one_call_filter_held_back_is_retried(monkeypatch: pytest.MonkeyPatch,
                                                                       label: str) -> None:
    server = _Server([(FORCED_FIRST_OTHER, True), (FORCED_GOOD, False)])
    model = _model(monkeypatch, server, compatible=False).bind_tools(
        [get_weather, purge_cache], tool_choice="get_weather", parallel_tool_calls=False)
    reply = merge_chunks(_collect(model, label, "weather in Paris?"), as_chunk=False)
    assert server.requests == 2
    assert [(c["name"], c["args"], c["id"]) for c in reply.tool_calls] == [("get_weather", {"city": "Paris"}, "call_B")]


# --------------------------------------------------------------------------- 2. structured output streams


class City(BaseModel):
    name: str
    population: int


CITY = [_chunk({"tool_calls": [{"index": 0, "id": "call_1", "type": "function",
                                "function": {"name": "City", "arguments": ""}}]}),
        _piece(0, None, None, '{"name": "Paris", '), _piece(0, None, None, '"population": 2100000}'),
        _chunk({}, "tool_calls")]


@pytest.mark.parametrize("label", ["stream", "astream"])
def test_2_a_structured_output_stream_is_retried_after_content(monkeypatch: pytest.MonkeyPatch, label: str) -> None:
    server = _Server([(CITY[:2], True), (CITY, False)])
    structured = _model(monkeypatch, server, compatible=False).with_structured_output(City)
    assert _collect(structured, label, "Paris?") == [City(name="Paris", population=2100000)]
    assert server.requests == 2 and server.streamed == [True, True]


@pytest.mark.parametrize("label", ["stream", "astream"])
def test_2_a_structured_output_stream_is_retried_after_text(monkeypatch: pytest.MonkeyPatch, label: str) -> None:
    with_text = [_chunk({"role": "assistant", "content": "Here it is. "}), *CITY]
    server = _Server([(with_text[:3], True), (with_text, False)])
    structured = _model(monkeypatch, server, compatible=False).with_structured_output(City)
    assert _collect(structured, label, "Paris?") == [City(name="Paris", population=2100000)]
    assert server.requests == 2 and server.streamed == [True, True]


@pytest.mark.parametrize("label", ["stream", "astream"])
def test_2_a_structured_output_stream_still_streams_and_gives_up_after_max_retries(
        monkeypatch: pytest.MonkeyPatch, label: str) -> None:
    server = _Server([(CITY[:2], True)] * 3)
    structured = _model(monkeypatch, server, compatible=False).with_structured_output(City)
    with pytest.raises(ProviderError) as caught:
        _collect(structured, label, "Paris?")
    assert caught.value.retryable and server.requests == 3


def test_2_the_model_of_a_structured_output_is_left_as_it_was(monkeypatch: pytest.MonkeyPatch) -> None:
    server = _Server([(CITY, False), (CITY, False)])
    structured = _model(monkeypatch, server, compatible=False).with_structured_output(City)
    assert list(structured.stream("Paris?")) == [City(name="Paris", population=2100000)]
    assert structured.model.streaming is False
    chunks = list(structured.model.stream("Paris?"))
    assert len(chunks) > 1 and isinstance(merge_chunks(chunks, as_chunk=False), AIMessage)


# --------------------------------------------------------------------------- 3. Responses API call arguments


FC = {"id": "fc_1", "type": "function_call", "status": "completed", "arguments": '{"city":"Paris"}',
      "call_id": "call_1", "name": "get_weather"}
R0 = {"id": "resp_1", "object": "response", "status": "in_progress", "model": "gpt-5-mini", "output": []}
FULL = {**R0, "status": "completed", "output": [FC]}


def _responses_events(added_args: str, deltas: list[str], *, done: bool = True,
                      output: list[Any] | None = None) -> list[dict[str, Any]]:
    added = {**FC, "status": "in_progress", "arguments": added_args}
    events = [{"type": "response.created", "response": R0},
              {"type": "response.output_item.added", "output_index": 0, "item": added}]
    events += [{"type": "response.function_call_arguments.delta", "output_index": 0, "item_id": "fc_1", "delta": d}
               for d in deltas]
    if done:
        events += [{"type": "response.function_call_arguments.done", "output_index": 0, "item_id": "fc_1",
                    "arguments": FC["arguments"]},
                   {"type": "response.output_item.done", "output_index": 0, "item": FC}]
    return [*events, {"type": "response.completed", "response": {**FULL, "output": [FC] if output is None else output}}]


def _fold_responses(events: list[dict[str, Any]]) -> AIMessage:
    from toolwire.models.lowering.openai import ResponsesStreamState

    state = ResponsesStreamState()
    chunks = [c for c in (state.feed(e) for e in events) if c is not None] + [state.finish()]
    return merge_chunks(chunks, as_chunk=False)  # type: ignore[return-value]


CALL = [("get_weather", {"city": "Paris"}, "call_1")]

RESPONSES_CASES = {
    "added carries the arguments, a delta repeats them": _responses_events(FC["arguments"], [FC["arguments"]]),
    "a delta was lost": _responses_events("", ['{"city":', '"}']),
    "a lost delta that leaves valid JSON": _responses_events("", ['{"city":"Pa', '"}']),
    "the deltas in pieces": _responses_events("", ['{"ci', 'ty":"Pa', 'ris"}']),
    "no deltas": _responses_events("", []),
}


@pytest.mark.parametrize("case", list(RESPONSES_CASES))
def test_3_a_responses_stream_call_takes_the_finished_arguments(case: str) -> None:
    from toolwire.models.lowering.openai import parse_responses_response

    whole = parse_responses_response(FULL)
    reply = _fold_responses(RESPONSES_CASES[case])
    assert [(c["name"], c["args"], c["id"]) for c in reply.tool_calls] == CALL == \
        [(c["name"], c["args"], c["id"]) for c in whole.tool_calls]
    assert not reply.invalid_tool_calls


@pytest.mark.parametrize("case", ["deltas", "added"])
def test_3_without_finishing_events_the_held_arguments_are_the_call_s(case: str) -> None:
    events = (_responses_events("", ['{"city":', '"Paris"}'], done=False, output=[]) if case == "deltas"
              else _responses_events(FC["arguments"], [], done=False, output=[]))
    reply = _fold_responses(events)
    assert [(c["name"], c["args"], c["id"]) for c in reply.tool_calls] == CALL and not reply.invalid_tool_calls


def test_3_a_later_finishing_event_with_other_arguments_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    other = {**FC, "arguments": '{"city":"Lyon"}'}
    events = _responses_events("", ['{"city":"Paris"}'], output=[other])
    with caplog.at_level("WARNING", logger="toolwire.lowering"):
        reply = _fold_responses(events)
    assert [(c["name"], c["args"]) for c in reply.tool_calls] == [("get_weather", {"city": "Paris"})]
    assert any("other arguments than those already sent" in r.getMessage() for r in caplog.records)


def test_3_a_cut_call_of_an_incomplete_reply_is_still_invalid() -> None:
    cut = {**FC, "status": "incomplete", "arguments": '{"city": "Pa'}
    events = [{"type": "response.created", "response": R0},
              {"type": "response.output_item.added", "output_index": 0, "item": {**FC, "arguments": ""}},
              {"type": "response.function_call_arguments.delta", "output_index": 0, "delta": '{"city": "Pa'},
              {"type": "response.incomplete", "response": {**R0, "status": "incomplete", "output": [cut],
                                                           "incomplete_details": {"reason": "max_output_tokens"}}}]
    reply = _fold_responses(events)
    assert not reply.tool_calls and [c["id"] for c in reply.invalid_tool_calls] == ["call_1"]


@pytest.mark.parametrize("label", ["stream", "astream"])
def test_3_chat_openai_responses_stream_gives_what_invoke_gives(monkeypatch: pytest.MonkeyPatch, label: str) -> None:
    events = RESPONSES_CASES["added carries the arguments, a delta repeats them"]
    server = _Server([FULL, ([{**e, "sequence_number": n} for n, e in enumerate(events)], False)])
    model = _model(monkeypatch, server, base_url="https://api.openai.com/v1", use_responses_api=True)
    model = model.bind_tools([get_weather])
    whole = model.invoke("weather?")
    reply = merge_chunks(_collect(model, label, "weather?"), as_chunk=False)
    assert reply.tool_calls == whole.tool_calls and not reply.invalid_tool_calls
    assert reply.provider_data == whole.provider_data
