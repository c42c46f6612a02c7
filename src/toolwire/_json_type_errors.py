"""The one-sentence :class:`~toolwire.errors.SchemaError` for a parameter whose type has no JSON Schema (used by
:mod:`toolwire.schema`): the parameter, or a pydantic model's field, is named with its type and what to do.

LangChain v1's ``ToolRuntime`` (LangGraph's ``ToolNode`` fills it, review 275 #7) gets its own advice: it has no JSON
type to give, and toolwire's ``current_tool_call()`` gives what it carries about the call.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel

from toolwire.errors import SchemaError

__all__ = ["no_json_schema_error", "tool_runtime"]


def tool_runtime(annotation: Any) -> bool:
    """Whether ``annotation`` is LangChain v1's ``ToolRuntime`` (``ToolRuntime[Ctx, State]`` too): a subclass of
    ``langchain_core``'s ``_DirectlyInjectedToolArg``, read by class names so that langchain need not be imported."""
    cls = getattr(annotation, "__origin__", annotation)
    return isinstance(cls, type) and any(c.__name__ == "_DirectlyInjectedToolArg"
                                         and c.__module__.startswith("langchain_core") for c in cls.__mro__[1:])


def no_json_schema_error(what: str, exc: BaseException, params: Iterable[tuple[str | None, Any]] = ()) -> SchemaError:
    """The error for a signature (or model) pydantic cannot write a JSON Schema of (``exc``): one sentence naming the
    first of ``params`` (``(name, annotation)`` pairs; a pydantic model's fields are looked into) whose type has
    none, and what to do. pydantic's own message runs to several paragraphs and advises ``arbitrary_types_allowed``,
    a setting of a model class that a tool's author cannot reach (review 68): only its first sentence is kept, and
    only when no parameter is found to blame.

    Args:
        what: the thing being built, as the message names it (``"tool 'query'"``, a model's name).
        exc: pydantic's error.
        params: the parameters to try one at a time, in signature order; a ``None`` name stands for the whole
            of ``what`` (a model class, whose fields are tried).

    Returns:
        The :class:`SchemaError` to raise.
    """
    found = _without_json_schema(params)
    if found is None:
        first = str(exc).strip().split("\n", 1)[0].split(". Set `arbitrary_types_allowed", 1)[0].rstrip(".")
        return SchemaError(f"Cannot build a JSON Schema for {what}: {first}; give every parameter a JSON type (str, "
                           "int, float, bool, a list, a dict, a pydantic model...).")
    path, annotation = found
    if tool_runtime(annotation) and "." not in path:
        return SchemaError(
            f"Cannot build a JSON Schema for {what}: parameter {path!r} is LangChain's ToolRuntime, which LangGraph "
            "fills and toolwire does not; take it out and call toolwire.current_tool_call() inside the function for "
            f"the call being run, or fix its value with functools.partial(func, {path}=...) before making the tool.")
    shown = repr(annotation)
    if isinstance(annotation, type):  # a class by its dotted name, not "<class '...'>"
        module = annotation.__module__
        shown = annotation.__qualname__ if module in ("builtins", "__main__") else f"{module}.{annotation.__qualname__}"
    if "." in path or any(name is None for name, _ in params):  # a model's field: the model must change
        return SchemaError(f"Cannot build a JSON Schema for {what}: the field {path!r} is typed {shown}, which has no "
                           "JSON form a model could send; give it a JSON type (str, int, float, bool, a list, a dict, "
                           "a pydantic model...).")
    return SchemaError(
        f"Cannot build a JSON Schema for {what}: parameter {path!r} is typed {shown}, which has no JSON form a model "
        "could send; give it a JSON type (str, int, float, bool, a list, a dict, a pydantic model...), or supply it "
        f"yourself so the model never sees it (functools.partial(func, {path}=...), or an attribute of self in a "
        "tool method).")


def _without_json_schema(params: Iterable[tuple[str | None, Any]], seen: frozenset[type] = frozenset()
                         ) -> tuple[str, Any] | None:
    """The first ``(path, annotation)`` of ``params`` whose type pydantic cannot write a JSON Schema of, looking into
    pydantic models' fields (``"m.cb"``; a model met again on the way, ``seen``, is not looked into twice), or None."""
    from pydantic import TypeAdapter

    from toolwire._schema_strict import StrictJsonSchema  # (which refuses more than pydantic's: review 94)

    for name, annotation in params:
        if isinstance(annotation, type) and issubclass(annotation, BaseModel) and annotation not in seen:
            inner = _without_json_schema(((f"{name}.{key}" if name else key, info.annotation)
                                          for key, info in annotation.model_fields.items()), seen | {annotation})
            if inner is not None:
                return inner
        if name is None:
            continue
        try:
            TypeAdapter(annotation).json_schema(schema_generator=StrictJsonSchema)
        except Exception:  # this one's type has no JSON Schema
            return name, annotation
    return None
