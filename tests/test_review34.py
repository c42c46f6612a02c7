"""Review 34: toolwire in a production service under concurrent use (threads, asyncio tasks, cancellation,
many runs, forks), with the scripted model only.

Faults found (each test below failed before its fix):

1. A sync call that runs an async tool (``tool.invoke``, ``ToolExecutor.execute``, ``Agent.invoke``) clears the
   calling thread's current event loop (``_run_loop`` ends with ``asyncio.set_event_loop(None)``): a thread
   that set up its own loop gets ``RuntimeError: There is no current event loop`` from the next
   ``asyncio.get_event_loop()`` (the legacy loop-per-thread pattern, libraries that still call it).
2. One exception object raised in two concurrent runs (an awaited shared task that failed, a module-level
   error instance) gets ``exc.messages`` / ``exc.tool_messages`` written by each run in turn: one caller gets the
   other conversation (and resuming it answers the wrong user); notes pile up on the object.
3. Hosted models keep a single async SDK client, replaced whenever the running loop differs: two event
   loops (threads with their own loops, ``asyncio.run`` per request) make a new client (new HTTP pool) on
   every call, and ``aclose()`` closes none of them, although the docs say "one async client per event loop".
4. A sync call of an async tool with a timeout is not bounded by the timeout when the tool awaits work on the
   loop's default executor (``asyncio.to_thread``, ``run_in_executor(None, ...)``, the usual way to wrap a
   blocking client): the call is answered as a timeout only once that thread finishes
   (``loop.shutdown_default_executor()`` waits for it without limit).
5. After ``os.fork()`` (gunicorn ``--preload``, a ``multiprocessing`` fork pool running the pickled tools), the
   shared thread pool still counts the parent's threads, which do not exist in the child: the first sync tool
   run through the executor or an Agent hangs forever.
"""

from __future__ import annotations

import asyncio
import collections
import gc
import multiprocessing
import threading
import time
import types
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from toolwire import Agent, AIMessage, HumanMessage, ToolExecutor, ToolMessage, current_tool_call, tool
from toolwire.testing import ScriptedChatModel


@tool
def echo(x: str) -> str:
    """Echo the text back (sync).

    Args:
        x: the text
    """
    time.sleep(0.001)
    return f"echo:{x}"


@tool
async def aecho(x: str) -> str:
    """Echo the text back (async).

    Args:
        x: the text
    """
    await asyncio.sleep(0.001)
    return f"aecho:{x}"


@tool
def who(x: str) -> str:
    """Say which call this is.

    Args:
        x: the text
    """
    call = current_tool_call()
    return f"{call['id'] if call else None}:{x}"


def _echo_reply(messages: list[Any]) -> AIMessage | str:
    """Calls both echo tools with the question (same ids in every conversation), then answers with the results."""
    last = messages[-1]
    if isinstance(last, HumanMessage):
        q = last.text
        return AIMessage("", tool_calls=[{"name": "echo", "args": {"x": q}, "id": "call_1"},
                                         {"name": "aecho", "args": {"x": q}, "id": "call_2"}])
    return "|".join(m.text for m in messages if isinstance(m, ToolMessage))


def _one_answer_per_call(messages: list[Any]) -> None:
    calls: collections.Counter[str] = collections.Counter()
    answers: collections.Counter[str] = collections.Counter()
    for m in messages:
        if isinstance(m, AIMessage):
            calls.update(c["id"] for c in [*m.tool_calls, *m.invalid_tool_calls])
        elif isinstance(m, ToolMessage):
            answers[m.tool_call_id] += 1
    assert calls == answers


# -- what works ------------------------------------------------------------------------------------------


def test_one_agent_shared_by_threads_and_tasks_has_no_cross_talk() -> None:
    agent = Agent(ScriptedChatModel([_echo_reply], cycle=True), [echo, aecho])

    def run(i: int) -> None:
        result = agent.invoke(f"t{i}")
        assert result.output == f"echo:t{i}|aecho:t{i}"
        _one_answer_per_call(result.messages)

    with ThreadPoolExecutor(16) as pool:
        list(pool.map(run, range(64)))

    async def main() -> None:
        results = await asyncio.gather(*(agent.ainvoke(f"a{i}") for i in range(100)))
        for i, result in enumerate(results):
            assert result.output == f"echo:a{i}|aecho:a{i}"
        # mixed: sync runs from threads while the loop runs async ones
        with ThreadPoolExecutor(4) as pool:
            sync_runs = [asyncio.wrap_future(pool.submit(run, 1000 + i)) for i in range(8)]
            await asyncio.gather(*sync_runs, *(agent.ainvoke(f"m{i}") for i in range(20)))

    asyncio.run(main())


def test_current_tool_call_is_the_right_call_under_concurrency() -> None:
    executor = ToolExecutor([who])

    def call(i: int) -> dict[str, Any]:
        return {"name": "who", "args": {"x": str(i)}, "id": f"id{i}", "type": "tool_call"}

    def run(i: int) -> None:
        assert who.invoke(call(i)).content == f"id{i}:{i}"
        assert who.invoke(call(i), timeout=1).content == f"id{i}:{i}"
        first, second = executor.execute([call(i), call(i + 1000)])
        assert (first.content, second.content) == (f"id{i}:{i}", f"id{i + 1000}:{i + 1000}")

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(run, range(40)))

    async def arun(i: int) -> None:
        assert (await who.ainvoke(call(i))).content == f"id{i}:{i}"
        [only] = await executor.aexecute([call(i)])
        assert only.content == f"id{i}:{i}"

    async def main() -> None:
        await asyncio.gather(*(arun(i) for i in range(100)))

    asyncio.run(main())


def test_a_run_cancelled_mid_parallel_calls_resumes_with_one_answer_per_call() -> None:
    resumed = threading.Event()

    @tool
    async def slow(x: str) -> str:
        """Slow async work.

        Args:
            x: the text
        """
        for _ in range(1000):  # still running at the timeout, however slow the machine (was: a fixed 0.15 s)
            if resumed.is_set():
                break
            await asyncio.sleep(0.01)
        return f"slow:{x}"

    @tool
    def fast(x: str) -> str:
        """Fast sync work.

        Args:
            x: the text
        """
        return f"fast:{x}"

    def reply(messages: list[Any]) -> AIMessage | str:
        if isinstance(messages[-1], HumanMessage):
            q = messages[-1].text
            return AIMessage("", tool_calls=[{"name": "slow", "args": {"x": q}, "id": "c1"},
                                             {"name": "fast", "args": {"x": q}, "id": "c2"}])
        return "done"

    agent = Agent(ScriptedChatModel([reply], cycle=True), [slow, fast])

    async def main() -> None:
        with pytest.raises(TimeoutError) as info:  # (0.5 s, not 0.05: the fast call has started by then)
            await asyncio.wait_for(agent.ainvoke("q"), 0.5)
        resumed.set()
        kept = info.value.__cause__.messages  # type: ignore[union-attr]
        answers = {m.tool_call_id: m for m in kept if isinstance(m, ToolMessage)}
        assert answers["c2"].text == "fast:q"  # the fast call's answer
        assert answers["c1"].status == "error"  # the slow one, stopped while it ran, answered too (review 113)
        result = await agent.ainvoke(kept)
        assert result.output == "done"
        _one_answer_per_call(result.messages)
        assert len(asyncio.all_tasks()) == 1  # nothing left running on the loop
        assert (await agent.ainvoke("again")).output == "done"  # the same objects still work

    asyncio.run(main())


def test_sync_agent_invoke_inside_a_running_loop() -> None:
    agent = Agent(ScriptedChatModel([_echo_reply], cycle=True), [echo, aecho])

    async def main() -> str:
        return agent.invoke("inside").output  # a notebook cell calling the sync API

    assert asyncio.run(main()) == "echo:inside|aecho:inside"


def test_many_short_runs_leave_no_threads_loops_or_tasks_behind() -> None:
    agent = Agent(ScriptedChatModel([_echo_reply], cycle=True), [echo, aecho])
    for i in range(20):
        agent.invoke(f"warm{i}")
    gc.collect()
    threads = threading.active_count()
    for i in range(200):
        agent.invoke(f"q{i}")

    async def main() -> None:
        for i in range(200):
            await agent.ainvoke(f"a{i}")
        assert len(asyncio.all_tasks()) == 1

    asyncio.run(main())
    gc.collect()
    assert threading.active_count() <= threads + 2  # the shared pool may start a thread or two, no more
    assert not [o for o in gc.get_objects() if isinstance(o, asyncio.AbstractEventLoop) and not o.is_closed()]


# -- faults ----------------------------------------------------------------------------------------------


def test_a_sync_call_keeps_the_threads_own_event_loop() -> None:
    seen: list[Any] = []

    def worker() -> None:  # a thread with a loop of its own, as the loop-per-thread pattern sets it up
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        try:
            seen.append(aecho.invoke({"x": "a"}))
            try:
                seen.append(asyncio.get_event_loop() is loop)
            except RuntimeError as exc:
                seen.append(str(exc))
        finally:
            asyncio.set_event_loop(None)
            loop.close()

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join(5)
    assert seen == ["aecho:a", True]


def test_one_exception_raised_in_two_runs_keeps_each_runs_conversation() -> None:
    shared: dict[str, asyncio.Future[None]] = {}

    @tool
    async def fetch(x: str) -> str:
        """Fetch with the shared auth token (one refresh awaited by every caller).

        Args:
            x: the text
        """
        await shared["refresh"]
        return x

    def reply(messages: list[Any]) -> AIMessage:
        q = messages[0].text
        return AIMessage("", tool_calls=[{"name": "echo", "args": {"x": q}, "id": "e1"},
                                         {"name": "fetch", "args": {"x": q}, "id": "f1"}])

    agent = Agent(ScriptedChatModel([reply], cycle=True), [echo, fetch], handle_errors=False)

    async def main() -> list[BaseException]:
        shared["refresh"] = asyncio.get_running_loop().create_future()
        runs = [asyncio.ensure_future(agent.ainvoke(q)) for q in ("alice: my card ends 4242", "bob: hello")]
        await asyncio.sleep(0.05)
        shared["refresh"].set_exception(ConnectionError("auth server down"))  # every awaiter gets this object
        return await asyncio.gather(*runs, return_exceptions=True)  # type: ignore[return-value]

    alice, bob = asyncio.run(main())
    assert isinstance(alice, ConnectionError) and isinstance(bob, ConnectionError)
    assert alice.messages[0].text == "alice: my card ends 4242"  # type: ignore[attr-defined]
    assert bob.messages[0].text == "bob: hello"  # type: ignore[attr-defined]
    assert "alice" not in " ".join(m.text for m in bob.messages)  # type: ignore[attr-defined]


def test_a_hosted_model_keeps_one_async_client_per_event_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("openai")
    from openai.types.chat import ChatCompletion

    from toolwire.models.openai import ChatOpenAI

    made: list[Any] = []
    closed: list[Any] = []

    class FakeAsyncClient:
        def __init__(self) -> None:
            made.append(self)

            async def create(**kwargs: Any) -> ChatCompletion:
                return ChatCompletion.model_validate({
                    "id": "x", "object": "chat.completion", "created": 0, "model": "m",
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": "hi"}}]})

            self.chat = types.SimpleNamespace(completions=types.SimpleNamespace(create=create))

        async def aclose(self) -> None:
            closed.append(self)

    monkeypatch.setattr(ChatOpenAI, "_make_client", lambda self, asynchronous: FakeAsyncClient())
    model = ChatOpenAI("gpt-4o-mini", api_key="sk-test")
    loops = [asyncio.new_event_loop(), asyncio.new_event_loop()]  # e.g. two worker threads with their own loops
    try:
        for i in range(6):
            assert loops[i % 2].run_until_complete(model.ainvoke("hello")).text == "hi"
        for loop in loops:
            loop.run_until_complete(model.aclose())
    finally:
        for loop in loops:
            loop.close()
    assert len(made) == 2
    assert len(closed) == 2


def test_a_sync_call_of_an_async_tool_ends_at_its_timeout() -> None:
    release = threading.Event()

    @tool(timeout=0.1)
    async def lookup(x: str) -> str:
        """Look up with a blocking client run on a worker thread.

        Args:
            x: the text
        """
        return await asyncio.to_thread(lambda: release.wait(10) and x)

    started = time.perf_counter()
    try:
        [message] = ToolExecutor([lookup]).execute([{"name": "lookup", "args": {"x": "a"}, "id": "1"}])
        elapsed = time.perf_counter() - started
    finally:
        release.set()
    assert message.status == "error" and "did not finish within 0.1 seconds" in message.text
    assert elapsed < 3  # (waiting for the thread takes 10 s: was 0.5 of 0.8 s, which a loaded machine could miss)


def test_the_executor_works_in_a_forked_child() -> None:
    executor = ToolExecutor([echo])
    assert executor.execute([{"name": "echo", "args": {"x": "parent"}, "id": "1"}])[0].text == "echo:parent"
    time.sleep(0.05)  # the pool thread is idle again (its slot counted free) when the fork happens
    context = multiprocessing.get_context("fork")
    queue = context.SimpleQueue()
    child = context.Process(target=_run_in_child, args=(executor, queue))
    child.start()
    child.join(10)  # (a bound for a hang: a loaded machine can take over a second to fork and run it)
    hung = child.is_alive()
    if hung:
        child.kill()
        child.join()
    assert not hung, "the sync tool never ran in the forked child"
    assert queue.get() == "echo:child"


def _run_in_child(executor: ToolExecutor, queue: Any) -> None:
    queue.put(executor.execute([{"name": "echo", "args": {"x": "child"}, "id": "1"}])[0].text)


def test_an_error_without_a_rebuildable_init_is_still_copied_for_a_second_run() -> None:
    from toolwire._agent_checks import keep_run

    class StatusError(Exception):
        def __init__(self, message: str, *, status: int) -> None:  # keyword-only: copy.copy cannot rebuild it
            super().__init__(message)
            self.status = status

    error = StatusError("server down", status=503)
    first = keep_run(error, [HumanMessage("alice")])
    second = keep_run(error, [HumanMessage("bob")])
    assert first is error and second is not error and type(second) is StatusError
    assert second.status == 503 and second.args == ("server down",)
    assert [m.text for m in first.messages] == ["alice"]  # type: ignore[attr-defined]
    assert [m.text for m in second.messages] == ["bob"]  # type: ignore[attr-defined]
    assert len(second.__notes__) == 1 and "2 messages" not in second.__notes__[0]


def test_ctrl_c_during_a_sync_run_keeps_the_conversation() -> None:
    calls = {"n": 0}

    def reply(messages: list[Any]) -> AIMessage:
        calls["n"] += 1
        if calls["n"] == 2:  # Ctrl-C while the model answers after the tool ran
            raise KeyboardInterrupt
        return AIMessage("", tool_calls=[{"name": "echo", "args": {"x": "a"}, "id": "e1"}])

    agent = Agent(ScriptedChatModel([reply], cycle=True), [echo])
    with pytest.raises(KeyboardInterrupt) as caught:
        agent.invoke("go")
    kept = caught.value.messages  # type: ignore[attr-defined]
    assert [type(m).__name__ for m in kept] == ["HumanMessage", "AIMessage", "ToolMessage"]
    assert kept[2].text == "echo:a"
