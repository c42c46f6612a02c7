"""Fixes made in session 55 outside the reviews' fixers: a call the program removed stays removed through
LangChain's messages (review 246 #3, the part left open)."""

from __future__ import annotations

import pytest

lc = pytest.importorskip("langchain_core.messages")

from toolwire.interop.langchain import from_langchain_messages, to_langchain_messages  # noqa: E402
from toolwire.messages import AIMessage, HumanMessage, ToolMessage  # noqa: E402


def _refused() -> AIMessage:
    reply = AIMessage([{"type": "text", "text": "I'll delete it."},
                       {"type": "tool_use", "id": "toolu_1", "name": "delete_file", "input": {"path": "/etc/hosts"}}],
                      tool_calls=[{"name": "delete_file", "args": {"path": "/etc/hosts"}, "id": "toolu_1"}])
    return reply.model_copy(update={"tool_calls": []})  # type: ignore[return-value]


def test_a_removed_call_is_not_a_call_of_the_langchain_message() -> None:
    (converted,) = to_langchain_messages([_refused()])
    assert converted.tool_calls == []
    assert converted.content[1]["type"] == "tool_use"  # the content is kept as it was


def test_a_removed_call_does_not_come_back_from_langchain_and_back() -> None:
    refused = _refused()
    (again,) = from_langchain_messages(to_langchain_messages([refused]))
    assert again.tool_calls == []
    assert again.content == refused.content
    assert "toolwire_content_blocks_read" not in (again.response_metadata.get("additional_kwargs") or {})


def test_one_message_alone_is_converted_as_it_is_too() -> None:
    assert to_langchain_messages(_refused())[0].tool_calls == []


def test_a_kept_call_and_its_result_still_go_both_ways() -> None:
    reply = AIMessage([{"type": "tool_use", "id": "t1", "name": "a", "input": {"x": 1}}],
                      tool_calls=[{"name": "a", "args": {"x": 1}, "id": "t1"}])
    back = from_langchain_messages(to_langchain_messages([HumanMessage("q"), reply, ToolMessage("r", "t1")]))
    assert [c["id"] for c in back[1].tool_calls] == ["t1"]
    assert isinstance(back[2], ToolMessage) and back[2].tool_call_id == "t1"


def test_a_foreign_langchain_tool_use_block_is_still_read_as_its_call() -> None:
    (read,) = from_langchain_messages([lc.AIMessage(content=[
        {"type": "tool_use", "id": "toolu_9", "name": "get_time", "input": {}}])])
    assert [c["id"] for c in read.tool_calls] == ["toolu_9"]


def test_anthropic_sdk_dicts_given_to_to_langchain_messages_are_still_read_as_calls() -> None:
    converted = to_langchain_messages([
        {"role": "user", "content": "time?"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_9", "name": "get_time", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_9", "content": "12:00"}]}])
    assert [c["id"] for c in converted[1].tool_calls] == ["toolu_9"]
    assert isinstance(converted[2], lc.ToolMessage)


# --------------------------------------------------------------------------- images by uploaded file id

from toolwire.errors import UserError  # noqa: E402
from toolwire.models.anthropic import with_files_beta  # noqa: E402
from toolwire.models.lowering import anthropic, gemini, openai  # noqa: E402

_BY_FILE = [{"type": "image", "file_id": "file_abc"},  # LangChain's standard image block
            {"type": "image", "source": {"type": "file", "file_id": "file_abc"}},  # Anthropic's
            {"type": "input_image", "file_id": "file_abc"}]  # OpenAI Responses'


def _result(block: dict) -> list:
    return [HumanMessage("q"), AIMessage("", tool_calls=[{"name": "f", "args": {}, "id": "t1"}]),
            ToolMessage([block], "t1")]


@pytest.mark.parametrize("block", _BY_FILE)
def test_anthropic_sends_an_image_by_file_id_as_a_file_source_with_the_beta(block: dict) -> None:
    sent = {"type": "image", "source": {"type": "file", "file_id": "file_abc"}}
    _, user = anthropic.lower_messages([HumanMessage([block])])
    assert user[-1]["content"] == [sent]
    _, messages = anthropic.lower_messages(_result(block))
    assert messages[-1]["content"][0]["content"] == [sent]
    assert "files-api" in with_files_beta({"messages": messages})["extra_headers"]["anthropic-beta"]


@pytest.mark.parametrize("block", _BY_FILE)
def test_the_responses_api_gets_an_input_image_by_file_id(block: dict) -> None:
    assert openai.lower_responses_messages([HumanMessage([block])])[-1]["content"] == [
        {"type": "input_image", "file_id": "file_abc"}]
    assert openai.lower_responses_messages(_result(block))[-1]["output"] == [
        {"type": "input_image", "file_id": "file_abc"}]


def test_the_responses_api_keeps_the_detail_of_an_input_image_by_file_id() -> None:
    block = {"type": "input_image", "file_id": "file_abc", "detail": "low"}
    assert openai.lower_responses_messages([HumanMessage([block])])[-1]["content"][0]["detail"] == "low"


@pytest.mark.parametrize("block", _BY_FILE)
def test_chat_completions_and_gemini_refuse_an_image_by_file_id_saying_what_to_give(block: dict) -> None:
    with pytest.raises(UserError, match="Responses API"):
        openai.lower_messages([HumanMessage([block])])
    with pytest.raises(UserError, match="file ids are not supported"):
        gemini.lower_messages([HumanMessage([block])])


def test_chat_completions_writes_a_note_for_an_image_by_file_id_in_a_tool_result() -> None:
    assert "image" in openai.lower_messages(_result(_BY_FILE[0]))[-1]["content"]


# --------------------------------------------------------------------------- one chunk's blocks stay apart

from toolwire.chunks import AIMessageChunk, merge_chunks  # noqa: E402
from toolwire.testing import ScriptedChatModel  # noqa: E402

_SAME_INDEX = [{"type": "reasoning", "reasoning": "The user wants a greeting.", "index": 0},
               {"type": "text", "text": "Hello!", "index": 0}]


def test_a_scripted_reply_keeps_blocks_that_share_an_index() -> None:
    model = ScriptedChatModel([AIMessage(list(_SAME_INDEX)), AIMessage(list(_SAME_INDEX))])
    assert model.invoke("hi").content == _SAME_INDEX
    streamed = merge_chunks(list(model.stream("hi")), as_chunk=False)
    assert streamed.content == _SAME_INDEX and streamed.text == "Hello!"


def test_a_later_chunks_piece_still_joins_the_first_block_of_its_index() -> None:
    first = AIMessageChunk([{"type": "text", "text": "Hel", "index": 0}, {"type": "image", "url": "u", "index": 0}])
    merged = first + AIMessageChunk([{"type": "text", "text": "lo", "index": 0}])
    assert merged.content == [{"type": "text", "text": "Hello", "index": 0}, {"type": "image", "url": "u", "index": 0}]


def test_pieces_streamed_one_per_chunk_are_still_joined() -> None:
    pieces = [AIMessageChunk([{"type": "text", "text": t, "index": 0}]) for t in ("He", "ll", "o")]
    assert merge_chunks(pieces).content == [{"type": "text", "text": "Hello", "index": 0}]


# --------------------------------------------------------------------------- JSON strings in Python-looking calls

from toolwire.parsing import normalize_arguments, parse_tool_calls  # noqa: E402


@pytest.mark.parametrize("text", [
    '<tool_call>{"name": "fetch", "arguments": {"url": "https:\\/\\/x.org\\/a", "timeout": None}}</tool_call>',
    '[fetch(url="https:\\/\\/x.org\\/a", timeout=None)]',
])
def test_a_json_escaped_slash_reads_as_a_slash_when_the_call_is_read_as_python(text: str) -> None:
    (call,) = parse_tool_calls(text, ["fetch"]).tool_calls
    assert call["args"] == {"url": "https://x.org/a", "timeout": None}


def test_a_json_surrogate_pair_reads_as_one_character_in_a_python_dict() -> None:
    args = normalize_arguments('{"text": "hi \\ud83d\\ude00", "loud": True}')
    assert args == {"text": "hi \U0001F600", "loud": True}


@pytest.mark.parametrize(("written", "value"), [
    ("'a\\/b'", "a\\/b"),  # single quotes: Python's reading
    ('r"a\\/b"', "a\\/b"),  # a raw string
    ('"\\x41\\/"', "A\\/"),  # a Python escape: not a JSON string, Python's reading
])
def test_strings_that_are_not_json_keep_pythons_reading(written: str, value: str) -> None:
    assert normalize_arguments("{'s': " + written + ", 'n': None}") == {"s": value, "n": None}


@pytest.mark.parametrize("number", ["0x" + "f" * 4000, "9" * 5000])
def test_a_python_dict_of_arguments_with_a_number_too_long_says_so(number: str) -> None:
    from toolwire.errors import ToolCallParseError

    with pytest.raises(ToolCallParseError, match="too many digits"):
        normalize_arguments("{'days': " + number + "}")


def test_langchains_older_image_block_by_id_is_an_image_by_file_id() -> None:
    block = {"type": "image", "source_type": "id", "id": "file_abc"}
    _, user = anthropic.lower_messages([HumanMessage([block])])
    assert user[-1]["content"] == [{"type": "image", "source": {"type": "file", "file_id": "file_abc"}}]
    assert openai.lower_responses_messages([HumanMessage([block])])[-1]["content"] == [
        {"type": "input_image", "file_id": "file_abc"}]


def test_a_later_chunks_pieces_of_one_index_are_merged_within_the_chunk_too() -> None:
    first = AIMessageChunk([{"type": "text", "text": "Let me look", "index": 0}])
    second = AIMessageChunk([{"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}, "index": 1},
                             {"type": "input_json_delta", "partial_json": '{"x": 1}', "index": 1}])
    merged = merge_chunks([first, second]).content
    assert len(merged) == 2 and merged[1]["partial_json"] == '{"x": 1}' and merged[1]["type"] == "tool_use"


@pytest.mark.parametrize(("text", "value"), [
    ('[fetch(url="a\\/b\\\nc")]', "a\\/bc"),  # a line continuation: Python's reading, no literal \n made
    ('[fetch(url="a\\/b\tc")]', "a/b\tc"),  # a raw tab, as toolwire's JSON reading takes it
])
def test_json_strings_on_more_than_one_line_or_with_a_raw_tab(text: str, value: str) -> None:
    assert parse_tool_calls(text, ["fetch"]).tool_calls[0]["args"] == {"url": value}


# --------------------------------------------------------------------------- threads a tool starts (review 251 #1)

def _started_thread_daemon() -> str:
    import threading

    thread = threading.Thread(target=lambda: None)
    return str(thread.daemon)


@pytest.mark.parametrize(("timeout", "daemon"), [(None, "False"), (5.0, "True")])
def test_a_thread_a_sync_tool_starts_is_normal_without_a_timeout_and_daemon_with_one(timeout: float | None,
                                                                                     daemon: str) -> None:
    # (a timed call given up often waits on the thread it started: the exit must not wait for it, review 258 #1)
    from toolwire import ToolExecutor, tool

    @tool(timeout=timeout)
    def starts() -> str:
        """Starts a thread."""
        return _started_thread_daemon()

    call = AIMessage("", tool_calls=[{"name": "starts", "args": {}, "id": "c1"}])
    assert ToolExecutor([starts]).execute(call)[0].content == daemon
    assert starts.invoke({}) == daemon


def test_the_exit_does_not_wait_for_the_thread_a_timed_out_tool_waits_on() -> None:
    from _exit_scripts import run_script

    done = run_script("""
        import threading
        from toolwire import AIMessage, ToolExecutor, tool

        never = threading.Event()

        @tool(timeout=0.3)
        def fetch() -> str:
            \"\"\"Waits on a helper thread that never ends.\"\"\"
            helper = threading.Thread(target=never.wait)
            helper.start()
            helper.join()
            return "data"

        call = {"name": "fetch", "args": {}, "id": "c1", "type": "tool_call"}
        print(ToolExecutor([fetch]).execute(AIMessage("", tool_calls=[call]))[0].status, flush=True)
    """)
    assert done.returncode == 0 and done.stdout.strip() == "error", done.stderr


def test_a_thread_an_async_tools_to_thread_work_starts_stays_a_daemon_thread() -> None:
    import asyncio

    from toolwire import ToolExecutor, tool

    @tool
    async def starts() -> str:
        """Starts a thread from a thread of its own."""
        return await asyncio.to_thread(_started_thread_daemon)

    async def inside_a_loop() -> str:  # (a sync execute inside a running loop runs on toolwire's loop thread)
        return ToolExecutor([starts]).execute(AIMessage("", tool_calls=[{"name": "starts", "args": {}, "id": "c1"}]))[
            0].content  # type: ignore[return-value]

    assert asyncio.run(inside_a_loop()) == "True"  # (review 261 #3: see _daemon_pool._LoopPool)


# --------------------------------------------------------------------------- secret header names (review 260 #3)

@pytest.mark.parametrize(("name", "secret"), [
    ("x-secretkey", True), ("accesskey", True), ("appkey", True), ("x-sessionid", True), ("X-Api-Keys", True),
    ("x-api-key", True), ("x-portkey-api-key", True), ("Authorization", True), ("Cookie", True),
    ("X-Gateway-Token", True), ("x-session-id", True), ("clientSecret", True),
    ("x-portkey-provider", False), ("x-portkey-trace-id", False), ("X-Author-Name", False), ("anthropic-beta", False),
    ("X-Title", False), ("User-Agent", False),
])
def test_a_header_is_a_secret_by_a_part_or_by_a_word_in_its_last_part(name: str, secret: bool) -> None:
    from toolwire._secrets import header_secrets

    assert header_secrets({name: "value-of-sixteen"}) == (["value-of-sixteen"] if secret else [])


def test_the_exit_does_not_wait_for_a_helper_thread_of_a_timed_out_async_tools_to_thread_work() -> None:
    from _exit_scripts import run_script, stuck_fetch_script

    done = run_script(stuck_fetch_script(
        "asyncio.to_thread(lambda: (helper := threading.Thread(target=never.wait), helper.start(), helper.join()))",
        "Waits, through asyncio.to_thread, on a helper thread that never ends."))  # (review 261 #3)
    assert done.returncode == 0 and done.stdout.strip() == "error", done.stderr
