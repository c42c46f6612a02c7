"""Review 93 (a LangChain app ported to toolwire): message text as LangChain reads it."""

from __future__ import annotations

from toolwire import AIMessage, AIMessageChunk, HumanMessage, ToolMessage, merge_chunks


def test_text_blocks_are_joined_with_nothing_between_them_as_langchain_joins_them() -> None:
    blocks = [{"type": "text", "text": "The answer is "}, {"type": "text", "text": "42."}]
    assert AIMessage(blocks).text == "The answer is 42."  # (was 'The answer is \n42.')
    assert HumanMessage(["a", "b"]).text == "ab"
    assert AIMessageChunk(blocks).text == "The answer is 42."


def test_text_can_be_called_as_langchains_older_method() -> None:
    message = HumanMessage("hi")
    assert message.text() == "hi" and type(message.text()) is str
    assert message.text == "hi" and isinstance(message.text, str)
    assert ToolMessage("ok", tool_call_id="c1").text() == "ok"
    assert AIMessageChunk("par").text() == "par"


def test_streamed_blocks_that_share_an_index_merge_into_one_block() -> None:
    parts = [AIMessageChunk([{"type": "text", "text": t, "index": 0}]) for t in ("Hel", "lo wor", "ld")]
    added = parts[0] + parts[1] + parts[2]
    assert added.content == [{"type": "text", "text": "Hello world", "index": 0}]
    assert added.text == "Hello world"
    assert merge_chunks(parts).content == added.content


def test_a_tool_use_block_and_its_json_deltas_are_one_block_as_langchain_merges_them() -> None:
    chunks = [AIMessageChunk([{"type": "text", "text": "Let me look.", "index": 0}]),
              AIMessageChunk([{"type": "tool_use", "id": "t1", "name": "f", "input": {}, "index": 1}]),
              AIMessageChunk([{"type": "input_json_delta", "partial_json": '{"a"', "index": 1}]),
              AIMessageChunk([{"type": "input_json_delta", "partial_json": ": 1}", "index": 1}])]
    assert merge_chunks(chunks).content == [
        {"type": "text", "text": "Let me look.", "index": 0},
        {"type": "tool_use", "id": "t1", "name": "f", "input": {}, "index": 1, "partial_json": '{"a": 1}'}]


def test_blocks_without_an_index_and_a_none_filled_later_keep_their_order() -> None:
    chunks = [AIMessageChunk([{"type": "text", "text": "a"}, {"type": "thinking", "thinking": "x", "index": 2,
                                                             "signature": None}]),
              AIMessageChunk([{"type": "text", "text": "b"}]),
              AIMessageChunk([{"type": "thinking", "thinking": "y", "index": 2, "signature": "s"}])]
    assert merge_chunks(chunks).content == [
        {"type": "text", "text": "a"}, {"type": "thinking", "thinking": "xy", "index": 2, "signature": "s"},
        {"type": "text", "text": "b"}]


def test_pretty_print_lays_messages_out_as_langchain_does(capsys) -> None:  # type: ignore[no-untyped-def]
    call = {"name": "get_weather", "args": {"city": "Paris", "days": [1, 2]}, "id": "c1", "type": "tool_call"}
    AIMessage("", tool_calls=[call]).pretty_print()
    ToolMessage("Sunny", tool_call_id="c1", name="get_weather").pretty_print()
    assert capsys.readouterr().out == (
        "================================== Ai Message ==================================\n"
        "Tool Calls:\n  get_weather (c1)\n Call ID: c1\n  Args:\n    city: Paris\n    days: [1, 2]\n"
        "================================= Tool Message =================================\n"
        "Name: get_weather\n\nSunny\n")
    bad = {"name": "f", "args": "{bad", "id": "c2", "error": "Not JSON.", "type": "invalid_tool_call"}
    assert AIMessage("Let me see.", invalid_tool_calls=[bad]).pretty_repr().splitlines()[1:] == [
        "", "Let me see.", "Invalid Tool Calls:", "  f (c2)", " Call ID: c2", "  Error: Not JSON.", "  Args:",
        "    {bad"]
    assert HumanMessage("hi").pretty_repr() == (
        "================================ Human Message =================================\n\nhi")


def test_a_langchain_prompt_value_is_read_as_its_messages() -> None:
    import pytest

    prompts = pytest.importorskip("langchain_core.prompts")
    from toolwire import SystemMessage
    from toolwire.testing import ScriptedChatModel

    value = prompts.ChatPromptTemplate.from_messages([("system", "Be brief."), ("human", "{q}")]).invoke({"q": "hi"})
    model = ScriptedChatModel(["ok"], cycle=True)
    assert model.invoke(value).text == "ok"
    assert model.requests[-1].messages == [SystemMessage("Be brief."), HumanMessage("hi")]
    assert model.invoke(prompts.PromptTemplate.from_template("say {q}").invoke({"q": "x"})).text == "ok"
    assert model.requests[-1].messages == [HumanMessage("say x")]


def test_usage_metadata_has_cached_tokens_where_langchain_puts_them() -> None:
    counts = {"input_tokens": 10, "output_tokens": 2, "total_tokens": 12}
    cached = AIMessage("a", usage={**counts, "cached_tokens": 8})  # type: ignore[typeddict-item]
    assert cached.usage_metadata["input_token_details"] == {"cache_read": 8}  # type: ignore[index, typeddict-item]
    assert AIMessageChunk("a", usage={**counts, "cached_tokens": 8}).usage_metadata == cached.usage_metadata
    plain = AIMessage("a", usage=counts)  # type: ignore[arg-type]
    assert plain.usage_metadata is plain.usage


def test_every_provider_names_the_model_under_both_keys() -> None:
    """Review 93 #9: hosted providers said "model", ChatLlamaCpp "model_name" (LangChain's key)."""
    from toolwire.models.lowering import _anthropic_replies, gemini
    from toolwire.models.lowering._openai_replies import metadata

    for data in (metadata("gpt-4o", "stop"), _anthropic_replies._metadata("claude", "end_turn"),
                 gemini._metadata("gemini", {"finish_reason": "STOP"}, 0)):
        assert data["model"] == data["model_name"] and data["model"] in ("gpt-4o", "claude", "gemini")
