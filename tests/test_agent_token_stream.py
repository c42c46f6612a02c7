"""``Agent.stream(..., stream_mode="messages")``: LangGraph's token stream over an Agent run (review 105 noted an Agent
run could not stream the answer as it is written, which LangGraph and the OpenAI Agents SDK both do)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from toolwire import Agent, AIMessage, ToolMessage, UserError, tool
from toolwire.errors import ProviderError
from toolwire.messages import AIMessageChunk, merge_chunks, tool_call
from toolwire.models.base import BaseChatModel, ChatRequest
from toolwire.testing import ScriptedChatModel


@tool
def get_weather(city: str) -> str:
    """Weather of a city."""
    return f"sunny in {city}"


@tool
def broken(city: str) -> str:
    """Always fails."""
    raise RuntimeError("station offline")


def _script() -> list:
    return [AIMessage("", tool_calls=[tool_call("get_weather", {"city": "Paris"}, "c1"),
                                      tool_call("get_weather", {"city": "Rome"}, "c2")]),
            "Sunny in Paris and in Rome."]


def _pairs_by_step(pairs: list) -> dict[int, list]:
    steps: dict[int, list] = {}
    for message, metadata in pairs:
        steps.setdefault(metadata["langgraph_step"], []).append((message, metadata["langgraph_node"]))
    return steps


def _check(pairs: list, messages: list) -> None:
    steps = _pairs_by_step(pairs)
    assert sorted(steps) == [1, 2, 3]
    assert all(node == "agent" and isinstance(m, AIMessageChunk) for m, node in steps[1] + steps[3])
    assert [(m.tool_call_id, node) for m, node in steps[2]] == [("c1", "tools"), ("c2", "tools")]
    replies = [m for m in messages if isinstance(m, AIMessage)]
    for step, reply in zip((1, 3), replies, strict=True):  # the chunks of each call make the reply in the conversation
        merged = merge_chunks([m for m, _ in steps[step]], as_chunk=False)
        assert (merged.text, merged.tool_calls) == (reply.text, reply.tool_calls)
    assert len(steps[3]) > 2  # the answer came in pieces, as written
    assert "".join(m.text for m, _ in steps[3]) == "Sunny in Paris and in Rome."


def test_messages_mode_yields_the_chunks_of_each_reply_and_each_tool_result() -> None:
    stream = Agent(ScriptedChatModel(_script()), [get_weather]).stream("weather?", stream_mode="messages")
    pairs = list(stream)
    _check(pairs, stream.messages)
    whole = Agent(ScriptedChatModel(_script()), [get_weather]).invoke("weather?")
    assert stream.messages == whole.messages  # the streamed run is the same run


def test_messages_mode_async() -> None:
    async def main() -> tuple[list, list]:
        stream = Agent(ScriptedChatModel(_script()), [get_weather]).astream("weather?", stream_mode="messages")
        return [pair async for pair in stream], stream.messages

    pairs, messages = asyncio.run(main())
    _check(pairs, messages)


def test_only_the_messages_mode_streams_the_model() -> None:
    model = ScriptedChatModel(_script())
    events = [e.type for e in Agent(model, [get_weather]).stream("weather?")]
    assert "model_chunk" not in events and events.count("model_reply") == 2


class _Cut(BaseChatModel):
    """Writes part of its answer, then the connection drops."""

    provider = "cut"

    def __init__(self) -> None:
        self.closed = False

    def _stream(self, request: ChatRequest) -> Iterator[AIMessageChunk]:
        try:
            yield AIMessageChunk("Half an ans")
            raise ProviderError("The connection dropped: try again.", provider="cut")
        finally:
            self.closed = True


def test_a_model_failing_mid_stream_raises_with_the_conversation_kept() -> None:
    agent = Agent(_Cut(), [get_weather])
    stream = agent.stream("weather?", stream_mode="messages")
    first = next(stream)
    assert first[0].text == "Half an ans"
    with pytest.raises(ProviderError, match="connection dropped") as caught:
        next(stream)
    assert [m.type for m in caught.value.messages] == ["human"]  # no half reply in the conversation
    with pytest.raises(StopIteration):
        next(stream)


def test_leaving_the_loop_closes_the_models_stream() -> None:
    class Long(_Cut):
        def _stream(self, request: ChatRequest) -> Iterator[AIMessageChunk]:
            try:
                for piece in ("one ", "two ", "three"):
                    yield AIMessageChunk(piece)
            finally:
                self.closed = True

    model = Long()
    stream = Agent(model, []).stream("count", stream_mode="messages")
    for _token, _metadata in stream:
        break
    stream.close()
    assert model.closed


def test_a_tool_that_raises_under_handle_errors_false_still_gives_the_finished_calls_results() -> None:
    reply = AIMessage("", tool_calls=[tool_call("get_weather", {"city": "Paris"}, "c1"),
                                      tool_call("broken", {"city": "Rome"}, "c2")])
    stream = Agent(ScriptedChatModel([reply, "x"]), [get_weather, broken], handle_errors=False,
                   max_concurrency=1).stream("weather?", stream_mode="messages")
    seen = []
    with pytest.raises(Exception, match="station offline"):
        for message, metadata in stream:
            seen.append((type(message).__name__, metadata["langgraph_node"]))
    assert ("ToolMessage", "tools") in seen  # Paris answered before Rome's tool raised


def test_calls_the_input_left_pending_come_as_tools_step_zero() -> None:
    pending = [("user", "weather?"), AIMessage("", tool_calls=[tool_call("get_weather", {"city": "Oslo"}, "p1")])]
    pairs = list(Agent(ScriptedChatModel(["Sunny in Oslo."]), [get_weather]).stream(pending, stream_mode="messages"))
    assert isinstance(pairs[0][0], ToolMessage) and pairs[0][1] == {"langgraph_node": "tools", "langgraph_step": 0}
    assert {m["langgraph_step"] for _, m in pairs[1:]} == {1}


def test_the_structured_call_is_not_streamed_but_made() -> None:
    from pydantic import BaseModel

    class Answer(BaseModel):
        city: str

    structured = AIMessage("", tool_calls=[tool_call("Answer", {"city": "Paris"}, "s1")])
    model = ScriptedChatModel(["Paris is sunny.", structured])
    stream = Agent(model, [get_weather], response_format=Answer).stream("weather?", stream_mode="messages")
    pairs = list(stream)
    assert {m["langgraph_step"] for _, m in pairs} == {1} and len(model.requests) == 2


def test_stream_tokens_adds_the_chunks_to_the_event_stream() -> None:
    events = list(Agent(ScriptedChatModel(_script()), [get_weather]).stream("weather?", stream_tokens=True))
    kinds = [e.type for e in events]
    assert kinds.count("model_reply") == 2 and kinds.index("model_chunk") < kinds.index("model_reply")
    last = [e.data for e in events if e.type == "model_chunk" and e.step == 2]
    assert merge_chunks(last, as_chunk=False).text == events[-1].data.output
    with pytest.raises(UserError, match="stream_tokens takes True or False"):
        Agent(ScriptedChatModel(_script()), [get_weather]).stream("q", stream_tokens="yes")
    with pytest.raises(UserError, match="LangGraph's states hold whole replies"):
        Agent(ScriptedChatModel(_script()), [get_weather]).stream("q", stream_tokens=True, stream_mode="values")


def test_the_command_line_prints_the_answer_as_it_is_written_and_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from toolwire import cli

    seen: list[str] = []

    class Watched(ScriptedChatModel):
        def _stream(self, request: ChatRequest) -> Iterator[AIMessageChunk]:
            for chunk in super()._stream(request):
                seen.append(chunk.text)
                yield chunk

    reply = AIMessage("Let me look.", tool_calls=[tool_call("calculate", {"expression": "6 * 7"}, "c1")])
    model = Watched([reply, "The answer is 42."], stream_pieces=4)
    monkeypatch.setattr(cli, "_model", lambda name, dialect, n_ctx=None, n_threads=None: model)
    result = CliRunner().invoke(cli.app, ["ask", "quanto é 6 * 7?"])
    assert result.exit_code == 0, result.output
    assert len([t for t in seen if t]) > 2  # the replies came in pieces
    assert result.output.count("The answer is 42.") == 1 and "Let me look." in result.output
    assert result.output.index("Let me look.") < result.output.index("calculate") < result.output.index("42.")


def test_the_command_line_ends_a_half_written_answer_before_the_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from toolwire import cli

    monkeypatch.setattr(cli, "_model", lambda name, dialect, n_ctx=None, n_threads=None: _Cut())
    result = CliRunner().invoke(cli.app, ["chat"], input="weather?\nexit\n")
    assert "Half an ans\n" in result.output and "connection dropped" in result.output
    assert "Half an ansyou>" not in result.output and "Half an anserror" not in result.output


def test_a_hosted_or_server_model_is_not_streamed_by_the_command_line(monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from toolwire import cli
    from toolwire.models._sdk import SDKChatModel

    asked: list[bool] = []

    class Server(ScriptedChatModel, SDKChatModel):  # (a stand-in: only its class is looked at)
        def _stream(self, request: ChatRequest) -> Iterator[AIMessageChunk]:
            asked.append(True)
            yield from super()._stream(request)

    model = Server(["Hello."])
    monkeypatch.setattr(cli, "_model", lambda name, dialect, n_ctx=None, n_threads=None: model)
    result = CliRunner().invoke(cli.app, ["ask", "hi"])
    assert result.exit_code == 0 and "Hello." in result.output and asked == []


def test_a_chunk_says_its_type_as_langchains_does() -> None:
    pairs = list(Agent(ScriptedChatModel(_script()), [get_weather]).stream("weather?", stream_mode="messages"))
    assert {m.type for m, _ in pairs} == {"AIMessageChunk", "tool"}
    assert merge_chunks([m for m, meta in pairs if meta["langgraph_step"] == 3], as_chunk=False).type == "ai"


class _Unreadable(BaseChatModel):
    """A call whose streamed arguments never close, then an answer."""

    def __init__(self) -> None:
        self.calls = 0

    def _stream(self, request: ChatRequest) -> Iterator[AIMessageChunk]:
        self.calls += 1
        if self.calls == 1:
            yield AIMessageChunk(tool_call_chunks=[{"name": "get_weather", "args": '{"city": "Par', "id": "c1",
                                                    "index": 0, "type": "tool_call_chunk"}])
        else:
            yield AIMessageChunk("Done.")


def test_an_unreadable_streamed_call_is_stored_as_invoke_stores_it() -> None:
    stream = Agent(_Unreadable(), [get_weather]).stream("q", stream_mode="messages")
    list(stream)
    whole = Agent(_Unreadable(), [get_weather]).invoke("q")
    assert stream.messages == whole.messages  # the error names the tool's own argument shape in both (review 107)
    assert '{"city": <text>}' in stream.messages[1].invalid_tool_calls[0]["error"]


def test_the_command_line_prints_streamed_backslashes_and_a_split_crlf_as_written(monkeypatch: pytest.MonkeyPatch
                                                                                   ) -> None:
    from typer.testing import CliRunner

    from toolwire import cli

    class Pieces(BaseChatModel):
        def __init__(self) -> None:
            pass

        def _stream(self, request: ChatRequest) -> Iterator[AIMessageChunk]:
            for piece in ("Open C:\\", "Users\\bob\\", "notes.txt [bold]x[/bold]\r", "\nDone."):
                yield AIMessageChunk(piece)

    monkeypatch.setattr(cli, "_model", lambda name, dialect, n_ctx=None, n_threads=None: Pieces())
    result = CliRunner().invoke(cli.app, ["ask", "where?"])
    assert result.exit_code == 0, result.output
    assert "Open C:\\Users\\bob\\notes.txt [bold]x[/bold]" in result.output  # (review 108: "C:\\\\Users")
    assert "\\x0d" not in result.output and "Done." in result.output


def test_ctrl_c_in_the_middle_of_an_answer_leaves_no_blank_line_in_chat(monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from toolwire import cli

    class Stopped(BaseChatModel):
        def __init__(self) -> None:
            pass

        def _stream(self, request: ChatRequest) -> Iterator[AIMessageChunk]:
            yield AIMessageChunk("It is sun")
            raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_model", lambda name, dialect, n_ctx=None, n_threads=None: Stopped())
    result = CliRunner().invoke(cli.app, ["chat"], input="weather?\nexit\n")
    assert "It is sun\n" in result.output and "interrupted" in result.output
    assert "It is sun\n\n" not in result.output  # (review 108 #5: the line was ended twice)
