"""The validation error of arguments that fit no branch of a tagged union, said as what to fix (review 198 #5).

A JSON-Schema tool whose arguments are a ``oneOf``/``anyOf`` of objects told apart by a tag (``{"op": {"const":
"add"}, "text": ...}`` or ``{"op": {"const": "delete"}, "id": ...}``, an MCP "action" tool) is sent to the providers
folded into one object, its description saying which keys go with which tag
(:func:`~toolwire.models.lowering._object_union.merge_object_union`). A call that mixes them (``{"op": "add", "id":
3}``) got ``jsonschema``'s "is not valid under any of the given schemas", which does not say what to fix; here the
errors of the branch its tag picks are given instead (``with op "add": 'text' is required but missing; 'id' is not
a parameter of this tool (got 3)``), or, for a tag that picks none, the tags there are. A union that may also be
null (``anyOf: [A, B, {"type": "null"}]``, what pydantic writes for ``A | B | None``, or OpenAPI's ``nullable:
true`` beside a ``oneOf``) is read without its null branch, for a value that is not null (review 204 #5).

Private to :mod:`toolwire.interop.openai_tools`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from toolwire.interop._schema_errors import describe_error as _describe_one

__all__ = ["describe_error"]


def _shown(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _is_null(branch: Any) -> bool:
    """Whether the union branch ``branch`` takes ``null`` only (``{"type": "null"}``, ``{"const": null}``)."""
    if not isinstance(branch, dict) or "properties" in branch:
        return False
    kind = branch.get("type")
    return kind == "null" or kind == ["null"] or ("const" in branch and branch["const"] is None) or (
        branch.get("enum") == [None])


def _nullable_union(error: Any, branches: list[Any]) -> tuple[list[str], bool] | None:
    """For a union that is another union or null (OpenAPI's ``nullable: true`` beside a ``oneOf``, written
    ``anyOf: [{oneOf: [...]}, {"type": "null"}]``; pydantic's optional discriminated union): what :func:`_tagged`
    gives for the inner union's error, or ``None``."""
    kept = [i for i, b in enumerate(branches) if not _is_null(b)]
    if len(kept) != 1 or len(kept) == len(branches) or not isinstance(branches[kept[0]], dict):
        return None
    for sub in error.context or ():
        if list(sub.relative_schema_path)[:1] == kept and sub.validator in ("oneOf", "anyOf") and \
                len(sub.relative_schema_path) == 2:
            return _tagged(sub)
    return None


def _tagged(error: Any) -> tuple[list[str], bool] | None:
    """The parts :func:`describe_error` gives for a tagged union's error, or ``None`` for any other error. A branch
    that takes ``null`` only (pydantic's ``A | B | None``, OpenAPI's ``nullable: true``) is left out of the union,
    as a value whose error this is is not null (review 204 #5)."""
    if error.validator not in ("oneOf", "anyOf") or not isinstance(error.instance, Mapping):
        return None
    from toolwire.models.lowering._object_union import union_tag

    branches = error.validator_value
    if not isinstance(branches, list):
        return None
    kept = [i for i, b in enumerate(branches) if not _is_null(b)]  # each branch's index in ``branches``
    found = union_tag([branches[i] for i in kept])
    if found is None:
        return _nullable_union(error, branches)
    tag, values = found
    path = [str(p) for p in error.absolute_path]
    where = ".".join([*path, tag])
    tags = ", ".join(_shown(v) for v in values)
    if tag not in error.instance:
        return [f"'{where}' is required but missing (one of {tags})"], False
    picked = [i for i, v in enumerate(values) if v == error.instance[tag] and type(v) is type(error.instance[tag])]
    if not picked:
        return [f"'{where}' must be one of {tags} (got {_shown(error.instance[tag])})"], False
    parts: list[str] = []
    unknown = False
    for sub in error.context or ():
        if sub.relative_schema_path and sub.relative_schema_path[0] == kept[picked[0]]:
            described, extra = describe_error(sub)
            parts.extend(p for p in described if p not in parts)
            unknown = unknown or extra
    if not parts:  # (it fits the branch its tag picks, and also another one of a oneOf)
        return None
    return [f"with {tag} {_shown(values[picked[0]])}: {parts[0]}", *parts[1:]], unknown


def describe_error(error: Any) -> tuple[list[str], bool]:
    """:func:`toolwire.interop._schema_errors.describe_error`, and for arguments (or a value in them) that fit no
    branch of a tagged union, the errors of the branch the tag picks (module doc).

    Args:
        error: a ``jsonschema.ValidationError`` from a validator's ``iter_errors``.

    Returns:
        ``(parts, unknown)`` as :func:`toolwire.interop._schema_errors.describe_error` returns them.
    """
    return _tagged(error) or _describe_one(error)
