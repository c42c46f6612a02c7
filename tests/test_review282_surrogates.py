"""Review 282 #4: an OpenAI-compatible stream that splits a character outside the BMP (a UTF-16 surrogate pair written
as two JSON escapes, ``"\\ud83d"`` then ``"\\ude00"``) across two deltas gave chunks holding a lone surrogate, which
``print(chunk.content)`` could not encode. A trailing high surrogate is now carried over to the next delta."""

from __future__ import annotations

import json

from toolwire.messages import merge_chunks
from toolwire.models.lowering.openai import ResponsesStreamState, StreamState


def _printable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _chat(delta: dict, finish: str | None = None) -> dict:
    return {"id": "c1", "model": "m", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def _run(state: StreamState | ResponsesStreamState, events: list[dict]) -> list:
    chunks = [c for c in (state.feed(json.loads(json.dumps(e))) for e in events) if c is not None]
    return [*chunks, state.finish()]


def test_chat_text_pair_split_across_deltas() -> None:
    chunks = _run(StreamState(compatible=True), [_chat({"content": "Olá a\ud83d"}), _chat({"content": "\ude00b"}),
                                                  _chat({}, "stop")])
    assert all(_printable(c.content) for c in chunks)
    assert [c.content for c in chunks if c.content] == ["Olá a", "\U0001F600b"]
    assert merge_chunks(chunks).to_message().content == "Olá a\U0001F600b"


def test_chat_pair_split_across_three_deltas_with_an_empty_one() -> None:
    chunks = _run(StreamState(), [_chat({"content": "\ud83d"}), _chat({"content": ""}), _chat({"content": "\ude00"}),
                                  _chat({}, "stop")])
    assert "".join(c.content for c in chunks) == "\U0001F600"


def test_chat_lone_high_surrogate_at_the_end_becomes_fffd() -> None:
    chunks = _run(StreamState(compatible=True), [_chat({"content": "a\ud83d"}), _chat({}, "stop")])
    assert all(_printable(c.content) for c in chunks)
    assert merge_chunks(chunks).to_message().content == "a\ufffd"


def test_chat_lone_low_surrogate_becomes_fffd_at_once() -> None:
    chunks = _run(StreamState(compatible=True), [_chat({"content": "\ude00b"}), _chat({}, "stop")])
    assert chunks[0].content == "\ufffdb"


def test_chat_tool_call_arguments_split_pair() -> None:
    first = {"tool_calls": [{"index": 0, "id": "call_1", "function": {"name": "say", "arguments": '{"t": "\ud83d'}}]}
    second = {"tool_calls": [{"index": 0, "function": {"arguments": '\ude00"}'}}]}
    chunks = _run(StreamState(), [_chat(first), _chat(second), _chat({}, "tool_calls")])
    for chunk in chunks:
        assert all(_printable(piece["args"] or "") for piece in chunk.tool_call_chunks)
    assert merge_chunks(chunks).to_message().tool_calls[0]["args"] == {"t": "\U0001F600"}


def test_chat_ascii_and_whole_text_unchanged() -> None:
    chunks = _run(StreamState(), [_chat({"content": "héllo "}), _chat({"content": "\U0001F600!"}), _chat({}, "stop")])
    assert [c.content for c in chunks if c.content] == ["héllo ", "\U0001F600!"]


def _responses(events: list[dict]) -> list:
    return _run(ResponsesStreamState(), [{"type": "response.created", "response": {"id": "r1", "model": "m"}},
                                         *events])


def _text_delta(text: str) -> dict:
    return {"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "item_id": "m1",
            "delta": text}


def test_responses_text_pair_split_across_deltas() -> None:
    done = {"type": "response.output_text.done", "output_index": 0, "content_index": 0, "item_id": "m1",
            "text": "a\U0001F600b"}
    end = {"type": "response.completed", "response": {"id": "r1", "status": "completed", "output": []}}
    chunks = _responses([_text_delta("a\ud83d"), _text_delta("\ude00b"), done, end])
    assert all(_printable(c.content) for c in chunks)
    assert merge_chunks(chunks).to_message().content == "a\U0001F600b"


def test_responses_lone_high_surrogate_at_the_end() -> None:
    end = {"type": "response.completed", "response": {"id": "r1", "status": "completed", "output": []}}
    chunks = _responses([_text_delta("a\ud83d"), end])
    assert all(_printable(c.content) for c in chunks)
    assert merge_chunks(chunks).to_message().content == "a\ufffd"


def test_responses_call_arguments_with_split_pair_are_printable() -> None:
    added = {"type": "response.output_item.added", "output_index": 0,
             "item": {"type": "function_call", "id": "fc1", "call_id": "call_1", "name": "say", "arguments": ""}}
    deltas = [{"type": "response.function_call_arguments.delta", "output_index": 0, "item_id": "fc1", "delta": d}
              for d in ('{"t": "\ud83d', '\ude00"}')]
    end = {"type": "response.completed", "response": {"id": "r1", "status": "completed", "output": []}}
    chunks = _responses([added, *deltas, end])
    for chunk in chunks:
        assert all(_printable(piece["args"] or "") for piece in chunk.tool_call_chunks)
    assert merge_chunks(chunks).to_message().tool_calls[0]["args"] == {"t": "\U0001F600"}
