"""Review 183 #1, #2, #6, #7: a call a stream sends again is read by its value, by one rule, in linear work.

#1: a copy re-serialized (``\\u`` escapes, another key order, arguments encoded twice as a JSON string) is the call
sent again, dropped, not a second run of the tool nor a broken call. #2: ``ChatOpenAI.stream`` and ``merge_chunks``
read the same pieces alike after a copy (a name on every piece, a call sent three times). #6: a copy sent in many
pieces is read in linear work. #7: ``a + b + ...``, ``merge_chunks`` and ``to_message(tool_names=...)`` give the same
calls for the same raw pieces (a copy split over chunks; two id-less parameterless calls on one index).
"""

from __future__ import annotations

import json
import random
from functools import reduce
from typing import Any

import pytest

from providers.scripted_http import Answer, ScriptedServer
from toolwire import Agent, tool
from toolwire._chunk_calls import merge_call_pieces, same_arguments
from toolwire.messages import AIMessage, AIMessageChunk, merge_chunks
from toolwire.models import ChatOpenAI
from toolwire.models.lowering._stream import ToolCallMerger
from toolwire.parsing import partial_json

VALUE = {"to": "zoë@example.com", "subject": "Café"}
ARGS = json.dumps(VALUE, ensure_ascii=False)
AGAIN = {
    "the same text": ARGS,
    "\\u escapes": json.dumps(VALUE),
    "another key order": json.dumps(dict(reversed(VALUE.items())), ensure_ascii=False),
    "encoded twice": json.dumps(ARGS),
    "spaced otherwise": '{ "to" : "zo\\u00eb@example.com" ,\n "subject":"Caf\\u00e9" }',
}


def _piece(index: Any = 0, id: Any = None, name: str | None = None, args: str | None = None) -> dict[str, Any]:
    return {"index": index, "id": id, "name": name, "args": args}


def _split(text: str, parts: int) -> list[str]:
    size = max(1, -(-len(text) // parts))
    return [text[i:i + size] for i in range(0, len(text), size)]


def _calls(reply: Any) -> list[tuple]:
    return [(c["name"], c["args"]) for c in reply.tool_calls] + [
        ("invalid", c.get("name"), c.get("args")) for c in reply.invalid_tool_calls]


def _raw_chunks(pieces: list[dict[str, Any]]) -> list[AIMessageChunk]:
    return [AIMessageChunk("", tool_call_chunks=[{**p, "type": "tool_call_chunk"}]) for p in pieces]


def _readings(pieces: list[dict[str, Any]], names: Any = None) -> dict[str, list[tuple]]:
    """The calls the stream merger, merge_chunks of its chunks and of the raw pieces, and ``+`` read."""
    merger = ToolCallMerger(names)
    streamed = [AIMessageChunk("", tool_call_chunks=[merger.add(**p)]) for p in pieces]
    raw = _raw_chunks(pieces)
    return {
        "merger": [(c["name"], c["args"]) if c["type"] == "tool_call" else ("invalid", c["name"], c["args"])
                   for c in merger.tool_calls()],
        "stream": _calls(merge_chunks(streamed, as_chunk=False, tool_names=names)),
        "merge_chunks": _calls(merge_chunks(raw, as_chunk=False, tool_names=names)),
        "plus": _calls(reduce(lambda a, b: a + b, raw).to_message(tool_names=names)),
    }


def _assert_all(pieces: list[dict[str, Any]], expected: list[tuple], names: Any = None) -> None:
    readings = _readings(pieces, names)
    for label, calls in readings.items():
        assert calls == expected, (label, pieces)


# -- #1 ------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("again", list(AGAIN.values()), ids=list(AGAIN))
@pytest.mark.parametrize("parts", [1, 3])
def test_a_copy_with_the_same_value_is_dropped_however_it_is_written(again: str, parts: int) -> None:
    first = [_piece(id="t1", name="send_email", args=""), _piece(args=ARGS)]
    copy = [_piece(id="t1", name="send_email", args=p) if not i else _piece(args=p)
            for i, p in enumerate(_split(again, parts))]
    _assert_all([*first, *copy], [("send_email", VALUE)])


def test_other_arguments_under_the_same_id_stay_a_call_of_their_own() -> None:
    other = {"subject": "Café", "to": "boss@example.com"}
    pieces = [_piece(id="t1", name="send_email", args=ARGS), _piece(id="t1", name="send_email", args=json.dumps(other))]
    _assert_all(pieces, [("send_email", VALUE), ("send_email", other)])
    merger = ToolCallMerger()
    for p in pieces:
        merger.add(**p)
    assert [c["id"] for c in merger.tool_calls()] == ["t1", "t1_2"]
    assert not same_arguments('{"a": 1}', '{"a": true}') and same_arguments('{"a": 1}', '{"a": 1.0}')
    assert not same_arguments('{"a": [1, 2]}', '{"a": [2, 1]}')


def test_the_agent_runs_a_tool_once_for_a_copy_written_with_escapes() -> None:
    sent: list[str] = []

    @tool
    def send_email(to: str, subject: str) -> str:
        """Send an email."""
        sent.append(to)
        return "sent"

    def event(delta: dict, finish: str | None = None) -> dict:
        return {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    def call(args: str) -> dict:
        return {"tool_calls": [{"index": 0, "id": "t1", "function": {"name": "send_email", "arguments": args}}]}

    for again in (json.dumps(VALUE), json.dumps(ARGS)):
        sent.clear()
        events = [event({"role": "assistant"}), event(call(ARGS)), event(call(again), "tool_calls")]
        done = [event({"role": "assistant", "content": "Done."}), event({}, "stop")]
        with ScriptedServer() as server:
            server.push(Answer(events=events), Answer(events=done))
            model = ChatOpenAI(model="m", base_url=server.url + "/v1", streaming=True)
            result = Agent(model, [send_email], repeat_calls=["send_email"]).invoke("Mail Zoë")
        assert sent == ["zoë@example.com"]
        assert [(m.tool_call_id, m.status) for m in result.messages if m.type == "tool"] == [("t1", "success")]


# -- #2 ------------------------------------------------------------------------------------------------------------


def test_a_copy_with_the_name_on_every_piece_or_sent_three_times_reads_alike() -> None:
    name_on_each = [_piece(id="t1", name="send_email", args='{"to": '),
                    _piece(name="send_email", args='"boss@example.com"}'),
                    _piece(id="t1", name="send_email", args='{"to": '),
                    _piece(name="send_email", args=' "boss@example.com"}')]
    _assert_all(name_on_each, [("send_email", {"to": "boss@example.com"})])
    thrice = [_piece(id="t1", name="send_email", args='{"to": "boss@example.com"}')] * 3
    _assert_all(thrice, [("send_email", {"to": "boss@example.com"})])


def test_random_streams_read_alike_in_the_stream_its_merge_and_sums() -> None:
    rng = random.Random(183)
    values = ['{"a": 1}', '{"a": 2}', '{}', '{"a": 1, "b": "é"}', '{"b": "\\u00e9", "a": 1}', '"{\\"a\\": 1}"']
    for _ in range(600):
        pieces = []
        for _ in range(rng.randint(1, 4)):
            name, args = rng.choice(["f", "g"]), rng.choice(values)
            index, call_id, parts = rng.choice([0, 1]), rng.choice(["t1", "t2", None]), rng.randint(1, 3)
            rep_id, rep_name = rng.random() < 0.5, rng.random() < 0.5
            for i, part in enumerate(_split(args, parts)):
                pieces.append(_piece(index, call_id if not i or rep_id else None,
                                     name if not i or (rep_name and rep_id) else None, part))
        readings = _readings(pieces)
        expected = readings["merge_chunks"]
        assert readings["plus"] == expected, pieces
        for label in ("stream", "merger"):  # (calls in the order they started, not by the provider's index)
            assert sorted(readings[label], key=repr) == sorted(expected, key=repr), (label, pieces)


# -- #6 ------------------------------------------------------------------------------------------------------------


class _Piece(str):
    """A piece of argument text that counts the characters copied when text is joined to it."""

    copied = 0

    def __add__(self, other: str) -> str:  # type: ignore[override]
        _Piece.copied += len(self) + len(other)
        return str(self) + str(other)

    def __radd__(self, other: str) -> str:
        _Piece.copied += len(self) + len(other)
        return str(other) + str(self)


def _work(pieces: int, monkeypatch: pytest.MonkeyPatch) -> int:
    fed = [0]
    feed = partial_json.PartialJSONParser.feed

    def counted(self: Any, fragment: str, **kwargs: Any) -> Any:
        fed[0] += len(fragment)
        return feed(self, fragment, **kwargs)

    monkeypatch.setattr(partial_json.PartialJSONParser, "feed", counted)
    _Piece.copied = 0
    text = '{"text": "' + "x" * (10 * pieces) + '"}'
    merger = ToolCallMerger()
    merger.add(index=0, id="t1", name="f", args=text)
    merger.add(index=0, id="t1", name="f", args="")
    for part in _split(text, pieces + 1):
        merger.add(index=0, args=_Piece(part))
    assert [c["args"] for c in merger.tool_calls()] == [{"text": "x" * (10 * pieces)}]
    raw = [_piece(id="t1", name="f", args=text), _piece(id="t1", name="f", args=""),
           *(_piece(args=_Piece(p)) for p in _split(text, pieces + 1))]
    assert len(merge_call_pieces(raw)) == 1
    return fed[0] + _Piece.copied


def test_a_copy_in_many_pieces_is_read_in_linear_work(monkeypatch: pytest.MonkeyPatch) -> None:
    small, large = _work(1_000, monkeypatch), _work(10_000, monkeypatch)
    assert large <= 12 * small, (small, large)


# -- #7 ------------------------------------------------------------------------------------------------------------


def test_sums_of_raw_pieces_read_as_merge_chunks_reads_them() -> None:
    copy_in_two = [_piece(id="t1", name="f", args='{"a": 1}'), _piece(id="t1", name="f", args='{"a"'),
                   _piece(args=": 1}")]
    _assert_all(copy_in_two, [("f", {"a": 1})])
    names = {"list_alarms", "list_timers"}
    two = [_piece(name="list_alarms", args=""), _piece(name="list_timers", args="")]
    _assert_all(two, [("list_alarms", {}), ("list_timers", {})], names)
    summed = reduce(lambda a, b: a + b, _raw_chunks(two))
    assert [c["name"] for c in summed.to_message(tool_names=names).tool_calls] == ["list_alarms", "list_timers"]
    # without the tools' names, a name streamed in pieces still reads joined, from a sum and from its merge
    split = [_piece(id="x", name="get_wea", args=""), _piece(name="ther"), _piece(args='{"city": "Oslo"}')]
    summed = reduce(lambda a, b: a + b, _raw_chunks(split))
    assert [(c["name"], c["args"]) for c in summed.tool_calls] == [("get_weather", {"city": "Oslo"})]
    merged = merge_chunks([summed], as_chunk=False)
    assert isinstance(merged, AIMessage) and [c["id"] for c in merged.tool_calls] == ["x"]
