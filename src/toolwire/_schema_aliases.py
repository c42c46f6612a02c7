"""The key a field given a ``validation_alias`` path is published under (review 294 #1).

Private to :mod:`toolwire._schema_shapes`, whose JSON Schema generator (the base of every tool schema's on pydantic's
path) asks :func:`published_key` for the key of each field whose ``validation_alias`` is a path or a choice of paths
(pydantic-core writes ``AliasPath("names", 0)`` as ``["names", 0]`` and ``AliasChoices`` as a list of such lists).

pydantic's JSON Schema names such a field by the first one-step key among its choices, and by its Python name when
there is none, a key validation refuses unless the model also takes fields by name (``populate_by_name``): every
call a model made under the schema was refused, with a message listing the very key it had sent (``'names.0' is
required but missing; 'first' is not a parameter ... Its parameters are: first``). A schema cannot show a path into
the arguments as the place of one field's value, so such a field is refused at decoration with a
:class:`~toolwire.errors.SchemaError` saying what to do. A lone one-step ``AliasPath("x")`` (``["x"]``), which pydantic
also published under the Python name, is published as ``x``, the key validation reads. A field the schema leaves
out (``SkipJsonSchema``, ``WithJsonSchema(None)``: a field filled from a nested path of a payload on purpose) shows
no key, so it is not refused (review 296 #1).
"""

from __future__ import annotations

from typing import Any

from pydantic_core import PydanticOmit

from toolwire.errors import SchemaError

__all__ = ["published_key"]


def published_key(generator: Any, field: dict[str, Any], name: str, key: str) -> str:
    """The key to publish the field ``name`` under, whose core schema ``field`` has a ``validation_alias`` list.

    Args:
        generator: the JSON Schema generator at work (its config says whether validation reads aliases and names;
            its ``core_root`` is the core schema it was given, searched for the field's class on error).
        field: the field's core schema (a model, TypedDict or dataclass field).
        name: the field's Python name.
        key: the key pydantic's generator picked (the first one-step key of its choices, else ``name``).

    Returns:
        ``key``, or the one step of a lone one-step ``AliasPath``.

    Raises:
        SchemaError: validation reads the field only through a path of more than one step (no one-step choice, and
            the field's name not accepted), which no JSON Schema can show, and the schema shows the field (one left
            out of it, by ``SkipJsonSchema`` or ``WithJsonSchema(None)``, is let be: review 296 #1).
    """
    alias = field["validation_alias"]
    paths = alias if alias and alias[0].__class__ is list else [alias]
    if [key] in paths:
        return key
    config = getattr(generator, "_config", None)
    by_alias = getattr(generator, "_by_alias", None)
    if not (getattr(config, "validate_by_alias", True) if by_alias is None else by_alias):
        return key  # (validation reads the name only, as published)
    one = next((path[0] for path in paths if len(path) == 1 and isinstance(path[0], str)), None)
    if one is not None:
        return one
    if getattr(config, "validate_by_name", False):
        return key
    if _omitted(generator, field):  # (left out of the schema, as SkipJsonSchema asks: no key is shown, review 296 #1)
        return key
    owner, top = _owner(getattr(generator, "core_root", None), field)
    if _injected(owner, name):  # (an args_schema's field LangChain fills: left out of the schema, which
        return key  # toolwire._tool_args.hide_injected_fields checks itself)
    raise _path_error(owner, top, name, paths, alias is paths)


def _omitted(generator: Any, field: dict[str, Any]) -> bool:
    """Whether ``generator`` leaves the field ``field`` out of the schema (its schema raises ``PydanticOmit``:
    ``SkipJsonSchema``, ``WithJsonSchema(None)``), found by generating it (on the error path only; pydantic generates
    it next in the same way, so nothing is kept that it would not keep)."""
    try:
        generator.generate_inner(field)
    except PydanticOmit:
        return True
    except Exception:  # (pydantic's own error for the field comes after ours)
        return False
    return False


def _injected(owner: type | None, name: str) -> bool:
    """Whether the field ``name`` of the pydantic model ``owner`` is marked for LangChain to fill
    (``InjectedToolArg``, ``InjectedToolCallId``)."""
    from toolwire._tool_checks import langchain_marker

    info = (getattr(owner, "__pydantic_fields__", None) or {}).get(name)
    return any(langchain_marker(m) is not None for m in getattr(info, "metadata", None) or ())


def _shown_path(path: list[Any]) -> str:
    return f"AliasPath({', '.join(map(repr, path))})"


def _path_error(owner: type | None, top: bool, name: str, paths: list[list[Any]], choices: bool) -> SchemaError:
    """The error for the field ``name`` of ``owner`` (``top``: the tool's parameters) validation reads only through
    ``paths`` (``choices``: an ``AliasChoices``)."""
    shown = ", ".join(_shown_path(path) for path in paths)
    written = f"AliasChoices({shown})" if choices else shown
    where = " or ".join(repr(".".join(map(str, path))) for path in paths)
    if top:
        what = f"parameter {name!r}"
    else:
        what = f"the field {name!r}" + (f" of {owner.__name__}" if owner is not None else "")
    return SchemaError(
        f"Cannot build a JSON Schema for {what}: it takes its value from the path {where} of the arguments "
        f"(validation_alias={written}), which a JSON Schema cannot show, so a model could never send it; give it a "
        f"key of its own, such as validation_alias=AliasChoices({name!r}, {shown}) (the "
        f"{'paths kept as further choices' if len(paths) > 1 else 'path kept as a second choice'}) or a one-step "
        "alias.")


_CLASS_NODES = frozenset(("model", "dataclass", "typed-dict"))


def _owner(root: Any, field: dict[str, Any]) -> tuple[type | None, bool]:
    """``(the class whose fields hold field, whether it is the arguments' own TypedDict toolwire made of a function's
    parameters)``, found by walking the core schema ``root`` (on the error path only); ``(None, False)`` when not
    found."""
    stack: list[tuple[Any, type | None, bool]] = [(root, None, False)]  # (node, its class, that class outermost)
    seen: set[int] = set()
    while stack:
        node, cls, top = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, list):
            stack.extend((item, cls, top) for item in node if isinstance(item, dict | list))
            continue
        if not isinstance(node, dict):
            continue
        if node.get("type") in _CLASS_NODES and isinstance(node.get("cls"), type):
            cls, top = node["cls"], cls is None
        fields = node.get("fields")
        held = fields.values() if isinstance(fields, dict) else fields if isinstance(fields, list) else ()
        if any(item is field for item in held):
            return cls, top and cls is not None and cls.__module__.startswith("toolwire.")
        stack.extend((value, cls, top) for value in node.values() if isinstance(value, dict | list))
    return None, False
