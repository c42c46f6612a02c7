"""Review 31: adversarial tools and model replies against "every call gets one clear answer, nothing is lost".

What the review found (each fixed; each test below failed before its fix):

1. A tool that returns a lazy iterator that is not a generator (``map`` over a big file, a DB cursor, a custom
   iterator class, ``itertools.count()``) is consumed *after* the tool returned, outside its timeout, on the
   event loop (``is_cheap_result`` counts it as one node): the timeout never fires (``itertools.count()`` hangs
   ``execute()`` for good, eating gigabytes), and while the loop is blocked an innocent async tool's result
   that was ready in time is thrown away as a timeout.
2. A tool that raises ``GeneratorExit`` (only ever the tool's own there) ends every path: ``tool.invoke`` and
   the Agent raise it, and ``ToolExecutor.execute`` with two calls raises ``RuntimeError: coroutine ignored
   GeneratorExit``, losing the answer of the call that worked.
3. A tool whose parameter is typed ``Any`` (or a ``dict[str, Any]`` holding a dict) gets the very object held in
   the model's (immutable) ``AIMessage``: mutating it rewrites the recorded call, and the Agent sends the model
   arguments it never wrote.
4. Resuming a conversation whose call had an empty id (``""``, some servers and saved histories) answered by a
   ``ToolMessage(tool_call_id="")``: ``AIMessage`` gives the call a new id, so the Agent sees it unanswered and
   runs it again (a payment made twice), leaving the first answer orphaned.
5. ``execute()``/``call()`` items whose ``repr``/``str`` raises (a non-dict item, a name, an id, an invalid
   call's args) crash the whole call instead of being answered in place like other malformed items.
6. A result object whose ``__getattr__`` raises something else than ``AttributeError`` is an error result in
   the executor (``is_cheap_result``'s ``hasattr``) but a success through ``tool.invoke``.
7. A sync function that returns an async generator (a plain wrapper without ``functools.wraps``) reports
   success with ``"<async_generator object ...>"`` as the result: its items are lost, unlike a returned
   coroutine, which is an error.
8. An async tool that leaves behind a task ignoring its cancellation (a background helper) makes the sync
   ``execute()``/``tool.invoke`` never return (the loop's end waits for it), while ``aexecute`` returns at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from typing import Any

import pytest

from toolwire import Agent, AIMessage, HumanMessage, ToolExecutor, ToolMessage, tool
from toolwire.testing import ScriptedChatModel


@tool
def good(x: int = 1) -> str:
    """Good tool."""
    return f"good {x}"


# -- 1: an iterator result is consumed outside the timeout, on the event loop --------------------------------


class _SlowIterator:
    """An iterator (not a generator) that takes 0.04 s per item, 20 items (``count``): 0.8 s in all."""

    def __init__(self, count: int = 20) -> None:
        self.n = 0
        self.count = count

    def __iter__(self) -> _SlowIterator:
        return self

    def __next__(self) -> int:
        self.n += 1
        if self.n > self.count:
            raise StopIteration
        time.sleep(0.04)
        return self.n


@tool(timeout=0.2)
def feed_timed() -> object:
    """Returns a slow lazy iterator."""
    return _SlowIterator(100)  # 4 s in all: far past the bound below, which a slow machine may come near


@tool
def feed() -> object:
    """Returns a slow lazy iterator."""
    return _SlowIterator()


@tool(timeout=0.5)
async def quick() -> str:
    """Answers in 0.1 s."""
    await asyncio.sleep(0.1)
    return "quick result"


@pytest.mark.parametrize("path", ["invoke", "execute"])
def test_an_iterator_result_is_read_inside_the_tools_timeout(path: str) -> None:
    call = {"name": "feed_timed", "args": {}, "id": "f", "type": "tool_call"}
    start = time.monotonic()
    if path == "invoke":
        message = feed_timed.invoke(call)
    else:
        [message] = ToolExecutor([feed_timed]).execute([call])
    took = time.monotonic() - start
    assert message.status == "error" and "0.2 seconds" in message.text
    assert took < 2.0  # (was 0.6 of 0.8 s in all: a loaded machine could take the 0.4 s left)


def test_an_iterator_result_does_not_cost_another_tool_its_result() -> None:
    results = ToolExecutor([feed, quick]).execute(
        [{"name": "feed", "args": {}, "id": "f"}, {"name": "quick", "args": {}, "id": "q"}])
    assert [m.tool_call_id for m in results] == ["f", "q"]
    assert results[1].status == "success" and results[1].text == "quick result"


# -- 2: GeneratorExit raised by a tool -----------------------------------------------------------------------


@tool
def closes() -> str:
    """Raises GeneratorExit itself."""
    raise GeneratorExit


@pytest.mark.parametrize("path", ["invoke", "execute", "aexecute", "agent"])
def test_a_tool_raising_generator_exit_gets_an_error_result(path: str) -> None:
    calls = [{"name": "good", "args": {}, "id": "g"}, {"name": "closes", "args": {}, "id": "c"}]
    try:
        if path == "invoke":
            messages = [closes.invoke({**calls[1], "type": "tool_call"})]
            calls = calls[1:]
        elif path == "execute":
            messages = ToolExecutor([good, closes]).execute(calls)
        elif path == "aexecute":
            messages = asyncio.run(ToolExecutor([good, closes]).aexecute(calls))
        else:
            model = ScriptedChatModel([AIMessage("", tool_calls=calls), "done"])
            run = Agent(model, [good, closes]).invoke("go")
            messages = [m for m in run.messages if isinstance(m, ToolMessage)]
    except BaseException as exc:  # GeneratorExit, RuntimeError: a failure of this test, not of pytest
        pytest.fail(f"{path} raised {type(exc).__name__}: {exc}")
    assert [m.tool_call_id for m in messages] == [c["id"] for c in calls]
    assert messages[-1].status == "error" and "GeneratorExit" in messages[-1].text
    if len(messages) == 2:
        assert messages[0].text == "good 1"


# -- 3: a tool mutating its arguments rewrites the model's call ----------------------------------------------


@tool
def annotate(payload: Any) -> str:
    """Adds a key to what it was given."""
    payload["seen"] = True
    return "ok"


@tool
def annotate_nested(payload: dict[str, Any]) -> str:
    """Adds a key inside what it was given."""
    payload["inner"]["seen"] = True
    return "ok"


def test_a_tool_mutating_its_arguments_does_not_rewrite_the_models_call() -> None:
    reply = AIMessage("", tool_calls=[{"name": "annotate", "args": {"payload": {"a": 1}}, "id": "c1"},
                                      {"name": "annotate_nested", "args": {"payload": {"inner": {}}}, "id": "c2"}])
    ToolExecutor([annotate, annotate_nested]).execute(reply)
    assert reply.tool_calls[0]["args"] == {"payload": {"a": 1}}
    assert reply.tool_calls[1]["args"] == {"payload": {"inner": {}}}

    model = ScriptedChatModel([AIMessage("", tool_calls=[{"name": "annotate", "args": {"payload": {"a": 1}},
                                                          "id": "c1"}]), "done"])
    Agent(model, [annotate]).invoke("go")
    sent = model.requests[1].messages[1]
    assert isinstance(sent, AIMessage) and sent.tool_calls[0]["args"] == {"payload": {"a": 1}}


# -- 4: an empty call id answered by an empty tool_call_id is run again on resume -----------------------------


def test_resuming_a_call_with_an_empty_id_that_was_answered_does_not_run_it_again() -> None:
    payments: list[int] = []

    @tool
    def pay(amount: int) -> str:
        """Pays money."""
        payments.append(amount)
        return f"paid {amount}"

    history = [HumanMessage("pay 5"),
               AIMessage("", tool_calls=[{"name": "pay", "args": {"amount": 5}, "id": ""}]),
               ToolMessage("paid 5", tool_call_id="")]
    run = Agent(ScriptedChatModel(["Paid."]), [pay]).invoke(history)
    assert payments == []
    assert run.output == "Paid."
    answers = [m for m in run.messages if isinstance(m, ToolMessage)]
    assert len(answers) == 1


# -- 5: malformed items whose repr or str fails --------------------------------------------------------------


class _Unprintable:
    def __repr__(self) -> str:
        raise RuntimeError("repr failed")

    def __str__(self) -> str:
        raise RuntimeError("str failed")


@pytest.mark.parametrize("item", ["not a dict", "name", "id", "invalid args"])
def test_items_that_cannot_be_printed_are_answered_in_place(item: str) -> None:
    executor = ToolExecutor([good])
    first = {"name": "good", "args": {}, "id": "g"}
    try:
        if item == "invalid args":
            messages = executor.call([first], [{"name": "good", "args": _Unprintable(), "id": "i", "error": "bad"}])
        else:
            bad: Any = {"not a dict": _Unprintable(),
                        "name": {"name": _Unprintable(), "args": {}, "id": "b"},
                        "id": {"name": "good", "args": {}, "id": _Unprintable()}}[item]
            messages = executor.execute([first, bad])
    except RuntimeError as exc:
        pytest.fail(f"execute() crashed: {exc}")
    assert len(messages) == 2
    assert messages[0].text == "good 1"
    assert messages[1].status == "error"
    assert executor.execute([first])[0].text == "good 1"


# -- 6: a result whose __getattr__ raises ------------------------------------------------------------------


class _Proxy:
    """A lazy proxy whose attribute lookups fail with a non-AttributeError (as remote proxies do)."""

    def __getattr__(self, name: str) -> Any:
        raise RuntimeError(f"no connection while reading {name}")

    def __str__(self) -> str:
        return "proxy of record 7"


@tool
def lookup() -> object:
    """Returns a proxy object."""
    return _Proxy()


def test_a_proxy_result_is_answered_the_same_by_invoke_and_the_executor() -> None:
    call = {"name": "lookup", "args": {}, "id": "l", "type": "tool_call"}
    direct = lookup.invoke(call)
    [executed] = ToolExecutor([lookup]).execute([call])
    assert direct.status == "success"
    assert (executed.status, executed.content) == (direct.status, direct.content)


# -- 7: a sync function returning an async generator ---------------------------------------------------------


async def _rows() -> Any:
    yield {"row": 1}
    yield {"row": 2}


@tool
def rows() -> object:
    """Returns the rows (a plain wrapper around an async generator)."""
    return _rows()


@pytest.mark.parametrize("path", ["invoke", "execute"])
def test_a_returned_async_generator_is_not_a_success_with_its_repr(path: str) -> None:
    call = {"name": "rows", "args": {}, "id": "r", "type": "tool_call"}
    message = rows.invoke(call) if path == "invoke" else ToolExecutor([rows]).execute([call])[0]
    assert "async_generator object" not in message.text
    assert message.status == "error" or '"row": 2' in message.text


# -- 8: a task an async tool leaves behind keeps sync execute() from returning -------------------------------


def test_a_task_left_behind_by_an_async_tool_does_not_hang_sync_execute(monkeypatch: pytest.MonkeyPatch) -> None:
    import toolwire._tool_run

    monkeypatch.setattr(toolwire._tool_run, "CANCEL_GRACE", 0.3)
    release = threading.Event()

    async def helper() -> None:  # a background helper that swallows its cancellation until released
        while not release.is_set():
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.sleep(0.02)

    @tool
    async def start_refresh() -> str:
        """Starts a background refresh and answers at once."""
        asyncio.get_running_loop().create_task(helper())
        return "started"

    done: list[Any] = []
    worker = threading.Thread(
        target=lambda: done.append(ToolExecutor([start_refresh]).execute([{"name": "start_refresh", "args": {},
                                                                          "id": "s"}])),
        daemon=True)
    try:
        worker.start()
        worker.join(10)  # (it returns about CANCEL_GRACE after the answer; without the fix, never)
        assert done, "execute() had not returned 10 s after the tool answered"
        assert done[0][0].text == "started"
    finally:
        release.set()
        worker.join(2)
