"""What a tool's function returned, made its result (used by :mod:`toolwire.tools`).

* :func:`settled_result`: a result of no common type that ``Tool._call`` got: a lazy iterator drained on the tool's
  thread, an awaitable or async generator from a sync function refused (review 265 #2; a generator-based
  ``@types.coroutine`` one too, review 269 #2).
* :func:`awaitable_error`: the one sentence that refusal says, for a tool call and for bare arguments alike.
* :func:`tool_message`: ``Tool._to_message`` for every result but text: a ToolMessage of the tool's own, a
  ``(content, artifact)`` pair, awaitables refused at the top, as the artifact, or inside the result where it is
  written as JSON (review 269 #2: ``[fetch(u) for u in urls]`` was a success of ``"<coroutine object ...>"`` texts).
"""

from __future__ import annotations

import collections
import dataclasses
import inspect
import itertools
import threading
import types
from collections.abc import Iterator, Mapping
from typing import Any

from pydantic import BaseModel

from toolwire._foreign_results import foreign_answer
from toolwire._result_json import Unawaited
from toolwire._tool_run import _call_id, drain
from toolwire.errors import ToolExecutionError, ToolResultError
from toolwire.messages import ToolMessage
from toolwire.results import result_to_content

_ASYNC_GENERATOR = types.AsyncGeneratorType


def _awaitable(value: Any) -> bool:
    return inspect.isawaitable(value) or type(value) is _ASYNC_GENERATOR


def awaitable_error(tool: Any, result: Any, *, inside: bool = False) -> ToolExecutionError:
    """The error of ``tool``'s function that returned an awaitable or async generator ``result`` where a result was
    due (a sync function, as a decorator without ``functools.wraps`` makes one of an ``async def``; or an ``async
    def`` whose value is one), said the same way for a tool call and for bare arguments; with ``inside``, one that
    ``result`` holds (a list of coroutines: ``asyncio.gather`` forgotten). Every coroutine in ``result`` is closed
    first, so that Python does not warn that it was never awaited.

    Returns:
        The :class:`~toolwire.errors.ToolExecutionError` (not raised).
    """
    _close(result, set(), 0)
    if inside and tool.is_async:  # (review 275 #6: an async def that forgot asyncio.gather is async already)
        return ToolExecutionError(f"Tool '{tool.name}' returned a result that holds an awaitable or async generator "
                                  "(a coroutine never awaited); await them inside the function (asyncio.gather for "
                                  "several) and return their values.", tool.name)
    if inside:
        return ToolExecutionError(f"Tool '{tool.name}' returned a result that holds an awaitable or async generator "
                                  "(a coroutine never awaited); declare the function `async def` and await them inside "
                                  "it (asyncio.gather for several), returning their values.", tool.name)
    if tool.is_async:
        return ToolExecutionError(f"Tool '{tool.name}' returned an awaitable or async generator instead of a result; "
                                  "await it inside the function and return its value.", tool.name)
    return ToolExecutionError(f"Tool '{tool.name}' returned an awaitable or async generator instead of a result; "
                              "declare the function `async def` (or keep functools.wraps on its decorator) so "
                              "toolwire awaits it.", tool.name)


_PLAIN = frozenset({str, int, float, bool, type(None), bytes, bytearray})


def _close(value: Any, seen: set[int], depth: int) -> None:
    """Close the coroutines and generator-based coroutines ``value`` is or holds (in dicts, lists, tuples, sets,
    pydantic models and dataclasses, 100 levels deep at most), on the way to an error: the result is not used."""
    if inspect.iscoroutine(value) or type(value) is types.GeneratorType:
        value.close()
        return
    for item in _parts(value, seen, depth):
        _close(item, seen, depth + 1)


_WALKED = (dict, list, tuple, set, frozenset, collections.deque)  # (containers an artifact is looked into)
_ARTIFACT_ITEMS = 10_000  # items of an artifact looked at, at most
_CONTAINER_ITEMS = 100  # of which the first ones of each container


def _coroutine(value: Any) -> bool:
    """Whether ``value`` is a coroutine (a generator-based ``@types.coroutine`` one too) or an async generator."""
    kind = type(value)
    return kind is types.CoroutineType or kind is _ASYNC_GENERATOR or (
        kind is types.GeneratorType and bool(value.gi_code.co_flags & inspect.CO_ITERABLE_COROUTINE))


def _holds_coroutine(artifact: Any) -> bool:
    """Whether an artifact holds a coroutine never awaited or an async generator, among the first
    :data:`_CONTAINER_ITEMS` items of each dict, list, tuple, set and deque in it (:data:`_ARTIFACT_ITEMS` in all),
    as a forgotten ``asyncio.gather`` leaves them (review 275 #6).

    The artifact goes to the application, not to the model, so this stays cheap (review 284 #1: walking all of a
    million records made such a tool 11 times slower, and a lazy Mapping, a ``shelve``, had every value read): a
    store-like Mapping or an object is not looked into, and a finished Task or Future, which holds its result, is
    no coroutine (review 284 #2)."""
    if _coroutine(artifact):
        return True
    stack, seen, budget = [artifact], set(), _ARTIFACT_ITEMS
    while stack and budget > 0:
        value = stack.pop()
        if not isinstance(value, _WALKED) or id(value) in seen:
            continue
        seen.add(id(value))
        items = value.values() if isinstance(value, dict) else value
        for item in itertools.islice(items, min(budget, _CONTAINER_ITEMS)):
            budget -= 1
            if type(item) not in _PLAIN:
                if _coroutine(item):
                    return True
                stack.append(item)
    return False


def _parts(value: Any, seen: set[int], depth: int) -> list[Any]:
    """The items of a container ``value`` that :func:`_close` walks into (none for text,
    a value seen before, one over 100 levels deep, or a container whose iteration fails); ``value`` is marked seen."""
    if depth > 100 or id(value) in seen or type(value) in _PLAIN:
        return []
    seen.add(id(value))
    if isinstance(value, Mapping):
        items: Any = value.values()
    elif isinstance(value, list | tuple | set | frozenset | collections.deque):
        items = value
    elif isinstance(value, BaseModel):
        items = value.__dict__.values()
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        items = [getattr(value, field.name, None) for field in dataclasses.fields(value)]
    else:
        return []
    try:
        return list(items)
    except Exception:  # (a container whose iteration fails: nothing in it is walked)
        return []


def settled_result(tool: Any, result: Any, stop: threading.Event | None) -> Any:
    """``result``, of no common type, as ``Tool._call`` returns it: a generator's or other lazy iterator's items
    gathered into a list now, on the tool's thread, inside its timeout (review 31), not later where the result is
    written (until ``stop`` is set: :func:`~toolwire._tool_run.drain`); anything else as it is.

    Raises:
        ToolExecutionError: ``tool`` is sync and ``result`` is an awaitable or an async generator (a generator-based
            ``@types.coroutine`` one too, which is no iterator to drain: review 269 #2), :func:`awaitable_error`'s
            (review 265 #2: bare arguments got the coroutine back, never awaited).
    """
    if not tool.is_async and _awaitable(result):
        raise awaitable_error(tool, result)
    if isinstance(result, Iterator):
        return list(result) if stop is None else drain(result, stop)
    return result


def tool_message(tool: Any, result: Any, call: Mapping[str, Any]) -> ToolMessage:
    """``tool._to_message(result, call)`` for any result but text of a ``"content"`` tool: the ToolMessage answering
    ``call`` with ``result``.

    A ToolMessage the tool returned (toolwire's or LangChain's, review 93) answers with its content, status and
    artifact, under the call's id; a ``content_and_artifact`` tool's pair gives the content and the artifact.

    Raises:
        ToolExecutionError: a ``content_and_artifact`` tool returned no ``(content, artifact)`` pair; the result, the
            content or the artifact is an awaitable or async generator, or the result holds one where it is written
            as JSON (:func:`awaitable_error`, its coroutines closed).
        ToolResultError: the result cannot be written as content (its ``result`` is what the tool returned).
    """
    if isinstance(result := foreign_answer(result, tool.name), ToolMessage):
        return ToolMessage(result.content, _call_id(call), name=tool.name, status=result.status,
                           artifact=result.artifact)
    artifact, returned = None, result
    if tool.response_format == "content_and_artifact":
        if not (isinstance(result, tuple) and len(result) == 2):
            raise ToolExecutionError(
                f"Tool '{tool.name}' has response_format='content_and_artifact' and must return a "
                f"(content, artifact) tuple, but returned {type(result).__name__}."
            )
        result, artifact = result
        if type(artifact) not in _PLAIN and _holds_coroutine(artifact):  # (review 269 #2, 275 #6: its work never ran)
            raise awaitable_error(tool, returned, inside=not _coroutine(artifact))
    if _awaitable(result):  # (an async tool's; a content part)
        raise awaitable_error(tool, returned)
    try:
        content = result_to_content(result)
    except ToolResultError as exc:
        if isinstance(exc.__cause__, Unawaited):  # an awaitable inside it, found as it was written (review 269 #2)
            raise awaitable_error(tool, returned, inside=True) from None
        exc.result = returned  # (the whole pair of a content_and_artifact tool: its artifact is not lost)
        raise
    return ToolMessage(content, _call_id(call), name=tool.name, artifact=artifact)
