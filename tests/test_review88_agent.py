"""Review 88 (breaking the Agent loop and the executor with a scripted model)."""

from __future__ import annotations

import asyncio

from toolwire import Agent, tool
from toolwire.messages import AIMessage
from toolwire.testing import ScriptedChatModel


def _call(name: str, args: dict, call_id: str) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": name, "args": args, "id": call_id}])


# -- #1: a call that failed twice is run again once another tool has done its work ------------------------------

def test_a_failed_call_runs_again_after_another_tool_succeeded() -> None:
    files: dict[str, str] = {}

    @tool
    def read_file(path: str) -> str:
        """Read a file."""
        return files[path]

    @tool
    def write_file(path: str, text: str) -> str:
        """Write a file."""
        files[path] = text
        return "written"

    def run(invoke: str) -> object:
        files.clear()
        model = ScriptedChatModel([_call("read_file", {"path": "a"}, "1"), _call("read_file", {"path": "a"}, "2"),
                                   _call("write_file", {"path": "a", "text": "hi"}, "3"),
                                   _call("read_file", {"path": "a"}, "4"), "done"])
        agent = Agent(model, [read_file, write_file])
        result = agent.invoke("q") if invoke == "sync" else asyncio.run(agent.ainvoke("q"))
        assert [r.tool_choice for r in model.requests] == ["auto"] * 5  # (was: tools off after the stale answer)
        return result

    for how in ("sync", "async"):
        result = run(how)
        last = result.messages[-2]  # (was: "Error: ... KeyError: 'a'" although the file had been written)
        assert (last.tool_call_id, last.status, last.content) == ("4", "success", "hi")


def test_a_call_failing_the_same_way_with_nothing_else_succeeding_is_still_answered_with_its_error() -> None:
    ran: list[str] = []

    @tool
    def calculate(expression: str) -> str:
        """Evaluate."""
        ran.append(expression)
        raise ValueError("bad expression")

    model = ScriptedChatModel([_call("calculate", {"expression": "1+"}, f"c{i}") for i in range(5)] + ["gave up"])
    result = Agent(model, [calculate]).invoke("q")
    assert ran == ["1+"] * 3 and result.output == "gave up"  # the fourth try is answered with the error


# -- #2: handle_errors=False refuses an invalid call at its place in the reply, keeping the answers of those before --

def test_an_invalid_call_is_refused_before_the_calls_after_it_and_keeps_the_answers_before() -> None:
    import pytest

    from toolwire.errors import ToolExecutionError
    from toolwire.execution import ToolExecutor

    sent: list[str] = []

    @tool
    def send_email(to: str) -> str:
        """Send an email."""
        sent.append(to)
        return f"sent to {to}"

    good = {"name": "send_email", "args": {"to": "bob"}, "id": "c1"}
    cut = {"name": "send_email", "args": '{"to": ', "id": "c2", "error": "the arguments were cut off"}
    after = AIMessage("", tool_calls=[good], invalid_tool_calls=[cut])  # the invalid call after the valid one
    agent = Agent(ScriptedChatModel([after, "done"]), [send_email], handle_errors=False)
    with pytest.raises(ToolExecutionError) as caught:
        agent.invoke("q")
    assert sent == ["bob"]
    assert [m.type for m in caught.value.messages] == ["human", "ai", "tool"]  # (was: no answer for c1)
    assert caught.value.messages[-1].tool_call_id == "c1"
    assert str(caught.value).startswith("The call to 'send_email' was not valid, so it did not run: the arguments "
                                        "were cut off. Ask the model again")
    Agent(ScriptedChatModel(["done"]), [send_email]).invoke(caught.value.messages)
    assert sent == ["bob"]  # resuming does not send it twice
    sent.clear()
    first = AIMessage("", tool_calls=[good], invalid_tool_calls=[{**cut, "index": 0}])  # the invalid call first
    for run in (lambda: ToolExecutor([send_email], handle_errors=False).execute(first),
                lambda: asyncio.run(ToolExecutor([send_email], handle_errors=False).aexecute(first))):
        with pytest.raises(ToolExecutionError):
            run()
    assert sent == []  # (was: c1 ran before the invalid call ahead of it was refused)


# -- #3: a resumed run whose calls were answered is past its forced tool_choice ------------------------------------

def test_resuming_after_the_tools_answered_does_not_force_a_call_again() -> None:
    import pytest

    from toolwire.errors import ProviderError

    sent: list[str] = []

    @tool
    def send_email(to: str) -> str:
        """Send an email."""
        sent.append(to)
        return "sent"

    asked = {"n": 0}

    def reply(messages: list) -> object:
        asked["n"] += 1
        if asked["n"] == 1:
            return _call("send_email", {"to": "bob"}, "c1")
        if asked["n"] == 2:
            raise ProviderError("overloaded (503): try again.", provider="x", status=503)
        return "Done."

    model = ScriptedChatModel([reply], cycle=True)
    agent = Agent(model, [send_email], tool_choice="required")
    with pytest.raises(ProviderError) as caught:
        agent.invoke("Email Bob")
    result = agent.invoke(caught.value.messages)
    assert result.output == "Done." and sent == ["bob"]
    assert [r.tool_choice for r in model.requests] == ["required", "auto", "auto"]  # (was: ..., "required")
    stream_model = ScriptedChatModel([_call("send_email", {"to": "ann"}, "c1"), "Sent."])
    streaming = Agent(stream_model, [send_email], tool_choice="required")
    stream = streaming.stream("Email Ann")
    for event in stream:
        if event.type == "tool_result":
            break
    assert streaming.invoke(stream.messages).output == "Sent."
    assert [r.tool_choice for r in stream_model.requests] == ["required", "auto"]
    fresh = ScriptedChatModel([_call("send_email", {"to": "cy"}, "c9"), "ok"])
    Agent(fresh, [send_email], tool_choice="required").invoke([*caught.value.messages, ("human", "Email Cy")])
    assert fresh.requests[0].tool_choice == "required"  # a new question is forced as before


# -- #6, #7: the error of non-object arguments shows this tool's shape; call(None) is a UserError ----------------

def test_non_object_arguments_are_answered_with_the_tools_own_shape_and_call_none_is_refused() -> None:
    import pytest

    from toolwire.errors import UserError
    from toolwire.execution import ToolExecutor

    @tool
    def echo(x: str) -> str:
        """Echo."""
        return x

    reply = AIMessage("", tool_calls=[{"name": "echo", "args": "[1]", "id": "c1"}])
    answer = ToolExecutor([echo]).execute(reply)[0]
    assert answer.status == "error" and '{"x": <text>}' in answer.content
    assert "Paris" not in answer.content  # (was: an example naming a parameter echo has not)
    for bad in (None, 5, "echo"):
        with pytest.raises(UserError, match="call\\(\\) takes a list of tool calls"):  # (was: TypeError)
            ToolExecutor([echo]).call(bad)  # type: ignore[arg-type]
