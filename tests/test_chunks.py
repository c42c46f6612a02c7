"""toolwire.chunks: merging streamed chunks (merge_chunks, AIMessageChunk) and message_to_chunks, which streams a
whole reply for models without native streaming (review 2, findings 1, 8 and 10)."""

from __future__ import annotations

import asyncio
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire import AIMessage, AIMessageChunk, BaseChatModel, merge_chunks
from toolwire.messages import invalid_tool_call, tool_call
from toolwire.models.base import ChatRequest, message_to_chunks
from toolwire.testing import ScriptedChatModel


def piece(name: str | None, args: str | None, id: str | None = None, index: int | None = None) -> AIMessageChunk:
    return AIMessageChunk(tool_call_chunks=[{"name": name, "args": args, "id": id, "index": index,
                                             "type": "tool_call_chunk"}])


def calls(chunks: list[AIMessageChunk]) -> tuple[list[tuple[str, dict[str, Any], str | None]], list[Any]]:
    message = merge_chunks(chunks, as_chunk=False)
    return [(c["name"], c["args"], c["id"]) for c in message.tool_calls], message.invalid_tool_calls


# -- finding 1: one call whose id changes on every piece ---------------------------------------------------------


def test_pieces_on_one_index_with_a_new_id_each_stay_one_call() -> None:
    """Poolside / mlx-openai-server: same index, a new id on every piece, the name only on the first."""
    chunks = [piece("get_weather", "", "call_a1", 0), piece(None, '{"city": ', "call_a2", 0),
              piece(None, '"Paris"}', "call_a3", 0)]
    assert calls(chunks) == ([("get_weather", {"city": "Paris"}, "call_a1")], [])


def test_parallel_calls_with_changing_ids_split_by_index() -> None:
    chunks = [piece("get_weather", "", "a1", 0), piece("get_time", "", "b1", 1), piece(None, '{"city": ', "a2", 0),
              piece(None, '{"tz": "CET"}', "b2", 1), piece(None, '"Oslo"}', "a3", 0)]
    assert calls(chunks) == ([("get_weather", {"city": "Oslo"}, "a1"), ("get_time", {"tz": "CET"}, "b1")], [])


def test_a_repeated_name_while_the_arguments_are_open_continues_the_call() -> None:
    chunks = [piece("f", '{"a": ', "c1", 0), piece("f", "1}", "c2", 0)]
    assert calls(chunks) == ([("f", {"a": 1}, "c1")], [])


# -- finding 10: whole calls without index or id, or an index reused for the next call ---------------------------


def test_whole_calls_without_index_or_id_are_kept_apart() -> None:
    message = merge_chunks([piece("f", '{"x": 1}'), piece("g", '{"y": 2}'), piece("g", '{"y": 3}')], as_chunk=False)
    assert [(c["name"], c["args"]) for c in message.tool_calls] == [("f", {"x": 1}), ("g", {"y": 2}), ("g", {"y": 3})]
    assert message.invalid_tool_calls == []


def test_an_index_reused_with_a_new_id_and_name_starts_the_next_call() -> None:
    chunks = [piece("f", '{"x": 1}', "A", 0), piece("g", '{"y": 2}', "B", 0), piece(None, "", None, 0)]
    assert calls(chunks) == ([("f", {"x": 1}, "A"), ("g", {"y": 2}, "B")], [])
    # the same function twice on index 0: the first call's JSON is complete, so the name starts the next
    chunks = [piece("f", "", "A", 0), piece(None, '{"x": 1}', None, 0), piece("f", "", "B", 0),
              piece(None, '{"x": 2}', None, 0)]
    assert calls(chunks) == ([("f", {"x": 1}, "A"), ("f", {"x": 2}, "B")], [])


def test_a_call_without_arguments_then_another_name_on_the_same_index() -> None:
    """get_time() sent with no argument text must not swallow the next call's arguments."""
    chunks = [piece("get_time", "", "A", 0), piece("get_weather", "", "B", 0), piece(None, '{"city": "Oslo"}', "B", 0)]
    assert calls(chunks) == ([("get_time", {}, "A"), ("get_weather", {"city": "Oslo"}, "B")], [])


def test_a_known_id_on_a_reused_index_goes_back_to_its_call() -> None:
    chunks = [piece("f", "", "A", 0), piece("g", "", "B", 0), piece(None, '{"x": 1}', "A", 0),
              piece(None, '{"y": 2}', "B", 0), piece(None, "", "A", None)]
    assert calls(chunks) == ([("f", {"x": 1}, "A"), ("g", {"y": 2}, "B")], [])


def test_split_calls_merge_the_same_in_any_grouping() -> None:
    chunks = [piece("f", '{"x"', "A", 0), piece(None, ": 1}", "A2", 0), piece("g", "", "B", 0),
              piece(None, '{"y": 2}', None, 0), AIMessageChunk("done")]
    whole = merge_chunks(chunks, as_chunk=False)
    assert [(c["name"], c["args"], c["id"]) for c in whole.tool_calls] == [("f", {"x": 1}, "A"), ("g", {"y": 2}, "B")]
    for cut in range(1, len(chunks)):
        assert (merge_chunks(chunks[:cut]) + merge_chunks(chunks[cut:])).to_message() == whole


# -- finding 8: message_to_chunks keeps every field ------------------------------------------------------------

CASES = [
    AIMessage(tool_calls=[tool_call("f", {"a": 1}, "c1")], id="msg_1"),
    AIMessage("hi", name="assistant_bot"),
    AIMessage([{"type": "text", "text": "a"}, {"type": "image", "url": "http://x/y.png"}], id="m2", name="bot"),
    AIMessage([]),
    AIMessage("", provider_data={}, usage={"input_tokens": 0, "output_tokens": 0, "total_tokens": 0}),
]


def test_scripted_stream_merges_into_what_invoke_returns() -> None:
    for reply in CASES:
        model = ScriptedChatModel([reply, reply, reply])
        invoked = model.invoke("q")
        assert merge_chunks(list(model.stream("q")), as_chunk=False) == invoked == reply

        async def collect(model: ScriptedChatModel = model) -> list[AIMessageChunk]:
            return [chunk async for chunk in model.astream("q")]

        assert merge_chunks(asyncio.run(collect()), as_chunk=False) == reply


class GenerateOnly(BaseChatModel):
    """A user model implementing only _generate: streaming falls back to message_to_chunks."""

    def __init__(self, reply: AIMessage) -> None:
        self.reply = reply

    def _generate(self, request: ChatRequest) -> AIMessage:
        return self.reply


def test_a_model_with_only_generate_streams_every_field() -> None:
    for reply in CASES:
        model = GenerateOnly(reply)
        chunks = list(model.stream("q"))
        assert merge_chunks(chunks, as_chunk=False) == model.invoke("q") == reply
        assert all(chunk.id == reply.id and chunk.name == reply.name for chunk in chunks)


def test_streamed_content_blocks_are_copies_and_have_text() -> None:
    reply = CASES[2]
    (first, *_) = message_to_chunks(reply)
    assert first.text == "a" and first.content == reply.content and first.content is not reply.content
    # text arriving after a block list joins it as a text block
    merged = merge_chunks([first, AIMessageChunk("b"), AIMessageChunk("c")])
    assert merged.content == [*reply.content, {"type": "text", "text": "bc"}]
    assert merge_chunks([AIMessageChunk("x"), first]).content == [{"type": "text", "text": "x"}, *reply.content]


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
_ids = st.text(min_size=1, max_size=8)
# call names as a reply reader makes them: to_message reads a streamed call as parse_response reads a whole one
# (review 7, finding 3), which strips the name; no tool name has blanks (``^[a-zA-Z0-9_-]{1,64}$``)
_names = st.text(min_size=1, max_size=10).filter(lambda s: s == s.strip())
_blocks = st.lists(st.one_of(
    st.builds(lambda t: {"type": "text", "text": t}, st.text(max_size=10)),
    st.builds(lambda u: {"type": "image", "url": u}, st.text(max_size=10)),
    st.text(max_size=5),
), max_size=3)
messages = st.builds(
    lambda content, calls, bad, usage, meta, data, id, name: AIMessage(
        content, tool_calls=calls, invalid_tool_calls=bad, usage=usage, response_metadata=meta, provider_data=data,
        id=id, name=name),
    st.text(max_size=30) | _blocks,
    st.lists(st.builds(tool_call, _names,
                       st.dictionaries(st.text(max_size=6), _json, max_size=4), _ids), max_size=3),
    st.lists(st.builds(invalid_tool_call, st.none() | st.text(max_size=6), st.none() | st.text(max_size=12), _ids,
                       st.none() | st.text(max_size=12)), max_size=2),
    st.none() | st.builds(lambda i, o: {"input_tokens": i, "output_tokens": o, "total_tokens": i + o},
                          st.integers(0, 10**6), st.integers(0, 10**6)),
    st.dictionaries(st.text(max_size=6), _json, max_size=3),
    st.none() | st.dictionaries(st.text(max_size=6), _json, max_size=2),
    st.none() | st.text(max_size=8),
    st.none() | st.text(max_size=8),
)


@settings(max_examples=300, deadline=None)
@given(messages, st.integers(1, 5), st.data())
def test_message_to_chunks_round_trips_every_field(message: AIMessage, pieces: int, data: st.DataObject) -> None:
    chunks = message_to_chunks(message, pieces=pieces)
    assert merge_chunks(chunks, as_chunk=False) == message
    cut = data.draw(st.integers(0, len(chunks)))
    assert (merge_chunks(chunks[:cut]) + merge_chunks(chunks[cut:])).to_message() == message


# -- review 7, finding 1: parallel calls that share one id (DeepSeek, GLM, Kimi, OpenRouter) ---------------------


def test_a_new_index_is_a_new_call_even_when_the_id_repeats() -> None:
    chunks = [piece("get_weather", '{"city": "Paris"}', "c1", 0), piece("get_weather", '{"city": "Rome"}', "c1", 1)]
    assert calls(chunks) == ([("get_weather", {"city": "Paris"}, "c1"), ("get_weather", {"city": "Rome"}, "c1")], [])
    # pieces: the name and id on the first of each call, the id repeated on the rest
    chunks = [piece("f", "", "c1", 0), piece(None, '{"x": 1}', "c1", 0), piece("g", "", "c1", 1),
              piece(None, '{"y": 2}', "c1", 1), piece(None, "", "c1", 0)]
    assert calls(chunks) == ([("f", {"x": 1}, "c1"), ("g", {"y": 2}, "c1")], [])


def test_index_zero_and_one_id_for_every_call_still_splits_whole_calls() -> None:
    """OpenRouter: every call whole on index 0 with the same id, the same function or another."""
    for second in ("f", "g"):
        chunks = [piece("f", '{"x": 1}', "c1", 0), piece(second, '{"x": 2}', "c1", 0)]
        assert calls(chunks) == ([("f", {"x": 1}, "c1"), (second, {"x": 2}, "c1")], [])
    # the latest call under the id takes the pieces that follow it
    chunks = [piece("f", '{"x": 1}', "c1", 0), piece("g", "", "c1", 0), piece(None, '{"y": 2}', "c1", 0)]
    assert calls(chunks) == ([("f", {"x": 1}, "c1"), ("g", {"y": 2}, "c1")], [])


def test_one_call_repeating_its_id_and_name_on_every_piece_stays_one_call() -> None:
    chunks = [piece("f", '{"x": ', "c1", 0), piece("f", "1}", "c1", 0), piece("f", "", "c1", 0)]
    assert calls(chunks) == ([("f", {"x": 1}, "c1")], [])


# -- review 7, finding 3: a merged call is read as a whole reply's native call is -----------------------------


def test_wrapped_arguments_are_unwrapped_as_invoke_unwraps_them() -> None:
    wrapped = '{"name": "get_weather", "arguments": {"city": "Paris"}}'
    for name in ("get_weather", "", " get_weather "):
        chunks = [piece(name or None, wrapped[:20], "c1", 0), piece(None, wrapped[20:], None, 0)]
        assert calls(chunks) == ([("get_weather", {"city": "Paris"}, "c1")], [])


def test_a_nameless_merged_call_names_the_tools_when_they_are_given() -> None:
    chunks = [piece(None, '{"city": "Paris"}', "c1", 0)]
    (bad,) = merge_chunks(chunks, as_chunk=False, tool_names=["get_weather", "calculate"]).invalid_tool_calls
    assert bad["error"] == "The tool call has no name; call one of the available tools: calculate, get_weather."
    assert (bad["name"], bad["args"], bad["id"]) == (None, '{"city": "Paris"}', "c1")
    (bad,) = merge_chunks(chunks).to_message().invalid_tool_calls
    assert bad["error"] == "The tool call has no name; send it again with the name of the tool to call."
