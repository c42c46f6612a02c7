"""Review 58 (a fresh user trying interop, MCP, streaming and async): Ctrl-C in a sync run keeps the answers of
the calls that finished, so resuming does not run them again."""

from __future__ import annotations

import asyncio
import signal
import threading

import pytest

from toolwire import Agent, AIMessage, tool
from toolwire.messages import tool_call
from toolwire.testing import ScriptedChatModel


def _agent(charged: list[int], started: threading.Event) -> Agent:
    @tool
    def charge_card(amount: int) -> str:
        """Charge the customer's card (a side effect)."""
        charged.append(amount)
        started.set()
        return f"charged {amount}"

    @tool
    async def slow_report(x: int) -> str:
        """A slow report."""
        await asyncio.sleep(30)
        return "report"

    calls = [tool_call("charge_card", {"amount": 10}, "c1"), tool_call("slow_report", {"x": 1}, "c2")]
    return Agent(ScriptedChatModel([AIMessage("", tool_calls=calls), "done"]), [charge_card, slow_report])


def _interrupt_when(started: threading.Event) -> None:
    main = threading.main_thread().ident
    assert main is not None

    def fire() -> None:
        if started.wait(10):
            threading.Event().wait(0.2)  # the main thread is back waiting on the slow call
            signal.pthread_kill(main, signal.SIGINT)

    threading.Thread(target=fire, daemon=True).start()


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals reach the main thread")
@pytest.mark.parametrize("inside_a_loop", [False, True])
def test_ctrl_c_during_a_tool_round_keeps_the_finished_answers_on_the_error(inside_a_loop: bool) -> None:
    charged: list[int] = []
    started = threading.Event()
    agent = _agent(charged, started)
    _interrupt_when(started)

    async def in_a_loop() -> None:  # a loop already runs here (Jupyter): the run goes to a worker thread
        agent.invoke("pay")

    with pytest.raises(KeyboardInterrupt) as caught:
        if inside_a_loop:
            loop = asyncio.new_event_loop()  # (asyncio.run would turn the signal into a cancellation)
            try:
                loop.run_until_complete(in_a_loop())
            finally:
                loop.close()
        else:
            agent.invoke("pay")
    messages = caught.value.messages  # type: ignore[attr-defined]
    assert [(m.type, getattr(m, "tool_call_id", None)) for m in messages] == [
        ("human", None), ("ai", None), ("tool", "c1"), ("tool", "c2")]
    assert messages[2].content == "charged 10" and charged == [10]
    assert messages[3].status == "error" and "stopped while it ran" in messages[3].text  # it had started (review 113)
    # resuming runs no call again
    fast = tool(lambda x: "report", name="slow_report", description="The report, fast now.")
    resumed = Agent(ScriptedChatModel(["done"]), [agent.executor.tools["charge_card"], fast])
    assert resumed.invoke(messages).output == "done" and charged == [10]


def _counted() -> tuple[list[str], list]:
    ran: list[str] = []

    @tool
    def first(x: int) -> str:
        """First."""
        ran.append("first")
        return "one"

    @tool
    def second(x: int) -> str:
        """Second."""
        ran.append("second")
        return "two"

    return ran, [first, second]


def _two_calls() -> AIMessage:
    return AIMessage("", tool_calls=[tool_call("first", {"x": 1}, "c1"), tool_call("second", {"x": 2}, "c2")])


def test_breaking_out_of_a_stream_keeps_every_answer_of_the_round_on_stream_messages() -> None:
    ran, tools = _counted()
    model = ScriptedChatModel([_two_calls(), "never asked"])
    stream = Agent(model, tools).stream("go")
    assert stream.messages == []  # nothing runs before the first event is asked for
    for event in stream:
        if event.type == "tool_result":
            break  # after the first result: the second was answered too, in the same round
    assert [(m.type, getattr(m, "tool_call_id", None)) for m in stream.messages] == [
        ("human", None), ("ai", None), ("tool", "c1"), ("tool", "c2")]
    assert ran == ["first", "second"] and len(model.requests) == 1  # stopped: no second model call
    stream.close()
    resumed = Agent(ScriptedChatModel(["done"]), tools).invoke(stream.messages)
    assert resumed.output == "done" and ran == ["first", "second"]  # nothing ran again


def test_breaking_out_of_an_async_stream_keeps_the_conversation_too() -> None:
    ran, tools = _counted()
    model = ScriptedChatModel([_two_calls(), "never asked"])

    async def run() -> list:
        stream = Agent(model, tools).astream("go")
        async for event in stream:
            if event.type == "tool_result":
                break
        await stream.aclose()
        return stream.messages

    messages = asyncio.run(run())
    assert [m.type for m in messages] == ["human", "ai", "tool", "tool"] and ran == ["first", "second"]
    assert len(model.requests) == 1


# -- review 59: a model that asks again for a call it has the answer to -----------------------------------------


def test_a_reply_of_repeated_calls_only_is_followed_by_a_model_call_with_tools_off() -> None:
    ran, tools = _counted()
    again = AIMessage("", tool_calls=[tool_call("first", {"x": 1}, "c2")])
    model = ScriptedChatModel([AIMessage("", tool_calls=[tool_call("first", {"x": 1}, "c1")]), again,
                               "It is one."])
    result = Agent(model, tools, max_steps=3).invoke("go")
    assert result.output == "It is one." and ran == ["first"]
    assert [r.tool_choice for r in model.requests] == ["auto", "auto", "none"]
    # a reply with a new call besides the repeat keeps the tools
    mixed = AIMessage("", tool_calls=[tool_call("first", {"x": 1}, "c2"), tool_call("second", {"x": 2}, "c3")])
    model = ScriptedChatModel([AIMessage("", tool_calls=[tool_call("first", {"x": 1}, "c1")]), mixed, "Done."])
    assert Agent(model, tools).invoke("go").output == "Done."
    assert [r.tool_choice for r in model.requests] == ["auto", "auto", "auto"]


def test_a_boolean_for_a_number_parameter_is_refused_as_json_schema_refuses_it() -> None:
    """Review 59: pydantic's lax mode read ``true`` for an ``int`` or ``float`` parameter as 1, so a model that sent
    a boolean ran the tool with a number the schema it was shown never allowed."""
    from toolwire import ToolValidationError

    @tool
    def repeat(text: str, times: int | None = None, loud: bool = False, ratio: float = 1.0) -> str:
        """Repeat a text."""
        return (text * (times or 1)).upper() if loud else text * (times or 1)

    for args, name in (({"text": "ab", "times": True}, "times"), ({"text": "ab", "ratio": False}, "ratio")):
        message = repeat.invoke({"type": "tool_call", "name": "repeat", "args": args, "id": "c"})
        assert message.status == "error" and f"'{name}': Input should be a valid " in message.content
        assert "not a boolean" in message.content
        with pytest.raises(ToolValidationError):
            repeat.invoke(args)
    assert repeat.invoke({"text": "ab", "times": 2, "loud": True}) == "ABAB"  # a bool parameter still takes one
    assert repeat.invoke({"text": "ab", "times": "2"}) == "abab"  # and a number as text is still read


def test_a_boolean_for_a_number_is_refused_at_every_depth_and_on_every_path() -> None:
    """Review 61: the check covered only top-level parameters, so ``[true, 2]`` for a ``list[int]``, a nested model's
    ``int`` field, a TypedDict's or a dataclass's, and an ``args_schema`` model took 1; and it answered before
    pydantic ran, hiding the call's other errors. The rule is now in the validator built from the schema."""
    from dataclasses import dataclass
    from typing import TypedDict

    from pydantic import BaseModel

    class Inner(BaseModel):
        n: int

    class Box(TypedDict):
        k: int

    @dataclass
    class Point:
        x: float

    @tool
    def f(o: Inner, li: list[int], m: dict[str, int], t: tuple[int, str], box: Box | None = None,
          p: Point | None = None, either: int | bool = 0, text_or_int: int | str = 0, n: int = 0) -> str:
        """F."""
        return repr((o, li, m, t, box, p, either, text_or_int, n))

    good = {"o": {"n": 1}, "li": [1, 2], "m": {"k": 1}, "t": [1, "a"]}
    bad = {"o": {"n": True}, "li": [True, 2], "m": {"k": False}, "t": [True, "a"], "box": {"k": True},
           "p": {"x": False}, "text_or_int": True, "n": True}
    for key, value in bad.items():
        message = f.invoke({"type": "tool_call", "name": "f", "args": {**good, key: value}, "id": "c"})
        assert message.status == "error" and "not a boolean" in message.content, (key, message.content)
    both = f.invoke({"type": "tool_call", "name": "f", "args": {**good, "n": True, "li": "x"}, "id": "c"}).content
    assert "'n'" in both and "'li'" in both  # every error is told at once
    assert "True" in f.invoke({**good, "either": True})  # a union with bool still takes one
    assert f.invoke({**good, "li": ["5", 2.0]}).startswith("(Inner(n=1), [5, 2]")  # lax numbers are still read
    assert f.parameters["properties"]["li"] == {"type": "array", "items": {"type": "integer"}}  # schema unchanged

    class Args(BaseModel):
        a: int
        inner: Inner

    def g(a: int, inner: Inner) -> str:
        return f"{a} {inner}"

    modelled = tool(g, args_schema=Args, description="G.")
    for args in ({"a": True, "inner": {"n": 1}}, {"a": 1, "inner": {"n": False}}):
        assert "not a boolean" in modelled.invoke({"type": "tool_call", "name": "g", "args": args, "id": "c"}).content


def test_a_schema_tool_gets_a_whole_float_for_an_integer_as_an_int() -> None:
    """Review 61: JSON Schema counts ``2.0`` as an integer, so ``tool_from_schema`` accepted it and passed the float on,
    and ``"ab" * 2.0`` raised inside the tool."""
    from toolwire.interop.openai_tools import tool_from_schema

    schema = {"type": "function", "function": {"name": "rep", "description": "Repeat.", "parameters": {
        "type": "object", "properties": {"n": {"type": "integer"}, "s": {"type": "string"},
                                         "sizes": {"type": "array", "items": {"type": "integer"}},
                                         "ratio": {"type": "number"}},
        "required": ["n", "s"]}}}
    seen = []

    def rep(n: int, s: str, sizes: list[int] | None = None, ratio: float = 1.0) -> str:
        seen.append((n, sizes, ratio))
        return s * n

    t = tool_from_schema(schema, rep)
    assert t.invoke({"n": 2.0, "s": "ab", "sizes": [1.0, 3], "ratio": 2.0}) == "abab"
    assert seen == [(2, [1, 3], 2.0)] and type(seen[0][0]) is int and type(seen[0][2]) is float
    assert "not of type 'integer'" in t.invoke({"type": "tool_call", "name": "rep", "args": {"n": True, "s": "a"},
                                                "id": "c"}).content
