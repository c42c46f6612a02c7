"""Review 299 #1: an error of a tool call a tool made itself (``handle_errors=False``), named by that inner call, keeps
the inner call's identity and message when it passes out of the outer call; only one error object raised for two
different calls at the same level (a module-level instance) is copied for the second call.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from typing import Any

import pytest

from toolwire import ToolExecutor, tool
from toolwire._failed_calls import identified
from toolwire.errors import ToolExecutionError, ToolResultError, ToolValidationError


def call(call_id: str, name: str, args: object) -> dict:
    return {"id": call_id, "name": name, "args": args, "type": "tool_call"}


@tool(handle_errors=False)
def fetch_page(page: int) -> bytes:
    """Fetch a page."""
    return b"\xff\xfe raw"


@tool(handle_errors=False)
def lookup_user(user_id: int) -> str:
    """Look a user up."""
    return "ok"


@tool
def export(n: int) -> str:
    """Export through a nested executor run of fetch_page."""
    return ToolExecutor([fetch_page], handle_errors=False).execute([call("inner_fetch", "fetch_page", {"page": n})])[0]


@tool
async def aexport(n: int) -> str:
    """Export through a nested async executor run of fetch_page."""
    executor = ToolExecutor([fetch_page], handle_errors=False)
    return (await executor.aexecute([call("inner_fetch", "fetch_page", {"page": n})]))[0]


@tool
def report(n: int) -> str:
    """Report through a nested executor run of lookup_user with bad arguments."""
    executor = ToolExecutor([lookup_user], handle_errors=False)
    return executor.execute([call("inner_lookup", "lookup_user", {"user_id": "abc"})])[0]


@tool
def outer(n: int) -> str:
    """Two levels down: calls export through an executor of its own."""
    return ToolExecutor([export], handle_errors=False).execute([call("middle", "export", {"n": n})])[0]


@tool
def export_invoke(n: int) -> str:
    """Export through fetch_page.invoke(tool_call)."""
    return fetch_page.invoke(call("inner_fetch", "fetch_page", {"page": n})).content


def _run(executor: ToolExecutor, calls: list[dict], how: str) -> None:
    if how == "execute":
        executor.execute(calls)
    else:
        asyncio.run(executor.aexecute(calls))


@pytest.mark.parametrize("how", ["execute", "aexecute"])
@pytest.mark.parametrize("outer_tool", [export, aexport])
def test_nested_result_error_keeps_the_inner_call(outer_tool, how: str) -> None:
    executor = ToolExecutor([outer_tool], handle_errors=False)
    with pytest.raises(ToolResultError) as caught:
        _run(executor, [call("outer_1", outer_tool.name, {"n": 1})], how)
    assert (caught.value.tool_name, caught.value.tool_call_id) == ("fetch_page", "inner_fetch")
    assert str(caught.value).startswith("Tool 'fetch_page' returned bytes")


@pytest.mark.parametrize("how", ["execute", "aexecute"])
def test_nested_validation_error_keeps_the_inner_call(how: str) -> None:
    executor = ToolExecutor([report], handle_errors=False)
    with pytest.raises(ToolValidationError) as caught:
        _run(executor, [call("outer_1", "report", {"n": 1})], how)
    assert (caught.value.tool_name, caught.value.tool_call_id) == ("lookup_user", "inner_lookup")
    assert "lookup_user" in str(caught.value)


def test_two_levels_down_keep_the_innermost_call() -> None:
    with pytest.raises(ToolResultError) as caught:
        ToolExecutor([outer], handle_errors=False).execute([call("top", "outer", {"n": 1})])
    assert (caught.value.tool_name, caught.value.tool_call_id) == ("fetch_page", "inner_fetch")
    assert str(caught.value).startswith("Tool 'fetch_page' returned bytes")


def test_nested_error_through_tool_invoke_of_the_outer_call() -> None:
    with pytest.raises(ToolResultError) as caught:
        tool(handle_errors=False)(export.func).invoke(call("outer_1", "export", {"n": 1}))
    assert (caught.value.tool_name, caught.value.tool_call_id) == ("fetch_page", "inner_fetch")


def test_identified_keeps_an_identity_a_call_inside_this_one_wrote() -> None:
    """The step Tool.invoke(tool_call) takes, given the call it was made in (``enclosing``)."""
    exc = ToolResultError("The tool returned bytes that are not UTF-8 text.")
    inner = identified(exc, "fetch_page", "inner_fetch", call("outer_1", "export", {}))
    assert inner is exc and str(exc).startswith("Tool 'fetch_page'")
    assert identified(exc, "export", "outer_1", None) is exc
    assert (exc.tool_name, exc.tool_call_id) == ("fetch_page", "inner_fetch")
    assert str(exc).startswith("Tool 'fetch_page'")
    other = identified(exc, "fetch_page", "sibling", None)  # (a later call at the top level: its own copy)
    assert other is not exc and (other.tool_name, other.tool_call_id) == ("fetch_page", "sibling")


def test_identified_takes_the_context_as_the_enclosing_call() -> None:
    """Without ``enclosing``, the current tool call (when it is not the named call itself) is the enclosing one."""
    from toolwire._tool_run import _CURRENT_CALL

    exc = ToolResultError("The tool returned bytes that are not UTF-8 text.")

    def inside() -> None:
        _CURRENT_CALL.set(call("outer_1", "export", {}))
        identified(exc, "fetch_page", "inner_fetch")

    contextvars.copy_context().run(inside)
    assert identified(exc, "export", "outer_1") is exc
    assert (exc.tool_name, exc.tool_call_id) == ("fetch_page", "inner_fetch")


def test_nested_error_of_an_inner_tool_invoke_keeps_the_inner_call() -> None:
    with pytest.raises(ToolResultError) as caught:
        ToolExecutor([export_invoke], handle_errors=False).execute([call("outer_1", "export_invoke", {"n": 1})])
    assert (caught.value.tool_name, caught.value.tool_call_id) == ("fetch_page", "inner_fetch")


SHARED = ToolExecutionError("backend down")
_barrier = threading.Barrier(2)


@tool
def hit(x: int) -> int:
    """Raises the module-level error after both calls started."""
    _barrier.wait(5)
    raise SHARED


def test_shared_error_of_two_parallel_threads_names_each_call() -> None:
    executor = ToolExecutor([hit], handle_errors=False)
    ids = _ids_in_two_threads(lambda call_id: executor.execute([call(call_id, "hit", {"x": 1})]))
    assert ids == {"A": "A", "B": "B"}


def _ids_in_two_threads(run_call: Any) -> dict[str, Any]:
    """``run_call(call_id)`` for the calls ``A`` and ``B`` in two threads at once: each call's raised error's id."""
    caught: dict[str, ToolExecutionError] = {}

    def run(call_id: str) -> None:
        try:
            run_call(call_id)
        except ToolExecutionError as exc:
            caught[call_id] = exc

    threads = [threading.Thread(target=run, args=(c,)) for c in ("A", "B")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return {c: e.tool_call_id for c, e in caught.items()}


ASHARED = ToolValidationError("shared bad")


@tool
async def ahit(x: int) -> int:
    """Raises the module-level error."""
    await asyncio.sleep(0)
    raise ASHARED


def test_shared_error_of_two_parallel_tasks_names_each_call() -> None:
    executor = ToolExecutor([ahit], handle_errors=False)

    async def main() -> list:
        return await asyncio.gather(executor.aexecute([call("P", "ahit", {"x": 1})]),
                                    executor.aexecute([call("Q", "ahit", {"x": 2})]), return_exceptions=True)

    errors = asyncio.run(main())
    assert [(e.tool_name, e.tool_call_id) for e in errors] == [("ahit", "P"), ("ahit", "Q")]


def test_shared_error_of_two_calls_in_one_reply_names_each_call() -> None:
    seen: list[str] = []
    shared = ToolExecutionError("down")

    @tool(handle_errors=False)
    def both(x: int) -> int:
        """Raises one error object."""
        raise shared

    for call_id in ("one", "two", "one"):
        with pytest.raises(ToolExecutionError) as caught:
            ToolExecutor([both], handle_errors=False).execute([call(call_id, "both", {"x": 1})])
        seen.append(caught.value.tool_call_id)
    assert seen == ["one", "two", "one"]


TSHARED = ToolExecutionError("quota")
_invoke_barrier = threading.Barrier(2)


@tool(handle_errors=False)
def quota(x: int) -> int:
    """Raises the module-level error after both calls started."""
    _invoke_barrier.wait(5)
    raise TSHARED


def test_shared_error_of_two_parallel_tool_invokes_names_each_call() -> None:
    assert _ids_in_two_threads(lambda call_id: quota.invoke(call(call_id, "quota", {"x": 1}))) == {"A": "A", "B": "B"}


def test_shared_error_of_two_parallel_tool_ainvokes_names_each_call() -> None:
    shared = ToolExecutionError("quota")

    @tool(handle_errors=False)
    async def aquota(x: int) -> int:
        """Raises one error object."""
        await asyncio.sleep(0)
        raise shared

    async def main() -> list:
        return await asyncio.gather(aquota.ainvoke(call("P", "aquota", {"x": 1})),
                                    aquota.ainvoke(call("Q", "aquota", {"x": 1})), return_exceptions=True)

    assert [e.tool_call_id for e in asyncio.run(main())] == ["P", "Q"]


_NOT_FOUND = ToolExecutionError("record not found")


@tool(handle_errors=False)
def _fetch_record(key: str) -> str:
    """Fetch a record."""
    raise _NOT_FOUND


@tool(handle_errors=False)
def _look_up(key: str) -> str:
    """Look a record up."""
    return _fetch_record.invoke({"name": "_fetch_record", "args": {"key": key}, "id": "fetch_1",
                                 "type": "tool_call"}).content  # type: ignore[no-any-return]


def test_one_error_object_of_an_inner_call_with_a_fixed_id_keeps_its_identity_each_turn() -> None:
    """Review 306 #3: from the second top-level call on, the error took the outer call's identity."""
    for outer in ("call_a", "call_b", "call_c"):
        with pytest.raises(ToolExecutionError) as caught:
            _look_up.invoke({"name": "_look_up", "args": {"key": "k"}, "id": outer, "type": "tool_call"})
        assert (caught.value.tool_name, caught.value.tool_call_id) == ("_fetch_record", "fetch_1")
