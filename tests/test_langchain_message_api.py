"""LangChain's pydantic-style message API on toolwire's messages: ``model_copy``, ``model_dump``, ``content_blocks``
(:mod:`toolwire._message_compat`), compared with langchain-core's own output for equivalent messages."""

from __future__ import annotations

import datetime
import json
from typing import Any

import pytest

from toolwire import AIMessage, HumanMessage, SystemMessage, ToolMessage
from toolwire.errors import UserError

lc = pytest.importorskip("langchain_core.messages")


# -- model_copy ----------------------------------------------------------------------------------------------------

def test_model_copy_returns_a_new_message_of_the_same_class_with_the_update() -> None:
    for message in (SystemMessage("s"), HumanMessage("h", name="bob"), AIMessage("a", id="m1"),
                    ToolMessage("r", tool_call_id="c1")):
        copied = message.model_copy(update={"content": "x"})
        assert type(copied) is type(message)
        assert copied is not message
        assert copied.content == "x"
        assert message.content != "x"  # the original is unchanged
        assert copied.model_copy() == copied


def test_model_copy_matches_langchain_for_the_same_update() -> None:
    tw = AIMessage("hi", tool_calls=[{"name": "f", "args": {"a": 1}, "id": "c1"}], id="m1")
    ours = tw.model_copy(update={"content": "x", "id": "m2"})
    theirs = lc.AIMessage("hi", tool_calls=[{"name": "f", "args": {"a": 1}, "id": "c1"}], id="m1").model_copy(
        update={"content": "x", "id": "m2"})
    assert ours.model_dump() == theirs.model_dump()


@pytest.mark.parametrize(("message", "update", "error"), [
    (ToolMessage("r", tool_call_id="c1"), {"status": "ok"}, ValueError),
    (ToolMessage("r", tool_call_id="c1"), {"tool_call_id": None}, TypeError),
    (HumanMessage("h"), {"content": 5}, TypeError),
    (HumanMessage("h"), {"content": ["text", 42]}, TypeError),
    (HumanMessage("h"), {"additional_kwargs": {"x": 1}}, UserError),
    (AIMessage("a"), {"tool_calls": [{"args": {}}]}, UserError),
    (AIMessage("a"), {"usage_metadata": {"input_tokens": -1, "output_tokens": 0}}, UserError),
])
def test_model_copy_refuses_an_invalid_update_with_the_constructors_error(message: Any, update: dict[str, Any],
                                                                          error: type[Exception]) -> None:
    values = {**message._values(), **update}
    content = values.pop("content")
    extra = {k: values.pop(k) for k in ("usage_metadata", "additional_kwargs") if k in values}
    if "usage_metadata" in extra:
        values.pop("usage", None)
    with pytest.raises(error) as built:
        type(message)(content, **values, **extra)
    with pytest.raises(error) as copied:
        message.model_copy(update=update)
    assert str(copied.value) == str(built.value)


def test_model_copy_refuses_a_name_that_is_no_field_and_another_type() -> None:
    with pytest.raises(TypeError, match=r"AIMessage has no field\(s\) \['bogus'\]: its fields are"):
        AIMessage("a").model_copy(update={"bogus": 1})
    with pytest.raises(TypeError, match="cannot change type to 'human'"):
        AIMessage("a").model_copy(update={"type": "human"})
    assert AIMessage("a").model_copy(update={"type": "ai"}) == AIMessage("a")
    with pytest.raises(TypeError, match="HumanMessage has no response_metadata"):
        HumanMessage("h").model_copy(update={"response_metadata": {"x": 1}})
    assert HumanMessage("h").model_copy(update={"response_metadata": {}, "additional_kwargs": {}}) == HumanMessage("h")


def test_model_copy_takes_langchains_usage_metadata_and_additional_kwargs() -> None:
    message = AIMessage("a", usage={"input_tokens": 1, "output_tokens": 2, "total_tokens": 3},
                        additional_kwargs={"reasoning_content": "old"})
    copied = message.model_copy(update={"usage_metadata": {"input_tokens": 5, "output_tokens": 1, "total_tokens": 6},
                                        "additional_kwargs": {"refusal": "no"}})
    assert copied.usage == {"input_tokens": 5, "output_tokens": 1, "total_tokens": 6}
    assert copied.model_dump()["additional_kwargs"] == {"refusal": "no"}  # replaced, as LangChain replaces it
    assert message.model_dump()["additional_kwargs"] == {"reasoning_content": "old"}


def test_model_copy_deep_copies_nested_values_and_shallow_shares_them() -> None:
    artifact = {"rows": [1, 2]}
    message = ToolMessage("r", tool_call_id="c1", artifact=artifact)
    assert message.model_copy().artifact is artifact  # pydantic's shallow copy shares it
    deep = message.model_copy(deep=True)
    assert deep.artifact == artifact and deep.artifact is not artifact
    assert deep.artifact["rows"] is not artifact["rows"]
    blocks = [{"type": "text", "text": "x"}]
    human = HumanMessage(blocks)
    assert human.model_copy(deep=True).content[0] is not human.content[0]


# -- model_dump ----------------------------------------------------------------------------------------------------

PAIRS = [
    (SystemMessage("s"), lc.SystemMessage("s")),
    (HumanMessage("h", name="bob", id="1"), lc.HumanMessage("h", name="bob", id="1")),
    (HumanMessage([{"type": "text", "text": "a"}, {"type": "image", "url": "https://x/y.png"}]),
     lc.HumanMessage([{"type": "text", "text": "a"}, {"type": "image", "url": "https://x/y.png"}])),
    (AIMessage("hi", tool_calls=[{"name": "f", "args": {"a": 1}, "id": "c1"}],
               usage={"input_tokens": 1, "output_tokens": 2, "total_tokens": 3},
               response_metadata={"model_name": "x", "finish_reason": "tool_calls"}, id="m1"),
     lc.AIMessage("hi", tool_calls=[{"name": "f", "args": {"a": 1}, "id": "c1"}],
                  usage_metadata={"input_tokens": 1, "output_tokens": 2, "total_tokens": 3},
                  response_metadata={"model_name": "x", "finish_reason": "tool_calls"}, id="m1")),
    (AIMessage("", invalid_tool_calls=[{"name": "g", "args": "{bad", "id": "c2", "error": "oops",
                                        "type": "invalid_tool_call"}]),
     lc.AIMessage("", invalid_tool_calls=[{"name": "g", "args": "{bad", "id": "c2", "error": "oops",
                                           "type": "invalid_tool_call"}])),
    (AIMessage("x", usage={"input_tokens": 10, "output_tokens": 2, "total_tokens": 12, "cached_tokens": 4}),
     lc.AIMessage("x", usage_metadata={"input_tokens": 10, "output_tokens": 2, "total_tokens": 12,
                                       "input_token_details": {"cache_read": 4}})),
    (AIMessage("x", additional_kwargs={"reasoning_content": "think", "refusal": "no"}),
     lc.AIMessage("x", additional_kwargs={"reasoning_content": "think", "refusal": "no"})),
    (ToolMessage("r", tool_call_id="c1", artifact={"x": 1}, status="error", name="f"),
     lc.ToolMessage("r", tool_call_id="c1", artifact={"x": 1}, status="error", name="f")),
    (ToolMessage("r", tool_call_id="c1"), lc.ToolMessage("r", tool_call_id="c1")),
]


@pytest.mark.parametrize(("ours", "theirs"), PAIRS, ids=[f"{type(p[0]).__name__}-{i}" for i, p in enumerate(PAIRS)])
def test_model_dump_has_langchains_keys_order_and_values(ours: Any, theirs: Any) -> None:
    mine, expected = ours.model_dump(), theirs.model_dump()
    assert list(mine) == list(expected)  # the same keys, in the same order
    for key in expected:
        assert mine[key] == expected[key], key


def test_model_dump_keeps_what_langchain_has_no_field_for_where_to_langchain_messages_puts_it() -> None:
    from toolwire.interop.langchain import to_langchain_messages

    message = AIMessage("", tool_calls=[{"name": "f", "args": {}, "id": "c2"}],
                        invalid_tool_calls=[{"name": "g", "args": "{", "id": "c1", "error": "cut", "index": 0,
                                             "type": "invalid_tool_call"}],
                        provider_data={"thinking": [{"signature": "s"}]})
    dumped = message.model_dump()
    # the two keys that differ from a LangChain message's: toolwire's own data, which LangChain has no field for
    assert dumped["additional_kwargs"] == {"toolwire_provider_data": {"thinking": [{"signature": "s"}]},
                                           "toolwire_invalid_call_index": {"c1": 0}}
    assert dumped == to_langchain_messages([message])[0].model_dump()


def test_model_dump_json_mode_include_exclude_and_exclude_none() -> None:
    when = datetime.datetime(2025, 1, 2, 3, 4, 5)
    message = ToolMessage("r", tool_call_id="c1", artifact={"at": when})
    assert message.model_dump()["artifact"]["at"] is when
    as_json = message.model_dump(mode="json")
    assert as_json["artifact"] == {"at": "2025-01-02T03:04:05"}
    json.dumps(as_json)
    assert lc.ToolMessage("r", tool_call_id="c1", artifact={"at": when}).model_dump(mode="json")["artifact"] == \
        as_json["artifact"]
    assert message.model_dump(include={"content", "type"}) == {"content": "r", "type": "tool"}
    assert "artifact" not in message.model_dump(exclude={"artifact"})
    assert message.model_dump(exclude_none=True) == lc.ToolMessage(
        "r", tool_call_id="c1", artifact={"at": when}).model_dump(exclude_none=True)
    with pytest.raises(ValueError, match="'python' or 'json'"):
        message.model_dump(mode="yaml")  # type: ignore[arg-type]


def test_model_dump_is_a_new_dict() -> None:
    message = AIMessage("x", tool_calls=[{"name": "f", "args": {"a": [1]}, "id": "c1"}])
    dumped = message.model_dump()
    dumped["tool_calls"][0]["args"]["a"].append(2)
    assert message.tool_calls[0]["args"] == {"a": [1]}


# -- content_blocks -------------------------------------------------------------------------------------------------

def _same_ids(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The blocks with every generated id (``lc_<uuid4>``, new on each read) written ``lc_*``."""
    return [{**b, "id": "lc_*"} if str(b.get("id", "")).startswith("lc_") else b for b in blocks]


CONTENTS: list[Any] = [
    "hello",
    "",
    [{"type": "text", "text": "a"}, "b", {"type": "reasoning", "reasoning": "think"}],
    [{"type": "thinking", "thinking": "t", "signature": "s"}, {"type": "weird", "x": 1}, {"text": "no type"}],
    [{"type": "image", "url": "http://x/y.png"}, {"type": "image", "base64": "AAAA", "mime_type": "image/png"}],
    [{"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}],
    [{"type": "image_url", "image_url": {"url": "https://x/y.png", "detail": "high"}}],
    [{"type": "input_audio", "input_audio": {"data": "AAA", "format": "wav"}}],
    [{"type": "file", "file": {"file_data": "data:application/pdf;base64,AAA", "filename": "a.pdf"}}],
    [{"type": "file", "file": {"file_id": "f1"}}],
    [{"type": "image", "source_type": "base64", "data": "AAA", "mime_type": "image/png"}],
    [{"type": "image", "source_type": "url", "url": "http://a"}],
    [{"type": "audio", "source_type": "base64", "data": "AAA", "mime_type": "audio/wav", "cache_control": {"x": 1}}],
    [{"type": "file", "source_type": "id", "id": "f1"}],
    [{"type": "text", "text": "x", "id": "b1", "annotations": []}],
    [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AA"}, "cache_control": None}],
    [{"type": "image", "source": {"type": "url", "url": "https://x/y.png"}}],
    [{"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "AA"}, "title": "t"}],
    [{"type": "document", "source": {"type": "text", "data": "plain"}}],
    [{"type": "document", "source": {"type": "file", "file_id": "f9"}}],
    [{"type": "image", "source": {"type": "base64", "data": "AA"}}],
    [{"type": "image", "source": {"type": "other"}}],
]


@pytest.mark.parametrize("content", CONTENTS, ids=range(len(CONTENTS)))
@pytest.mark.parametrize("kind", ["human", "ai", "system"])
def test_content_blocks_match_langchain(content: Any, kind: str) -> None:
    ours = {"human": HumanMessage, "ai": AIMessage, "system": SystemMessage}[kind](content)
    theirs = {"human": lc.HumanMessage, "ai": lc.AIMessage, "system": lc.SystemMessage}[kind](content)
    assert _same_ids(ours.content_blocks) == _same_ids(theirs.content_blocks)


def test_content_blocks_of_a_tool_message_match_langchain() -> None:
    for content in ("res", [{"type": "text", "text": "r"}]):
        assert ToolMessage(content, tool_call_id="c1").content_blocks == \
            lc.ToolMessage(content, tool_call_id="c1").content_blocks


def test_content_blocks_of_an_ai_message_add_its_tool_calls_and_reasoning_as_langchain_does() -> None:
    calls = [{"name": "f", "args": {"a": 1}, "id": "c1"}, {"name": "g", "args": {}, "id": "c2"}]
    invalid = [{"name": "h", "args": "{bad", "id": "c3", "error": "oops", "type": "invalid_tool_call"}]
    cases = [
        ({"content": "hi", "tool_calls": calls, "invalid_tool_calls": invalid}, {}),
        ({"content": [{"type": "tool_call", "id": "c1", "name": "f", "args": {"a": 1}}], "tool_calls": calls}, {}),
        ({"content": "answer", "additional_kwargs": {"reasoning_content": "because"}}, {}),
        ({"content": [{"type": "reasoning", "reasoning": "own"}], "additional_kwargs": {"reasoning_content": "x"}}, {}),
        ({"content": [{"type": "text", "text": "x"}, {"type": "custom"}]},
         {"response_metadata": {"output_version": "v1"}}),
    ]
    for fields, metadata in cases:
        ours = AIMessage(**fields, **metadata)
        theirs = lc.AIMessage(**fields, **metadata)
        assert ours.content_blocks == theirs.content_blocks, fields
    assert AIMessage("hi", tool_calls=calls).content_blocks[1:] == [
        {"type": "tool_call", "id": "c1", "name": "f", "args": {"a": 1}},
        {"type": "tool_call", "id": "c2", "name": "g", "args": {}}]


def test_content_blocks_are_new_dicts() -> None:
    message = AIMessage([{"type": "text", "text": "x"}], tool_calls=[{"name": "f", "args": {"a": [1]}, "id": "c1"}])
    blocks = message.content_blocks
    blocks[0]["text"] = "changed"
    blocks[1]["args"]["a"].append(2)
    assert message.content == [{"type": "text", "text": "x"}]
    assert message.tool_calls[0]["args"] == {"a": [1]}
