"""Reviews 135 #1 and 137 #7: every path that answers a reply's calls answers them in the model's call order, in
the conversation and in the event stream (the refused calls of a forced tool_choice, a refusal, the reply after
max_steps), as a normal round does."""

from __future__ import annotations

from toolwire import Agent, AIMessage, tool
from toolwire.testing import ScriptedChatModel


@tool
def get(x: int) -> int:
    """Get.

    Args:
        x: x.
    """
    return x


@tool
def put(x: int) -> int:
    """Put.

    Args:
        x: x.
    """
    return x


def _call(name: str, call_id: str) -> dict:
    return {"name": name, "args": {"x": 1}, "id": call_id, "type": "tool_call"}


def _answers(messages: list) -> list[tuple[str, str]]:
    return [(m.tool_call_id, m.status) for m in messages if m.type == "tool"]


def test_a_forced_tool_choice_answers_refused_and_run_calls_in_call_order() -> None:
    reply = AIMessage("", tool_calls=[_call("get", "a"), _call("put", "b"), _call("get", "c")])
    agent = Agent(ScriptedChatModel([reply, "done"]), [get, put], tool_choice="get")
    assert _answers(agent.invoke("q").messages) == [("a", "success"), ("b", "error"), ("c", "success")]
    events = [(e.type, e.data["id"] if e.type == "tool_call" else e.data.tool_call_id)
              for e in Agent(ScriptedChatModel([reply, "done"]), [get, put], tool_choice="get").stream("q")
              if e.type in ("tool_call", "tool_result")]
    assert events == [("tool_call", "a"), ("tool_call", "b"), ("tool_call", "c"),
                      ("tool_result", "a"), ("tool_result", "b"), ("tool_result", "c")]


def _cut_first(finish: str) -> AIMessage:
    return AIMessage("", tool_calls=[_call("get", "c2")], response_metadata={"finish_reason": finish},
                     invalid_tool_calls=[{"name": "get", "args": '{"x": ', "id": "c1", "error": "cut", "index": 0,
                                          "type": "invalid_tool_call"}])


def test_a_refusal_and_the_reply_after_max_steps_answer_in_call_order() -> None:
    refused = Agent(ScriptedChatModel([_cut_first("content_filter")]), [get]).invoke("q")
    assert refused.stop_reason == "refusal" and [m.tool_call_id for m in refused.messages if m.type == "tool"] == [
        "c1", "c2"]
    last = Agent(ScriptedChatModel([_cut_first("tool_calls"), _cut_first("tool_calls")]), [get], max_steps=1,
                 on_max_steps="answer").invoke("q")
    assert [m.tool_call_id for m in last.messages[-2:] if m.type == "tool"] == ["c1", "c2"]


def test_a_failing_round_keeps_the_refused_calls_answers() -> None:
    """Review 139 #6: the refused calls' answers waited for the round, so a round that failed left them unanswered,
    and a resumed run ran the refused call."""
    import pytest

    from toolwire.errors import ToolExecutionError

    ran: list[str] = []

    @tool
    def boom(x: int) -> int:
        """Boom.

        Args:
            x: x.
        """
        raise ValueError("boom")

    @tool
    def delete_all(x: int) -> int:
        """Delete everything.

        Args:
            x: x.
        """
        ran.append("deleted")
        return x

    reply = AIMessage("", tool_calls=[_call("boom", "a"), _call("delete_all", "b")])
    agent = Agent(ScriptedChatModel([reply, "done"]), [boom, delete_all], tool_choice="boom", handle_errors=False)
    with pytest.raises((ToolExecutionError, ValueError)) as caught:
        agent.invoke("q")
    answered = {m.tool_call_id for m in caught.value.messages if m.type == "tool"}
    assert "b" in answered
    Agent(ScriptedChatModel(["done"]), [boom, delete_all]).invoke(caught.value.messages)
    assert ran == []
