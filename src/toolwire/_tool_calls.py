"""Telling a tool call from arguments in ``Tool.invoke``/``ainvoke`` (used by :mod:`toolwire.tools`).

* :func:`_is_tool_call`: whether ``invoke``'s input is a tool call. The exact ``{"name", "args", "id", "type"}``
  shape (benchmark B1) is told by one subset test; a typed call with more keys (a stream's ``index``, OpenAI's and
  MCP's ``arguments``...) gives None, and ``invoke`` answers it with :func:`answered`
  (:func:`aanswered` for ``ainvoke``), reading the call as :class:`~toolwire.execution.ToolExecutor` does
  (review 254 #1: it was read as the tool's arguments and refused).
* :func:`_require_call_id`: a tool call given to ``invoke`` needs an id for its ToolMessage to answer.
* :class:`ArgumentTextError`: a call's argument text that is no JSON object, which ``invoke`` answers with
  :func:`answered`, as :class:`~toolwire.execution.ToolExecutor` answers the call (review 262 #3).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolwire._call_records import _ARGUMENT_KEYS
from toolwire._failed_calls import identified
from toolwire._tool_run import _CURRENT_CALL, check_call_name
from toolwire.errors import ToolValidationError, UserError

_TOOL_CALL_KEYS = frozenset(("name", "args", "id", "type"))
_CALL_MARKS = frozenset(("id", *_ARGUMENT_KEYS))
"""Beside a text ``name``, one of these keys makes a typed dict with more keys a tool call."""


def _is_tool_call(value: Any) -> bool | None:
    """Whether ``invoke``'s input is a tool call rather than arguments: a mapping with ``"type": "tool_call"`` and
    either only the keys ``name``/``args``/``id``/``type`` (the ToolCall shape of LangChain and OpenAI-style messages)
    with ``args``, or ``name`` and ``id`` (a call of a tool without arguments may leave ``args`` out), or, with more
    keys, a text ``name`` and ``id`` or arguments (``args``, ``arguments``, ``input`` or ``parameters``), as
    LangChain's ``BaseTool.invoke`` and :class:`~toolwire.execution.ToolExecutor` take it. Arguments of a tool whose
    parameters happen to include ``type`` (given ``"tool_call"``) are read as a tool call only in these shapes.

    Returns:
        True for the ``{"name", "args", "id", "type"}`` shape, False for arguments, None for a tool call with more
        keys (answered by :func:`answered`: its reading costs more, so the exact shape does not pay for it). Never
        raises.
    """
    if not (type(value) is dict or isinstance(value, Mapping)) or value.get("type") != "tool_call":
        return False
    if _TOOL_CALL_KEYS.issuperset(value.keys()):  # (first: the exact shape, benchmark B1, pays for nothing more)
        return "args" in value or ("name" in value and "id" in value)
    if isinstance(value.get("name"), str) and not _CALL_MARKS.isdisjoint(value.keys()):
        return None
    return False


def _require_call_id(call: Mapping[str, Any], tool_name: str) -> None:
    """Refuse a tool call given to ``tool.invoke``/``ainvoke`` without an id (missing, None or ``""``): its
    ToolMessage would answer ``tool_call_id=""``, which providers refuse (the executor gives such calls an id).

    Raises:
        UserError: ``call`` has no non-empty ``"id"``.
    """
    found = call.get("id")
    if found is None or found == "":
        raise UserError(f"Tool '{tool_name}' was given a tool call without an \"id\": give the call a non-empty "
                        "\"id\" (its ToolMessage answers that id), or pass the arguments dict alone "
                        "(tool.invoke(call[\"args\"])) to get the plain value.")


class ArgumentTextError(ToolValidationError):
    """A tool call's argument text (a string or UTF-8 bytes) that cannot be read as a JSON object (``"[1, 2]"``, cut-off
    JSON, ``42``), or arguments given as a Python value that is no mapping (``[1, 2]``, ``42``: review 269 #3),
    raised by :meth:`~toolwire.tools.Tool.call_args`.

    Private to toolwire: users catch it as :class:`~toolwire.errors.ToolValidationError`. ``tool.invoke(tool_call)``
    and ``ainvoke`` answer the call whose ``args`` is ``raw`` itself (not a nested call the tool's own code made) with
    :func:`answered`/:func:`aanswered`: the error ToolMessage :class:`~toolwire.execution.ToolExecutor` answers it with
    (one implementation: the text received, and the advice to send the call again), or, for text the executor reads
    (a JSON string that gives a key twice), the executor's answer to the arguments it read.

    Attributes:
        raw: the arguments as given (str, bytes or bytearray; a list, a number...).
    """

    def __init__(self, message: str, tool_name: str | None = None, tool_call_id: str | None = None, *,
                 raw: Any = None) -> None:
        super().__init__(message, tool_name, tool_call_id)  # (defaults: pickle rebuilds it from its message alone,
        self.raw = raw  # then sets this attribute back)


def _read(tool: Any, call: Mapping[str, Any]) -> tuple[dict[str, Any], Any]:
    """``call`` read as :class:`~toolwire.execution.ToolExecutor` reads it (its ``prepared``, so
    :func:`~toolwire._call_records._checked_call`: arguments under ``args``, ``arguments``, ``input`` or
    ``parameters``, argument text decoded, a number id as text), and None; or, when it is an invalid call (arguments
    under two of these keys that differ, text that is no JSON object, nesting too deep), the error ToolMessage the
    executor answers it with. The call is refused first, as ``invoke`` refuses one, when it names another tool.

    Raises:
        UserError: the call has no id.
        ToolExecutionError: with the tool's ``handle_errors=False``, an invalid call, or one naming another tool.
    """
    _require_call_id(call, tool.name)
    from toolwire._executor_input import prepared

    read: dict[str, Any] = prepared(dict(call))  # type: ignore[assignment]
    if read["type"] == "tool_call":
        return read, None
    if read.get("name", tool.name) != tool.name:
        try:
            check_call_name(tool.name, read)
        except Exception as exc:
            if not tool.handle_errors:
                raise
            return read, tool._error_message(exc, read)
    from toolwire.execution import ToolExecutor

    return read, ToolExecutor([tool], handle_errors=tool.handle_errors)._invalid(read)  # type: ignore[arg-type]


class _Answer:
    """The answer of a tool call with more keys, for :func:`answered` and :func:`aanswered` (one implementation of
    both): made, it reads the call (:func:`_read`; ``message`` is then the refusal, if any); as a context manager, it
    runs the body with ``current_tool_call()`` giving the call as read (:meth:`args` checks the call's name), and
    turns an exception of the body into the error ToolMessage in ``message`` (raised again with
    ``handle_errors=False``, a ToolExecutionError naming the call: :func:`~toolwire._failed_calls.identified`)."""

    def __init__(self, tool: Any, call: Mapping[str, Any]) -> None:
        self.tool = tool
        self.read, self.message = _read(tool, call)

    def __enter__(self) -> dict[str, Any]:
        self.token = _CURRENT_CALL.set(self.read)
        return self.read

    def args(self) -> dict[str, Any]:
        """The arguments to run the tool with (the body's first step: a call naming another tool is refused)."""
        if self.read["name"] != self.tool.name:
            check_call_name(self.tool.name, self.read)
        return self.tool.call_args(self.read["args"])  # type: ignore[no-any-return]

    def __exit__(self, kind: Any, exc: BaseException | None, traceback: Any) -> bool:
        _CURRENT_CALL.reset(self.token)  # (first: identified() reads the call this one was made in from the context)
        if not isinstance(exc, Exception):
            return False
        if not self.tool.handle_errors:  # named by its call, as for the exact call shape (review 299 #2)
            if (own := identified(exc, self.tool.name, self.read.get("id"), call=self.read)) is exc:
                return False
            raise own from own.__cause__  # (one error object raised for another call too: this call's copy)
        self.message = self.tool._error_message(exc, self.read)  # (logged there at DEBUG: review 289 #2)
        return True


def answered(tool: Any, call: Mapping[str, Any], timeout: float | None) -> Any:
    """``tool.invoke(call)`` for a tool call with more keys (:func:`_is_tool_call` gives None): the ToolMessage
    :class:`~toolwire.execution.ToolExecutor` answers it with (see :func:`_read`; the result is not cut to a length),
    the tool run at most ``timeout`` seconds with ``current_tool_call()`` giving the call as read.

    Returns:
        A :class:`~toolwire.messages.ToolMessage` (``status="error"`` on failure unless ``handle_errors=False``).

    Raises:
        UserError, ToolExecutionError, Exception: as :meth:`~toolwire.tools.Tool.invoke` for a tool call.
    """
    answer = _Answer(tool, call)
    if answer.message is None:
        with answer as read:
            answer.message = tool._to_message(tool._run(answer.args(), timeout), read)
    return answer.message


async def aanswered(tool: Any, call: Mapping[str, Any], timeout: float | None) -> Any:
    """:func:`answered` for ``tool.ainvoke(call)``.

    Returns:
        A :class:`~toolwire.messages.ToolMessage`, as :func:`answered`.

    Raises:
        UserError, ToolExecutionError, Exception: as :meth:`~toolwire.tools.Tool.ainvoke` for a tool call.
    """
    answer = _Answer(tool, call)
    if answer.message is None:
        with answer as read:
            answer.message = tool._to_message(await tool._arun(answer.args(), timeout), read)
    return answer.message
