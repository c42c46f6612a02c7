"""Review 102 (a skeptic on session 39's diff): what changed in code."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import BaseModel

from toolwire import Agent, AIMessage, tool
from toolwire.errors import ToolResultError, ToolTimeoutError
from toolwire.messages import tool_call
from toolwire.results import error_text, result_to_content
from toolwire.testing import ScriptedChatModel

WAIT = 5.0


@pytest.mark.parametrize(("value", "reason"), [
    ("circular", "it could not be written as JSON (Circular reference detected)"),
    ("long", "it holds an integer too long to write as text"),
])
def test_a_value_error_while_writing_a_result_gives_its_reason_not_a_tool_name(value: str, reason: str) -> None:
    # (the reason was passed where the tool name goes, so the model read the developer's advice)
    circular: dict = {}
    circular["self"] = circular
    with pytest.raises(ToolResultError) as raised:
        result_to_content(circular if value == "circular" else {"n": 10**5000})
    assert raised.value.reason == reason and raised.value.tool_name is None
    assert error_text(raised.value, "f") == (f"Error: tool 'f' ran, but its result could not be sent back: {reason}. "
                                             "Do not call it again for the same action: whatever it does has been "
                                             "done.")


def test_an_async_tool_stopped_at_its_timeout_says_it_may_have_taken_effect() -> None:
    @tool(timeout=0.05)
    async def post(to: str) -> str:
        """Post a message."""
        await asyncio.sleep(WAIT)
        return "posted"

    with pytest.raises(ToolTimeoutError, match=r"^Tool 'post' did not finish within 0\.05 seconds and was stopped, "
                                               r"but what it did before that may have taken effect; its result will "
                                               r"not be used: check what it did before calling it again\.$"):
        post.invoke({"to": "bob"})


def test_a_fragments_secret_is_masked_too() -> None:
    @tool
    def login(q: str) -> str:
        """Log in."""
        raise RuntimeError("callback https://app.example.com/cb#access_token=abc123&state=1 failed")

    answer = login.invoke(tool_call("login", {"q": "x"}, "c1"))
    assert "abc123" not in answer.content and "#access_token=****&state=1" in answer.content


@pytest.mark.parametrize("mode", ["updates", "values"])
def test_a_state_stream_raises_the_runs_error_once_then_ends(mode: str) -> None:
    @tool
    def boom(x: int) -> int:
        """Fail."""
        raise RuntimeError("boom")

    model = ScriptedChatModel([AIMessage("", tool_calls=[tool_call("boom", {"x": 1}, "a")]), "done"])
    stream = Agent(model, [boom], handle_errors=False).stream("q", stream_mode=mode)
    seen = []
    for _ in range(6):
        try:
            next(stream)
            seen.append("item")
        except StopIteration:
            seen.append("end")
            break
        except RuntimeError:
            seen.append("error")
    assert seen[-2:] == ["error", "end"] and seen.count("error") == 1

    async def run() -> list[str]:
        astream = Agent(ScriptedChatModel([AIMessage("", tool_calls=[tool_call("boom", {"x": 1}, "a")])]), [boom],
                        handle_errors=False).astream("q", stream_mode=mode)
        got = []
        for _ in range(6):
            try:
                await astream.__anext__()
                got.append("item")
            except StopAsyncIteration:
                got.append("end")
                break
            except RuntimeError:
                got.append("error")
        return got

    assert asyncio.run(run())[-2:] == ["error", "end"]


def test_only_toolwires_own_result_is_refused_as_a_runs_result() -> None:
    class Result:  # (anything else with a .messages list, such as a LangChain ChatPromptTemplate)
        def __init__(self) -> None:
            self.messages = ["hello"]

    from toolwire import UserError

    with pytest.raises(UserError, match=r"; got test_review102\.test_only_toolwires_own_result_is_refused_as_a_runs_"
                                        r"result\.<locals>\.Result\.$"):
        ScriptedChatModel(["hi"]).invoke(Result())


def test_the_no_text_log_says_how_the_object_is_written(caplog: pytest.LogCaptureFixture) -> None:
    from toolwire import ToolMessage

    class Handle:
        pass

    with caplog.at_level("WARNING", logger="toolwire.tools"):
        ToolMessage("ok", "c1", artifact={"handle": Handle()}).to_dict()
    [told] = [r.getMessage() for r in caplog.records if "no JSON form" in r.getMessage()]
    assert told.startswith("A tool result or artifact holds an instance of ") and "so it is written as '<" in told
    assert "the model reads" not in told


def test_arguments_are_copied_in_the_one_pass_that_checks_their_depth() -> None:
    rows = {"rows": [{"a": 1, "b": [1]}]}
    message = AIMessage("", tool_calls=[{"name": "f", "args": rows, "id": "c1"}])
    assert message.tool_calls[0]["args"] == rows and message.tool_calls[0]["args"]["rows"] is not rows["rows"]
    circular: dict = {}
    circular["me"] = circular
    looped = AIMessage("", tool_calls=[{"name": "f", "args": circular, "id": "c2"}])
    assert not looped.tool_calls and looped.invalid_tool_calls[0]["error"].startswith("The arguments are nested too")
    with_type = AIMessage("", tool_calls=[{"name": "f", "arguments": {"a": 1}, "id": "c3", "type": "tool_call"}])
    assert with_type.tool_calls[0]["args"] == {"a": 1} and "arguments" not in with_type.tool_calls[0]


@pytest.mark.parametrize(("option", "advice"), [
    ("deps_type", r"give tools what they need when they are made"),
    ("output_retries", r"pass Agent\(\.\.\., response_format=model\.with_structured_output\(Schema, retries=2\)\)"),
])
def test_pydantic_ais_agent_options_get_advice(option: str, advice: str) -> None:
    from toolwire import UserError

    with pytest.raises(UserError, match=rf"^Unknown Agent option '{option}': .*{advice}"):
        Agent(ScriptedChatModel(["hi"]), [], **{option: 1})


def test_response_format_takes_a_structured_output_with_retries() -> None:
    class Invoice(BaseModel):
        total: int

    replies = ["It is 12.", AIMessage("", tool_calls=[tool_call("Invoice", {"total": "x"}, "s1")]),
               AIMessage("", tool_calls=[tool_call("Invoice", {"total": 12}, "s2")])]
    model = ScriptedChatModel(replies)
    result = Agent(model, [], response_format=model.with_structured_output(Invoice, retries=1)).invoke("total?")
    assert result.structured_response == Invoice(total=12)
    second = model.requests[-1].messages
    assert second[-1].type == "tool" and second[-1].status == "error" and "Invoice was not accepted" in second[-1].text
