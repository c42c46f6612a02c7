"""Review 203 #3, #4, #5: invalid calls through a chunk's dump and LangChain's messages, and "did you mean" hints."""

from __future__ import annotations

import pytest

from toolwire.messages import AIMessage

lc = pytest.importorskip("langchain_core.messages")


# -- #5: an invalid call with keys LangChain's InvalidToolCall has no field for -------------------------------------

@pytest.mark.parametrize("given", [
    {"tool_calls": [{"type": "invalid_tool_call", "name": "f", "args": {"x": 1}, "id": "c1", "extras": {"k": 1}}]},
    {"tool_calls": [{"type": "invalid_tool_call", "id": "c1", "function": {"name": "f", "arguments": "{}"}}]},
    {"invalid_tool_calls": [{"type": "invalid_tool_call", "name": "f", "args": "{", "id": "c1", "error": "cut",
                             "foo": 1, "extras": {"k": 1}}]},
])
def test_invalid_call_with_extra_keys_converts_to_langchain(given: dict) -> None:
    from toolwire.interop.langchain import from_langchain_messages, to_langchain_messages

    message = AIMessage("", **given)
    out = to_langchain_messages([message])[0]
    assert out.tool_calls == []
    [bad] = out.invalid_tool_calls
    assert set(bad) == {"type", "id", "name", "args", "error"} and bad["id"] == "c1" and bad["error"]
    back = from_langchain_messages([out])[0]
    assert back.tool_calls == [] and [c["id"] for c in back.invalid_tool_calls] == ["c1"]


def test_invalid_call_keeps_its_place_without_extra_keys() -> None:
    from toolwire.interop.langchain import from_langchain_messages, to_langchain_messages

    message = AIMessage("", tool_calls=[
        {"type": "invalid_tool_call", "name": "f", "args": "{", "id": "c1", "error": "cut", "extras": {"k": 1}},
        {"name": "g", "args": {}, "id": "c2", "extras": {"k": 2}}])
    back = from_langchain_messages(to_langchain_messages([message]))[0]
    assert [c["id"] for c in back.tool_calls] == ["c2"]
    assert [(c["id"], c.get("index")) for c in back.invalid_tool_calls] == [("c1", 0)]


# -- #3: a chunk's invalid calls stay invalid through its model_dump --------------------------------------------------

def _dumps(chunk):
    import json

    return [chunk.model_dump(), json.loads(chunk.model_dump_json())]


_BAD = {"type": "invalid_tool_call", "name": "delete_file", "id": "c1", "error": "cut at the token limit: not run"}


@pytest.mark.parametrize("make", [
    lambda: {"tool_calls": [{**_BAD, "args": {"path": "/tmp/x"}}]},  # a dict: its JSON text is an object
    lambda: {"invalid_tool_calls": [{**_BAD, "args": '{"path": "/tmp/x"}'}]},
    lambda: {"invalid_tool_calls": [{**_BAD, "args": '{"path": "/tm'}]},  # LangChain's partial JSON reads an object
])
def test_invalid_call_is_invalid_after_dump(make) -> None:
    from toolwire.chunks import AIMessageChunk

    chunk = AIMessageChunk("", **make())
    for dump in _dumps(chunk):
        assert dump["tool_calls"] == [] and dump["tool_call_chunks"] == []
        again = AIMessageChunk(**dump)
        assert again.tool_calls == [] and again.to_message().tool_calls == []
        assert [(c["id"], c["error"]) for c in again.to_message().invalid_tool_calls] == [("c1", _BAD["error"])]
        theirs = lc.AIMessageChunk(**dump)
        assert theirs.tool_calls == [] and [c["id"] for c in theirs.invalid_tool_calls] == ["c1"]


def test_cut_call_of_a_stream_stays_invalid_beside_a_valid_one() -> None:
    from toolwire.chunks import AIMessageChunk

    chunk = AIMessageChunk("hi", response_metadata={"finish_reason": "max_tokens"}, tool_call_chunks=[
        {"name": "g", "args": '{"a": 1}', "id": "v1", "index": 0, "type": "tool_call_chunk"},
        {"name": "delete_file", "args": '{"path": "/tm', "id": "c1", "index": 1, "type": "tool_call_chunk"}],
        invalid_tool_calls=[{**_BAD, "args": '{"path": "/tm'}])
    for dump in _dumps(chunk):
        for again in (AIMessageChunk(**dump), lc.AIMessageChunk(**dump)):
            assert [c["id"] for c in again.tool_calls] == ["v1"] and again.tool_calls[0]["args"] == {"a": 1}
            assert [c["id"] for c in again.invalid_tool_calls] == ["c1"]
        message = AIMessageChunk(**dump).to_message()
        assert message == chunk.to_message()


def test_dump_keeps_ids_made_and_the_place_of_an_invalid_call() -> None:
    from toolwire._call_records import in_reply_order
    from toolwire.chunks import AIMessageChunk

    chunk = AIMessageChunk("", tool_calls=[{**_BAD, "args": {"p": 1}}, {"name": "g", "args": {}, "id": "c2"}])
    made = AIMessageChunk("", invalid_tool_calls=[{**_BAD, "args": "{"}], tool_call_chunks=[
        {"name": "g", "args": "{}", "id": None, "index": 0, "type": "tool_call_chunk"}])
    for dump in _dumps(chunk):
        message = AIMessageChunk(**dump).to_message()
        order = in_reply_order(message.tool_calls, message.invalid_tool_calls, message.invalid_tool_calls)
        assert [c["id"] for c in order] == ["c1", "c2"]
    for dump in _dumps(made):
        assert AIMessageChunk(**dump).to_message().tool_calls == made.to_message().tool_calls


def test_unreadable_chunk_is_one_invalid_call_after_dump() -> None:
    from toolwire.chunks import AIMessageChunk

    chunk = AIMessageChunk("", tool_call_chunks=[
        {"name": "f", "args": "[1]", "id": "a", "index": 0, "type": "tool_call_chunk"},
        {"name": "g", "args": "{}", "id": "b", "index": 1, "type": "tool_call_chunk"}])
    for dump in _dumps(chunk):
        assert dump["tool_call_chunks"]  # (no invalid call of its own: LangChain's dump, chunks and all)
        message = AIMessageChunk(**dump).to_message()
        assert [c["id"] for c in message.tool_calls] == ["b"]
        assert [c["id"] for c in message.invalid_tool_calls] == ["a"]


# -- #4: "did you mean" for the names the docs map, top_k, hide_errors ------------------------------------------------

def _refusal(make) -> str:
    from toolwire.errors import UserError

    with pytest.raises(UserError) as caught:
        make()
    return str(caught.value)


def _double(x: int) -> int:
    """Double."""
    return 2 * x


@pytest.mark.parametrize(("option", "meant"), [
    ("prompt", "system_prompt"), ("state_modifier", "system_prompt"), ("system", "system_prompt"),
    ("system_message", "system_prompt"), ("max_iterations", "max_steps"), ("response_model", "response_format"),
    ("response_schema", "response_format"), ("hide_errors", "hide_error_details"),
])
def test_agent_porting_names_get_their_hint(option: str, meant: str) -> None:
    from toolwire import Agent
    from toolwire.testing import ScriptedChatModel

    text = _refusal(lambda: Agent(ScriptedChatModel([]), [], **{option: 5}))
    assert text == f"Unknown Agent option {option!r}: did you mean {meant!r}?"


def test_agent_run_method_names_max_steps_for_max_iterations() -> None:
    from toolwire import Agent
    from toolwire.testing import ScriptedChatModel

    text = _refusal(lambda: Agent(ScriptedChatModel([]), []).invoke("q", max_iterations=5))
    assert "'max_steps' is an option of Agent(...)" in text


@pytest.mark.parametrize(("option", "meant"), [
    ("schema", "args_schema"), ("input_schema", "args_schema"), ("timeout_seconds", "timeout"),
    ("hide_errors", "hide_error_details"),
])
def test_tool_porting_names_get_their_hint(option: str, meant: str) -> None:
    from toolwire import tool

    text = _refusal(lambda: tool(**{option: True})(_double))
    assert text.endswith(f"did you mean {meant!r}?")


def test_anthropic_max_tokens_to_sample_is_max_tokens() -> None:
    pytest.importorskip("anthropic")
    from toolwire.models import ChatAnthropic

    text = _refusal(lambda: ChatAnthropic("claude-x", api_key="k", max_tokens_to_sample=512))
    assert text == "Unknown ChatAnthropic option 'max_tokens_to_sample': did you mean 'max_tokens'?"


def test_anthropic_takes_top_k() -> None:
    pytest.importorskip("anthropic")
    from toolwire.messages import HumanMessage
    from toolwire.models import ChatAnthropic, init_chat_model
    from toolwire.models.base import ChatRequest

    model = ChatAnthropic("claude-x", api_key="k", top_k=5)
    assert model._lower(ChatRequest(messages=[HumanMessage("hi")]))["top_k"] == 5
    assert model._lower(ChatRequest(messages=[HumanMessage("hi")], options={"top_k": 9}))["top_k"] == 9
    assert init_chat_model("anthropic:claude-x", api_key="k", top_k=3).options == {"top_k": 3}
    assert ChatAnthropic("claude-x", api_key="k", top_k=5, model_kwargs={"top_k": 5, "x": 1}).options == {
        "top_k": 5, "x": 1}
    assert "top_k must be a whole number" in _refusal(lambda: ChatAnthropic("claude-x", api_key="k", top_k="5"))
    assert "give top_k once" in _refusal(
        lambda: ChatAnthropic("claude-x", api_key="k", top_k=5, model_kwargs={"top_k": 6}))


def test_top_k_on_a_model_without_it_says_how_to_send_it() -> None:
    pytest.importorskip("openai")
    from toolwire.models import ChatOpenAI

    text = _refusal(lambda: ChatOpenAI("gpt-x", api_key="k", top_k=5))
    assert "model_kwargs={'top_k': 40}" in text and "top_p" not in text
