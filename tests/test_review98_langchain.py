"""Review 98 (#10, #11, and the chunk/StructuredOutput gaps): LangChain's pydantic spellings on toolwire's messages
and chunks, and the Runnable methods of pipelines and structured output, compared with langchain-core 1.8.3 where it
is importable."""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest
from pydantic import BaseModel

from toolwire import AIMessage, HumanMessage, ToolMessage

try:
    import langchain_core.messages as lc_messages
except ImportError:  # pragma: no cover - langchain-core is a benchmark dependency
    lc_messages = None  # type: ignore[assignment]

needs_langchain = pytest.mark.skipif(lc_messages is None, reason="langchain-core not installed")

CALLS = [{"name": "f", "args": {"a": 1, "b": None}, "id": "c1"}, {"name": "g", "args": {"q": "x"}, "id": "c2"},
         {"name": "h", "args": {}, "id": "c3"}]


def _pair() -> tuple[Any, AIMessage]:
    """The same AI message in LangChain and toolwire: text block, three calls, an invalid call with None fields."""
    content = [{"type": "text", "text": "hi", "extra": None}]
    invalid = [{"name": None, "args": "{", "id": "c9", "error": None}]
    usage = {"input_tokens": 1, "output_tokens": 2, "total_tokens": 3}
    theirs = lc_messages.AIMessage(content=content, tool_calls=CALLS, invalid_tool_calls=invalid, usage_metadata=usage)
    ours = AIMessage(content, tool_calls=CALLS, invalid_tool_calls=invalid, usage_metadata=usage)
    return theirs, ours


SELECTIONS: list[dict[str, Any]] = [
    {"include": {"tool_calls": {0: {"name"}}}},
    {"include": {"tool_calls": {-1: {"name"}}, "content": {"__all__": {"text"}}}},
    {"include": {"tool_calls": {"__all__": {"name"}, 0: {"id"}}}},
    {"exclude": {"tool_calls": {"__all__": {"name"}, 1: True}, "content": True}},
    {"include": {"tool_calls": {1: {"args": {"q"}}}, "id": ...}},
    {"include": {"tool_calls"}, "exclude": {"tool_calls": {0: {"id"}}}},
    {"include": {"usage_metadata": {"total_tokens"}}, "exclude_none": True},
    {"exclude_none": True},
    {"exclude_none": True, "mode": "json"},
    {"include": ["content", "type"]},
    {"by_alias": True},
]


@needs_langchain
@pytest.mark.parametrize("options", SELECTIONS, ids=[repr(s)[:60] for s in SELECTIONS])
def test_model_dump_selects_as_langchains(options: dict[str, Any]) -> None:
    """Review 98 #10: nested include/exclude were ignored, exclude_none kept None inside invalid_tool_calls."""
    theirs, ours = _pair()
    assert ours.model_dump(**options) == theirs.model_dump(**options)


@needs_langchain
def test_exclude_none_drops_nones_in_typed_places_only() -> None:
    _, ours = _pair()
    dumped = ours.model_dump(exclude_none=True)
    assert dumped["invalid_tool_calls"] == [{"args": "{", "id": "c9", "type": "invalid_tool_call"}]
    assert dumped["content"] == [{"type": "text", "text": "hi", "extra": None}]  # a plain dict keeps its None
    assert dumped["tool_calls"][0]["args"] == {"a": 1, "b": None}
    tool = ToolMessage("x", tool_call_id="1")
    lc_tool = lc_messages.ToolMessage("x", tool_call_id="1")
    assert tool.model_dump(exclude_none=True) == lc_tool.model_dump(exclude_none=True)


def test_a_bad_selection_is_pydantics_type_error() -> None:
    with pytest.raises(TypeError, match="must be a set or dict"):
        AIMessage("hi", tool_calls=CALLS).model_dump(include={"tool_calls": {0: False}})


@pytest.mark.parametrize("option", ["exclude_unset", "exclude_defaults"])
def test_exclude_unset_and_defaults_are_refused_in_one_sentence(option: str) -> None:
    with pytest.raises(TypeError, match=rf"model_dump\({option}=True\) is not taken: .*exclude="):
        AIMessage("hi").model_dump(**{option: True})
    assert AIMessage("hi").model_dump(**{option: False}) == AIMessage("hi").model_dump()
    with pytest.raises(TypeError, match="model_dump_json"):
        AIMessage("hi").model_dump_json(**{option: True})


def test_other_pydantic_keywords_are_refused_naming_those_taken() -> None:
    with pytest.raises(TypeError, match=r"takes mode, include, exclude, exclude_none and by_alias .* not round_trip"):
        HumanMessage("hi").model_dump(round_trip=True)


@needs_langchain
@pytest.mark.parametrize("indent", [None, 2])
def test_model_dump_json_is_langchains_text(indent: int | None) -> None:
    theirs, ours = _pair()
    assert ours.model_dump_json(indent=indent) == theirs.model_dump_json(indent=indent)
    options: dict[str, Any] = {"include": {"tool_calls": {0: {"name"}}}, "exclude_none": True}
    assert ours.model_dump_json(**options) == theirs.model_dump_json(**options)
    assert json.loads(HumanMessage("é").model_dump_json()) == lc_messages.HumanMessage("é").model_dump()
    assert HumanMessage("é").model_dump_json() == lc_messages.HumanMessage("é").model_dump_json()


def test_model_dump_of_a_pydantic_artifact_is_its_dict_as_in_langchain() -> None:
    class Found(BaseModel):
        n: int = 1
        note: str | None = None

    msg = ToolMessage("x", tool_call_id="1", artifact={"found": Found(), "k": None})
    assert msg.model_dump()["artifact"] == {"found": {"n": 1, "note": None}, "k": None}
    assert msg.model_dump(exclude_none=True)["artifact"] == {"found": {"n": 1}, "k": None}
    if lc_messages is not None:
        lc = lc_messages.ToolMessage("x", tool_call_id="1", artifact={"found": Found(), "k": None})
        assert msg.model_dump(exclude_none=True) == lc.model_dump(exclude_none=True)


def test_copy_update_is_pydantic_v1s_copy_with_a_deprecation_warning() -> None:
    """Review 98 #10: ``msg.copy(update={...})`` said "no field(s) ['update']"."""
    msg = AIMessage("hi", tool_calls=CALLS[:1], id="m1")
    with pytest.warns(DeprecationWarning, match=r"use model_copy\(update=\.\.\.\)") as caught:
        copied = msg.copy(update={"content": "bye"})
    assert caught[0].filename == __file__  # (the caller's line)
    assert copied == msg.model_copy(update={"content": "bye"}) and msg.content == "hi"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        deep = msg.copy(update={}, deep=True)
        assert deep == msg and deep.tool_calls[0]["args"] is not msg.tool_calls[0]["args"]
        with pytest.raises(TypeError, match=r"either pydantic v1's update=/deep= .* not content with them"):
            msg.copy(update={"id": "x"}, content="y")
        with pytest.raises(TypeError, match="no field"):
            msg.copy(update={"nope": 1})
    assert msg.copy(content="x").content == "x"  # toolwire's own form, unchanged


@needs_langchain
def test_copy_update_gives_what_langchains_gives() -> None:
    theirs, ours = _pair()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        assert ours.copy(update={"content": "x", "id": "m2"}).model_dump() == \
            theirs.copy(update={"content": "x", "id": "m2"}).model_dump()


# -- #11: a pipeline's with_retry and bind ---------------------------------------------------------------------------


class _Flaky:
    """A step that fails its first ``times`` calls (counting every call)."""

    def __init__(self, times: int) -> None:
        self.times, self.calls = times, 0

    def __call__(self, reply: Any) -> str:
        self.calls += 1
        if self.calls <= self.times:
            raise ConnectionError("reset")
        return f"parsed {reply.content}"


def test_a_pipelines_with_retry_runs_the_whole_sequence_again(waits: list[float]) -> None:
    """Review 98 #11: ``(model | parser).with_retry()`` was an AttributeError; LangChain's RunnableRetry around a
    RunnableSequence runs every step again."""
    import asyncio

    from toolwire.testing import ScriptedChatModel

    model = ScriptedChatModel(["a", "b", "c"])
    flaky = _Flaky(2)
    chain = (model | flaky).with_retry(stop_after_attempt=3)
    assert chain.invoke("q") == "parsed c"  # the model was asked again each time
    assert len(model.requests) == 3 and len(waits) == 2 and flaky.calls == 3
    amodel, aflaky = ScriptedChatModel(["a", "b", "c"]), _Flaky(2)
    assert asyncio.run((amodel | aflaky).with_retry().ainvoke("q")) == "parsed c"
    assert len(amodel.requests) == 3 and aflaky.calls == 3
    with pytest.raises(ConnectionError):
        (ScriptedChatModel(["x"] * 3) | _Flaky(5)).with_retry(stop_after_attempt=2).invoke("q")
    assert "with_retry" not in repr(chain) and repr(chain).endswith("retry='3 attempts')")


def test_a_retrying_pipeline_stays_one_step_of_a_longer_one(waits: list[float]) -> None:
    from toolwire.testing import ScriptedChatModel

    model = ScriptedChatModel(["a", "b"])
    later = _Flaky(1)
    chain = (model | (lambda reply: reply)).with_retry(stop_after_attempt=2) | later
    with pytest.raises(ConnectionError):  # the retry covers the inner pipeline, not the step added after it
        chain.invoke("q")
    assert len(model.requests) == 1 and len(chain.steps) == 2


def test_a_pipelines_bind_reaches_its_first_step_under_a_calls_options() -> None:
    from toolwire.errors import UserError
    from toolwire.testing import ScriptedChatModel

    model = ScriptedChatModel(["a", "b"])
    chain = (model | (lambda reply: reply.content)).bind(stop=["x"], max_tokens=5)
    assert chain.invoke("q") == "a" and model.requests[-1].options == {"stop": ["x"], "max_tokens": 5}
    chain.invoke("q", max_tokens=7)
    assert model.requests[-1].options == {"stop": ["x"], "max_tokens": 7}
    with pytest.raises(UserError, match="temprature"):
        (model | (lambda reply: reply)).bind(temprature=0.1)
    with pytest.raises(UserError, match="RunnableConfig"):
        (model | (lambda reply: reply)).with_config(tags=["x"])


def test_a_retrying_pipeline_streams_again_only_before_its_first_chunk(waits: list[float]) -> None:
    from toolwire.testing import ScriptedChatModel

    first = _Flaky(1)
    model = ScriptedChatModel(["hello"])
    chain = (ScriptedChatModel(["a", "b"]) | first | (lambda text: text) | model).with_retry(stop_after_attempt=2)
    chunks = list(chain.stream("q"))
    assert "".join(c.text for c in chunks) == "hello" and first.calls == 2 and len(waits) == 1


# -- StructuredOutput's bind and with_retry (LangChain's with_structured_output is a RunnableSequence) --------------


class Weather(BaseModel):
    """The weather."""

    city: str
    celsius: float


def _weather_reply(args: dict[str, Any]) -> AIMessage:
    from toolwire.messages import tool_call

    return AIMessage("", tool_calls=[tool_call("Weather", args)])


def test_structured_outputs_with_retry_asks_again_for_a_reply_that_does_not_fit(waits: list[float]) -> None:
    import asyncio

    from toolwire import ToolCallParseError
    from toolwire.testing import ScriptedChatModel

    model = ScriptedChatModel([_weather_reply({"city": "Paris", "celsius": "warm"}),
                               _weather_reply({"city": "Paris", "celsius": 21})] * 2)
    structured = model.with_structured_output(Weather).with_retry(stop_after_attempt=2)
    assert structured.invoke("q") == Weather(city="Paris", celsius=21) and len(waits) == 1
    assert asyncio.run(structured.ainvoke("q")) == Weather(city="Paris", celsius=21) and len(waits) == 2
    assert repr(structured).endswith("retry='2 attempts')")
    bad = ScriptedChatModel([_weather_reply({"city": "Paris", "celsius": "warm"})] * 2)
    with pytest.raises(ToolCallParseError):
        bad.with_structured_output(Weather).with_retry(stop_after_attempt=2).invoke("q")
    assert len(bad.requests) == 2
    raw = ScriptedChatModel([_weather_reply({"city": "Paris", "celsius": "warm"})])
    out = raw.with_structured_output(Weather, include_raw=True).with_retry().invoke("q")
    assert out["parsing_error"] is not None and len(raw.requests) == 1  # nothing raised: nothing retried


def test_structured_outputs_retry_covers_a_stream_before_its_value(waits: list[float]) -> None:
    from toolwire.testing import ScriptedChatModel

    model = ScriptedChatModel([_weather_reply({"city": "Paris"}), _weather_reply({"city": "Oslo", "celsius": 3})])
    assert list(model.with_structured_output(Weather).with_retry().stream("q")) == [Weather(city="Oslo", celsius=3)]


def test_structured_outputs_bind_sends_options_with_every_call() -> None:
    from toolwire.errors import UserError
    from toolwire.testing import ScriptedChatModel

    model = ScriptedChatModel([_weather_reply({"city": "Paris", "celsius": 21})] * 2)
    structured = model.with_structured_output(Weather)
    bound = structured.bind(temperature=0.1, max_tokens=50)
    assert bound.invoke("q", max_tokens=9) == Weather(city="Paris", celsius=21)
    assert model.requests[-1].options == {"temperature": 0.1, "max_tokens": 9}
    assert model.requests[-1].tool_choice is not None  # the output tool is still forced
    structured.invoke("q")
    assert model.requests[-1].options == {}  # the original is unchanged
    with pytest.raises(UserError, match="bind_tools"):
        structured.bind(tool_choice="none")
    with pytest.raises(UserError, match="RunnableConfig"):
        structured.with_config(tags=["x"])


# -- AIMessageChunk's model_copy / model_dump / content_blocks (langchain-core 1.8.3's AIMessageChunk) ---------------

CHUNKS: list[dict[str, Any]] = [
    {"content": "hi"},
    {"content": "", "tool_call_chunks": [{"name": "f", "args": '{"a": 1', "id": "c1", "index": 0}]},
    {"content": "", "tool_call_chunks": [{"name": "f", "args": '{"a": 1}', "id": None, "index": 0},
                                         {"name": None, "args": "xx", "id": "c2", "index": 1}]},
    {"content": [{"type": "text", "text": "a"}], "tool_call_chunks": [{"name": "f", "args": "", "id": "c1",
                                                                          "index": 0}],
     "usage_metadata": {"input_tokens": 1, "output_tokens": 2, "total_tokens": 3}, "id": "m1"},
    {"content": "x", "invalid_tool_calls": [{"name": "f", "args": "{", "id": "c1", "error": "bad"}]},
    {"content": "x", "additional_kwargs": {"reasoning_content": "think"},
     "response_metadata": {"finish_reason": "stop"}},
]


@needs_langchain
@pytest.mark.parametrize("values", CHUNKS, ids=[str(i) for i in range(len(CHUNKS))])
def test_a_chunks_model_dump_and_content_blocks_are_langchains(values: dict[str, Any]) -> None:
    from toolwire import AIMessageChunk

    ours, theirs = AIMessageChunk(**values), lc_messages.AIMessageChunk(**values)
    # a chunk holding invalid calls is dumped without LangChain's tool-call chunk per invalid call, which either
    # class reads back as a call that runs ("{" reads as {}: review 203 #3)
    bare = {"tool_call_chunks": []} if values.get("invalid_tool_calls") else {}
    assert ours.model_dump() == {**theirs.model_dump(), **bare}
    assert ours.model_dump_json() == theirs.model_copy(update=bare).model_dump_json()
    assert ours.model_dump(mode="json", exclude_none=True) == {**theirs.model_dump(mode="json", exclude_none=True),
                                                                **bare}
    selection = {"tool_call_chunks": {"__all__": {"args"}}, "type": True}
    assert ours.model_dump(include=selection) == {**theirs.model_dump(include=selection), **bare}
    assert ours.content_blocks == theirs.content_blocks


def test_a_chunks_model_dump_has_langchains_chunk_keys() -> None:
    from toolwire import AIMessageChunk

    parts = [{"name": "f", "args": '{"a": 1', "id": "c1", "index": 0}]
    dumped = AIMessageChunk("", tool_call_chunks=parts).model_dump()
    assert list(dumped)[-2:] == ["tool_call_chunks", "chunk_position"] and dumped["type"] == "AIMessageChunk"
    assert dumped["tool_calls"] == [{"name": "f", "args": {"a": 1}, "id": "c1", "type": "tool_call"}]
    assert dumped["chunk_position"] is None


def test_a_chunks_model_copy_is_made_by_the_constructor_and_keeps_made_ids() -> None:
    from toolwire import AIMessageChunk

    chunk = AIMessageChunk("a", tool_call_chunks=[{"name": "f", "args": "{}", "id": None, "index": 0}])
    made = chunk.tool_calls[0]["id"]
    copy_ = chunk.model_copy(update={"content": "b", "usage_metadata": {"input_tokens": 1, "output_tokens": 1,
                                                                        "total_tokens": 2}})
    assert isinstance(copy_, AIMessageChunk) and copy_.content == "b" and chunk.content == "a"
    assert copy_.usage is not None and copy_.tool_calls[0]["id"] == made  # the same call, the same id
    assert chunk.model_copy(deep=True) == chunk
    assert chunk.model_copy(update={"type": "AIMessageChunk", "chunk_position": None}) == chunk
    with pytest.raises(TypeError, match="update tool_call_chunks"):
        chunk.model_copy(update={"tool_calls": []})
    with pytest.raises(TypeError, match="no chunk_position"):
        chunk.model_copy(update={"chunk_position": "last"})
    with pytest.raises(TypeError, match="no field"):
        chunk.model_copy(update={"nope": 1})
    with pytest.warns(DeprecationWarning, match="model_copy"):
        assert chunk.copy(update={"content": "c"}).content == "c"
