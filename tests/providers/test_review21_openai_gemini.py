"""Review 21, the OpenAI and Gemini findings: the real ``openai`` and ``google-genai`` SDKs talk to the local
wire servers, which answer with scripted bytes (the same request validation as the conformance suite).
Each test failed on the code before its fix.

1. A Responses API stream without ``response.completed`` / ``response.incomplete`` / ``response.failed``, and a
   Gemini stream whose chunks never bring a ``finishReason``, were taken for complete replies (the Agent
   answered with the partial text); now they raise a retryable ProviderError when the stream ends. A Chat
   Completions stream without a finish_reason keeps its warning (some servers never send one), but one that
   brought no chunk at all is refused the same way.
2. OpenAI refusals were dropped (Chat ``invoke`` kept them only in ``response_metadata``, Chat streams and the
   Responses API lost them); now the refusal is the reply's text on all four paths, with
   ``response_metadata["refusal"]`` and ``finish_reason == "refusal"``, and the Agent stops with
   ``stop_reason="refusal"``.
3. An ``{"error": {"type": "server_error"}}`` event in a stream was not retryable; its type (or code) now reads
   as the HTTP status (500, 429, 529), so the retry policy retries it.
4. The Responses API ``function_call`` item's ``id`` was lost, so a reasoning item sent back was followed by a
   function_call without its id; now it is kept and sent back, invoked or streamed.
5. Gemini code execution parts (``executableCode``, ``codeExecutionResult``) were dropped and the text around
   them glued together; now they are kept, sent back unchanged, and shown as fenced blocks in the text.
6. DeepSeek's (and Kimi's) thinking mode needs ``reasoning_content`` back on an assistant turn with tool calls;
   it is now sent back there (only when the server sent it in that field).
"""

from __future__ import annotations

import asyncio
import copy
import itertools
from collections.abc import Iterator
from typing import Any

import pytest

from toolwire import Agent, AIMessage, HumanMessage, ProviderError, ToolMessage, tool
from toolwire.messages import merge_chunks
from toolwire.models.base import ChatRequest
from toolwire.models.lowering.openai import ResponsesStreamState, lower_request

from .conftest import build_model
from .wire_gemini import Gemini
from .wire_openai import OpenAIResponses
from .wire_raw import Raw, RawChat, RawServer, chunk, completion
from .wire_servers import Reply, WireServer, sse


@tool
def get_weather(city: str) -> str:
    """Get the weather of a city."""
    return f"sunny in {city}"


def stream_of(model: Any, prompt: Any = "q") -> AIMessage:
    return merge_chunks(list(model.stream(prompt)), as_chunk=False)  # type: ignore[return-value]


def astream_of(model: Any, prompt: Any = "q") -> AIMessage:
    async def main() -> AIMessage:
        return merge_chunks([c async for c in model.astream(prompt)], as_chunk=False)  # type: ignore[return-value]

    return asyncio.run(main())


def without_usage(message: AIMessage) -> AIMessage:
    return message.copy(usage=None)  # type: ignore[return-value]


# --------------------------------------------------------------------------- raw Responses and Gemini servers


class RawResponses(OpenAIResponses):
    """The Responses adapter answering :class:`Raw` replies verbatim (events as ``event: <type>`` frames).

    Like the API, it refuses a reasoning item sent back without the item that followed it in its reply
    ("Item 'rs_...' of type 'reasoning' was provided without its required following item").
    """

    def __init__(self) -> None:
        self.following: dict[str, str] = {}  # reasoning item id -> the id of the item after it

    def _remember(self, output: list[dict[str, Any]]) -> None:
        for item, after in itertools.pairwise(output):
            if item.get("type") == "reasoning" and after.get("id"):
                self.following[item["id"]] = after["id"]

    def validate(self, body: Any, headers: dict[str, str], route: str, server: WireServer) -> list[str]:
        problems = super().validate(body, headers, route, server)
        items = body.get("input") if isinstance(body, dict) and isinstance(body.get("input"), list) else []
        for i, item in enumerate(items):
            wanted = self.following.get(item.get("id")) if item.get("type") == "reasoning" else None
            after = items[i + 1] if i + 1 < len(items) else {}
            if wanted and after.get("id") != wanted:
                problems.append(f"input[{i}]: Item {item['id']!r} of type 'reasoning' was provided without its "
                                f"required following item {wanted!r}")
        return problems

    def render(self, reply: Reply, body: dict[str, Any], model: str, server: WireServer) -> dict[str, Any]:
        assert isinstance(reply, Raw) and reply.body is not None
        self._remember(reply.body.get("output") or [])
        return reply.body

    def render_stream(self, reply: Reply, body: dict[str, Any], model: str, server: WireServer) -> list[bytes]:
        assert isinstance(reply, Raw) and reply.events is not None
        for event in reply.events:
            if event.get("type") == "response.completed":
                self._remember(event["response"].get("output") or [])
        return [sse(e, e.get("type")) for e in reply.events]


class RawGemini(Gemini):
    """The Gemini adapter answering :class:`Raw` replies verbatim."""

    def render(self, reply: Reply, body: dict[str, Any], model: str, server: WireServer) -> dict[str, Any]:
        assert isinstance(reply, Raw) and reply.body is not None
        return reply.body

    def render_stream(self, reply: Reply, body: dict[str, Any], model: str, server: WireServer) -> list[bytes]:
        assert isinstance(reply, Raw) and reply.events is not None
        return [sse(e).replace(b"\n\n", b"\r\n\r\n") for e in reply.events]


def _server(adapter: Any) -> Iterator[WireServer]:
    with WireServer(adapter, brain=None) as server:
        yield server
    assert not server.problems, f"requests the real API would reject: {server.problems}"


@pytest.fixture
def responses() -> Iterator[WireServer]:
    yield from _server(RawResponses())


@pytest.fixture
def gemini() -> Iterator[WireServer]:
    yield from _server(RawGemini())


def responses_model(server: WireServer, **kwargs: Any) -> Any:
    return build_model("openai-responses", server.url, **kwargs)


def gemini_model(server: WireServer, **kwargs: Any) -> Any:
    return build_model("gemini", server.url, **kwargs)


RESPONSE = {"id": "resp_1", "object": "response", "created_at": 1, "model": "gpt-5", "parallel_tool_calls": True,
            "tool_choice": "auto", "tools": [], "output": [], "status": "completed"}
USAGE = {"input_tokens": 3, "output_tokens": 4, "total_tokens": 7}


def response(output: list[dict[str, Any]], status: str = "completed") -> dict[str, Any]:
    return {**RESPONSE, "status": status, "output": output, "usage": USAGE}


def events(*pairs: tuple[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Responses stream events ``(type, fields)`` with their sequence numbers."""
    return [{"type": kind, "sequence_number": n, **fields} for n, (kind, fields) in enumerate(pairs)]


def created() -> tuple[str, dict[str, Any]]:
    return ("response.created", {"response": {**RESPONSE, "status": "in_progress"}})


def completed(output: list[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    return ("response.completed", {"response": response(output)})


def gemini_reply(parts: list[dict[str, Any]], finish: str | None = "STOP") -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finish:
        candidate["finishReason"] = finish
    return {"candidates": [candidate], "modelVersion": "gemini-2.5-flash", "responseId": "r1"}


# --------------------------------------------------------------------------- 1: streams cut short


def _cut_responses_stream() -> list[dict[str, Any]]:
    return events(created(), ("response.output_text.delta", {"output_index": 0, "content_index": 0, "item_id": "m",
                                                             "delta": "The weather in Oslo is sun"}))


@pytest.mark.parametrize("mode", ["stream", "astream"])
def test_a_responses_stream_without_its_terminal_event_is_a_retryable_error(responses, mode):
    responses.queue(Raw(events=_cut_responses_stream()))
    with pytest.raises(ProviderError, match="stream ended before the reply was complete") as caught:
        (stream_of if mode == "stream" else astream_of)(responses_model(responses))
    assert caught.value.retryable and caught.value.provider == "openai"


def test_the_agent_does_not_answer_with_a_cut_responses_stream(responses):
    responses.queue(Raw(events=_cut_responses_stream()))
    agent = Agent(responses_model(responses, streaming=True), [get_weather])
    with pytest.raises(ProviderError, match=r"response\.completed") as caught:
        agent.invoke("weather?")
    assert caught.value.retryable


def test_a_complete_responses_stream_still_ends_normally(responses):
    message = {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
               "content": [{"type": "output_text", "text": "Sunny.", "annotations": []}]}
    responses.queue(Raw(events=events(created(), ("response.output_text.delta", {
        "output_index": 0, "content_index": 0, "item_id": "msg_1", "delta": "Sunny."}), completed([message]))))
    reply = stream_of(responses_model(responses))
    assert reply.text == "Sunny." and reply.response_metadata["finish_reason"] == "completed"


@pytest.mark.parametrize("mode", ["stream", "astream", "agent"])
def test_a_gemini_stream_without_a_finish_reason_is_a_retryable_error(gemini, mode):
    gemini.queue(Raw(events=[gemini_reply([{"text": "The weather in Oslo is "}], None),
                             gemini_reply([{"text": "sun"}], None)]))
    model = gemini_model(gemini, streaming=mode == "agent")
    with pytest.raises(ProviderError, match="stream ended before the reply was complete") as caught:
        if mode == "agent":
            Agent(model, [get_weather]).invoke("weather?")
        else:
            (stream_of if mode == "stream" else astream_of)(model)
    assert caught.value.retryable and caught.value.provider == "google"


def test_a_gemini_stream_blocked_or_finished_is_complete(gemini):
    gemini.queue(Raw(events=[gemini_reply([{"text": "Sun"}], None), gemini_reply([{"text": "ny."}])]),
                 Raw(events=[{"promptFeedback": {"blockReason": "SAFETY"}, "modelVersion": "gemini-2.5-flash"}]))
    model = gemini_model(gemini)
    assert stream_of(model).text == "Sunny."
    assert stream_of(model).response_metadata["block_reason"] == "SAFETY"


def test_a_chat_stream_that_brought_no_chunk_is_a_retryable_error(raw, make):
    """A Chat stream without a finish_reason still only warns (servers differ); one with nothing in it is cut."""
    raw.queue(Raw(events=[]), Raw(events=["[DONE]"]))
    for _ in range(2):
        with pytest.raises(ProviderError, match="no chunk came") as caught:
            stream_of(make())
        assert caught.value.retryable


def test_the_responses_stream_state_refuses_to_finish_without_a_terminal_event():
    state = ResponsesStreamState()
    state.feed({"type": "response.output_text.delta", "delta": "Hel"})
    with pytest.raises(ProviderError, match=r"response\.completed"):
        state.finish()


# --------------------------------------------------------------------------- 2: refusals

REFUSED = "I can't help with that."


def _check_refusal(reply: AIMessage) -> None:
    assert reply.text == REFUSED
    assert reply.response_metadata["refusal"] == REFUSED
    assert reply.response_metadata["finish_reason"] == "refusal"


def test_a_chat_refusal_is_the_reply_in_invoke_stream_and_astream(raw, make):
    whole = completion({"role": "assistant", "content": None, "refusal": REFUSED})
    pieces = [chunk({"role": "assistant", "content": None, "refusal": None})]
    pieces += [chunk({"refusal": p}) for p in ("I can", "'t help", " with that.")]
    pieces += [chunk({}, "stop"), "[DONE]"]
    raw.queue(Raw(body=whole), Raw(events=pieces), Raw(events=pieces))
    model = make(stream_usage=False)
    invoked, streamed, astreamed = model.invoke("q"), stream_of(model), astream_of(model)
    for reply in (invoked, streamed, astreamed):
        _check_refusal(reply)
    assert without_usage(streamed) == without_usage(invoked) == without_usage(astreamed)


@pytest.mark.parametrize("streaming", [False, True])
def test_the_agent_stops_on_a_chat_refusal(raw, make, streaming):
    if streaming:
        raw.queue(Raw(events=[chunk({"refusal": REFUSED}), chunk({}, "stop"), "[DONE]"]))
    else:
        raw.queue(Raw(body=completion({"role": "assistant", "content": None, "refusal": REFUSED})))
    result = Agent(make(streaming=streaming), [get_weather]).invoke("hi")
    assert result.output == REFUSED and result.stop_reason == "refusal"


REFUSAL_ITEM = {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                "content": [{"type": "refusal", "refusal": REFUSED}]}


def _refusal_events() -> list[dict[str, Any]]:
    where = {"output_index": 0, "content_index": 0, "item_id": "msg_1"}
    return events(created(),
                  ("response.output_item.added", {"output_index": 0, "item": {**REFUSAL_ITEM, "content": []}}),
                  ("response.content_part.added", {**where, "part": {"type": "refusal", "refusal": ""}}),
                  ("response.refusal.delta", {**where, "delta": "I can't "}),
                  ("response.refusal.delta", {**where, "delta": "help with that."}),
                  ("response.refusal.done", {**where, "refusal": REFUSED}),
                  ("response.output_item.done", {"output_index": 0, "item": REFUSAL_ITEM}), completed([REFUSAL_ITEM]))


def test_a_responses_refusal_is_the_reply_in_invoke_and_stream(responses):
    responses.queue(Raw(body=response([REFUSAL_ITEM])), Raw(events=_refusal_events()))
    model = responses_model(responses)
    invoked, streamed = model.invoke("q"), stream_of(model)
    _check_refusal(invoked)
    assert streamed == invoked


@pytest.mark.parametrize("streaming", [False, True])
def test_the_agent_stops_on_a_responses_refusal(responses, streaming):
    responses.queue(Raw(events=_refusal_events()) if streaming else Raw(body=response([REFUSAL_ITEM])))
    result = Agent(responses_model(responses, streaming=streaming), [get_weather]).invoke("hi")
    assert result.output == REFUSED and result.stop_reason == "refusal"


def test_a_refused_turn_goes_back_as_its_text(raw, make):
    raw.queue(Raw(body=completion({"role": "assistant", "content": None, "refusal": REFUSED})),
              Raw(body=completion({"role": "assistant", "content": "ok"})))
    model = make()
    refused = model.invoke("q")
    model.invoke([HumanMessage("q"), refused, HumanMessage("why?")])
    assert raw.requests[-1].body["messages"][1] == {"role": "assistant", "content": REFUSED}


# --------------------------------------------------------------------------- 3: error events in a stream


@pytest.mark.parametrize(("error", "status"), [
    ({"message": "The server had an error while processing your request.", "type": "server_error"}, 500),
    ({"message": "Internal error", "type": "api_error"}, 500),
    ({"message": "Rate limit reached for gpt-4o", "type": "tokens", "code": "rate_limit_exceeded"}, 429),
    ({"message": "Overloaded", "type": "overloaded_error"}, 529),
])
def test_an_error_event_first_in_a_chat_stream_reads_as_its_status(raw, make, error, status):
    raw.queue(Raw(events=[{"error": error}]))
    with pytest.raises(ProviderError, match=error["message"]) as caught:
        stream_of(make())
    assert caught.value.status == status and caught.value.retryable


def test_a_server_error_event_first_in_a_chat_stream_is_retried(raw, make):
    raw.queue(Raw(events=[{"error": {"message": "Sorry about that!", "type": "server_error"}}]),
              Raw(events=[chunk({"content": "ok"}, "stop"), "[DONE]"]))
    assert stream_of(make(max_retries=2)).text == "ok"
    assert len(raw.requests) == 2


def test_an_invalid_request_error_event_stays_not_retryable(raw, make):
    raw.queue(Raw(events=[{"error": {"message": "context too long", "type": "invalid_request_error",
                                     "code": "context_length_exceeded"}}]))
    with pytest.raises(ProviderError, match="context too long") as caught:
        stream_of(make(max_retries=2))
    assert not caught.value.retryable and len(raw.requests) == 1


@pytest.mark.parametrize(("event", "status"), [
    ({"type": "error", "code": "server_error", "message": "overloaded", "param": None}, 500),
    ({"type": "response.failed", "response": {**RESPONSE, "status": "failed",
                                              "error": {"code": "rate_limit_exceeded", "message": "slow down"}}}, 429),
])
def test_responses_error_events_read_their_code_as_a_status(responses, event, status):
    responses.queue(Raw(events=events(created(), (event["type"], {k: v for k, v in event.items() if k != "type"}))))
    with pytest.raises(ProviderError) as caught:
        stream_of(responses_model(responses))
    assert caught.value.status == status and caught.value.retryable


# --------------------------------------------------------------------------- 4: function_call item ids

REASONING = {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAAA"}
CALL = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather",
        "arguments": '{"city":"Oslo"}', "status": "completed"}
SUNNY = {"type": "message", "id": "msg_2", "role": "assistant", "status": "completed",
         "content": [{"type": "output_text", "text": "Sunny.", "annotations": []}]}


def _call_events() -> list[dict[str, Any]]:
    return events(created(),
                  ("response.output_item.added", {"output_index": 0, "item": REASONING}),
                  ("response.output_item.done", {"output_index": 0, "item": REASONING}),
                  ("response.output_item.added", {"output_index": 1, "item": {**CALL, "arguments": "",
                                                                              "status": "in_progress"}}),
                  ("response.function_call_arguments.delta", {"output_index": 1, "item_id": "fc_1",
                                                              "delta": CALL["arguments"]}),
                  ("response.function_call_arguments.done", {"output_index": 1, "item_id": "fc_1",
                                                             "arguments": CALL["arguments"]}),
                  ("response.output_item.done", {"output_index": 1, "item": CALL}),
                  completed([REASONING, CALL]))


@pytest.mark.parametrize("streaming", [False, True])
def test_the_function_call_goes_back_with_its_item_id_after_its_reasoning(responses, streaming):
    first = Raw(events=_call_events()) if streaming else Raw(body=response([REASONING, CALL]))
    second = Raw(events=events(created(), completed([SUNNY]))) if streaming else Raw(body=response([SUNNY]))
    responses.queue(first, second)
    result = Agent(responses_model(responses, streaming=streaming), [get_weather]).invoke("weather?")
    assert result.stop_reason == "answer"
    sent = responses.requests[-1].body["input"]
    assert sent[1] == REASONING
    assert sent[2] == {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather",
                       "arguments": '{"city": "Oslo"}'}
    assert result.messages[1].provider_data == {"openai": {"reasoning": [REASONING],
                                                           "function_call_ids": {"call_1": "fc_1"},
                                                           # the output's order (review 66, F2)
                                                           "output": [{"type": "reasoning", "index": 0},
                                                                      {"type": "function_call", "id": "fc_1",
                                                                       "call_id": "call_1"}]}}


def test_the_item_ids_read_the_same_invoked_and_streamed(responses):
    responses.queue(Raw(body=response([REASONING, CALL])), Raw(events=_call_events()))
    model = responses_model(responses).bind_tools([get_weather])
    invoked, streamed = model.invoke("q"), stream_of(model)
    assert without_usage(streamed) == without_usage(invoked)
    assert invoked.provider_data["openai"]["function_call_ids"] == {"call_1": "fc_1"}


# --------------------------------------------------------------------------- 5: Gemini code execution

CODE_PARTS = [{"text": "Let me compute."}, {"executableCode": {"language": "PYTHON", "code": "print(sum(range(101)))"}},
              {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "5050\n"}}, {"text": "The sum is 5050."}]
CODE_TEXT = ("Let me compute.\n```python\nprint(sum(range(101)))\n```\n```output\n5050\n```\n"
             "The sum is 5050.")


def test_code_execution_parts_are_kept_shown_and_sent_back(gemini):
    streamed_parts = [[{"text": "Let me "}], [{"text": "compute."}, CODE_PARTS[1]], [CODE_PARTS[2]],
                      [{"text": "The sum "}], [{"text": "is 5050."}]]
    gemini.queue(Raw(body=gemini_reply(CODE_PARTS)),
                 Raw(events=[gemini_reply(p, "STOP" if i == len(streamed_parts) - 1 else None)
                             for i, p in enumerate(streamed_parts)]),
                 Raw(body=gemini_reply([{"text": "55"}])))
    model = gemini_model(gemini).bind_tools([{"code_execution": {}}])
    invoked, streamed = model.invoke("sum 1..100 with code"), stream_of(model, "sum 1..100 with code")
    assert invoked.text == CODE_TEXT
    assert streamed == invoked
    kept = invoked.provider_data["gemini"]["parts"]
    assert kept[1] == {"executable_code": {"language": "PYTHON", "code": "print(sum(range(101)))"}}
    assert kept[2] == {"code_execution_result": {"outcome": "OUTCOME_OK", "output": "5050\n"}}
    model.invoke([HumanMessage("sum 1..100 with code"), streamed, HumanMessage("and 1..10?")])
    sent = gemini.requests[-1].body
    assert sent["contents"][1] == {"role": "model", "parts": CODE_PARTS}
    assert sent["tools"] == [{"codeExecution": {}}]


def test_a_failed_code_run_says_so_in_the_text(gemini):
    parts = [{"executableCode": {"language": "PYTHON", "code": "1/0"}},
             {"codeExecutionResult": {"outcome": "OUTCOME_FAILED", "output": "ZeroDivisionError"}}, {"text": "Oops."}]
    gemini.queue(Raw(body=gemini_reply(parts)))
    reply = gemini_model(gemini).bind_tools([{"code_execution": {}}]).invoke("q")
    assert reply.text == ("```python\n1/0\n```\nThe code ended with OUTCOME_FAILED:\n"
                          "```output\nZeroDivisionError\n```\nOops.")


# --------------------------------------------------------------------------- 6: reasoning_content with tool calls


class DeepSeekChat(RawChat):
    """DeepSeek's thinking mode: an assistant turn with tool calls must carry its ``reasoning_content``
    (400 "Missing `reasoning_content` field in the assistant message at message index N")."""

    def validate(self, body: Any, headers: dict[str, str], route: str, server: WireServer) -> list[str]:
        problems = []
        body = copy.deepcopy(body)
        for i, msg in enumerate(body.get("messages") or () if isinstance(body, dict) else ()):
            if isinstance(msg, dict) and msg.get("role") == "assistant":
                reasoning = msg.pop("reasoning_content", None)
                if msg.get("tool_calls") and not isinstance(reasoning, str):
                    problems.append(f"Missing `reasoning_content` field in the assistant message at message index {i}")
        return problems + super().validate(body, headers, route, server)


@pytest.fixture
def deepseek() -> Iterator[RawServer]:
    with RawServer(DeepSeekChat(), brain=None) as server:
        yield server
    assert not server.problems, f"requests DeepSeek would reject: {server.problems}"


THOUGHT = "I should call get_weather for Oslo."
TOOL_CALL = {"id": "call_0", "type": "function", "function": {"name": "get_weather", "arguments": '{"city":"Oslo"}'}}


@pytest.mark.parametrize("streaming", [False, True])
def test_reasoning_content_goes_back_with_the_tool_calls(deepseek, streaming):
    if streaming:
        first = Raw(events=[chunk({"role": "assistant", "content": "", "reasoning_content": "I should call "}),
                            chunk({"reasoning_content": "get_weather for Oslo."}),
                            chunk({"tool_calls": [{"index": 0, **TOOL_CALL}]}), chunk({}, "tool_calls"), "[DONE]"])
        second = Raw(events=[chunk({"reasoning_content": "Done."}), chunk({"content": "Sunny."}, "stop"), "[DONE]"])
    else:
        first = Raw(body=completion({"role": "assistant", "content": "", "reasoning_content": THOUGHT,
                                     "tool_calls": [TOOL_CALL]}, "tool_calls"))
        second = Raw(body=completion({"role": "assistant", "content": "Sunny.", "reasoning_content": "Done."}))
    deepseek.queue(first, second)
    model = build_model("openai-chat", deepseek.url, streaming=streaming)
    result = Agent(model, [get_weather]).invoke("weather?")
    assert result.output == "Sunny."
    sent = deepseek.requests[-1].body["messages"][1]
    assert sent["reasoning_content"] == THOUGHT and sent["tool_calls"][0]["id"] == "call_0"
    # a later user turn keeps it on the tool-call turn, and the answer turn (no calls) goes without it
    deepseek.queue(Raw(body=completion({"role": "assistant", "content": "ok", "reasoning_content": "hm"})))
    model.invoke([*result.messages, HumanMessage("thanks")])
    messages = deepseek.requests[-1].body["messages"]
    assert messages[1]["reasoning_content"] == THOUGHT and "reasoning_content" not in messages[3]


def test_reasoning_in_the_reasoning_field_is_not_sent_back(raw, make):
    """Groq and OpenRouter send ``reasoning`` (and Groq refuses ``reasoning_content`` in a request)."""
    raw.queue(Raw(body=completion({"role": "assistant", "content": None, "reasoning": THOUGHT,
                                   "tool_calls": [TOOL_CALL]}, "tool_calls")),
              Raw(body=completion({"role": "assistant", "content": "Sunny."})))
    result = Agent(make(), [get_weather]).invoke("weather?")
    assert result.output == "Sunny." and result.messages[1].provider_data == {"openai": {"reasoning_content": THOUGHT}}
    assert "reasoning_content" not in raw.requests[-1].body["messages"][1]


def test_reasoning_content_is_never_sent_to_openai_itself():
    call = {"name": "get_weather", "args": {"city": "Oslo"}, "id": "c1", "type": "tool_call"}
    reply = AIMessage("", tool_calls=[call],
                      provider_data={"openai": {"reasoning_content": THOUGHT, "return_reasoning": True}})
    conversation = [HumanMessage("q"), reply, ToolMessage("sunny", tool_call_id="c1")]
    assert "reasoning_content" not in lower_request(ChatRequest(conversation), "gpt-5")["messages"][1]
    assert lower_request(ChatRequest(conversation), "deepseek", compatible=True)["messages"][1]["reasoning_content"] \
        == THOUGHT
