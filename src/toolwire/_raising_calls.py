"""The calls of one reply that raise rather than answer their failures, checked before any of them runs.

Under ``ToolExecutor(handle_errors=False)`` every call raises its failure; under the default ``handle_errors=True``,
only the calls of a tool made with ``handle_errors=False`` do (a payment a user wants stopped on a bad call). Either
way the same rules keep raising safe (review 213 #2: the tool's own flag refused its call inside its own task while the
other calls started, so which of them ran was left to timing, and sync and async differed):

* every raising call is checked before any call runs, in call order (:func:`checked_first`);
* the first one refused (not a valid call, an unknown tool, invalid arguments) keeps the calls after it from
  starting, and its error is raised once the calls before it have run, unless one of those failed;
* the first failure in call order is the one raised.

The calls that answer their failures (an ordinary tool's, under ``handle_errors=True``) are not checked here: a
refused one is answered with its error when it runs, and does not stop the others.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toolwire._tool_run import _running

if TYPE_CHECKING:
    from toolwire.execution import ToolExecutor

__all__ = ["checked_first", "raises"]


def raises(executor: ToolExecutor, call: Any) -> bool:
    """Whether ``call`` (a prepared tool call or invalid call) raises its failure rather than answering it: every call
    under ``handle_errors=False``, else a well-formed call of a tool made with ``handle_errors=False``.

    Returns:
        True or False; never raises.
    """
    if not executor.handle_errors:
        return True
    if not isinstance(call, dict) or call.get("type") != "tool_call" or not isinstance(call.get("name"), str):
        return False
    tool = executor.tools.get(call["name"])
    return tool is not None and not tool.handle_errors


def checked_first(executor: ToolExecutor, calls: list[Any]
                  ) -> tuple[list[Any], list[dict[str, Any] | None], BaseException | None]:
    """Check the raising calls of ``calls`` (:func:`raises`) before any runs, in call order, up to the first one
    refused (not a valid call, an unknown tool, invalid arguments).

    Args:
        executor: the executor that runs the calls.
        calls: the reply's calls (and, under ``handle_errors=False``, its invalid calls), in the model's order.

    Returns:
        ``(the calls before the refused one, their checked keyword arguments, its failure)``: ``None`` for the
        arguments of a call not checked here (it answers its own refusal when it runs), and for the failure when no
        call was refused.
    """
    checked_args: list[dict[str, Any] | None] = []
    for index, call in enumerate(calls):
        if not raises(executor, call):
            checked_args.append(None)
            continue
        try:
            if call["type"] != "tool_call":
                executor._invalid(call)  # raises (handle_errors=False)
            tool = executor.tools.get(call.get("name")) if isinstance(call.get("name"), str) else None
            if tool is None:
                raise executor._unknown(call)
            with _running(call):  # (the call id an InjectedToolCallId parameter gets)
                checked_args.append(tool.call_args(call.get("args")))
        except Exception as exc:
            return calls[:index], checked_args, exc
    return calls, checked_args, None
