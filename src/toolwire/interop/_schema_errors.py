"""Validation errors of a JSON Schema tool's arguments, as message parts (moved from
:mod:`toolwire.interop.openai_tools`, which uses them: review 191 #4).

Private to :mod:`toolwire.interop.openai_tools`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolwire._printing import safe_text
from toolwire._schema_patterns import pattern_found

__all__ = ["describe_error"]

_UNEVALUATED = "Unevaluated properties are not allowed ("


def _short(value: Any, limit: int = 80) -> str:
    text = safe_text(value)  # (a value whose repr raises: "<TypeName>", review 141 #6)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _loc(path: Any, extra: str | None = None) -> str:
    parts = [str(p) for p in path]
    if extra is not None:
        parts.append(extra)
    return ".".join(parts)


def _unevaluated_names(message: str, instance: Mapping[Any, Any]) -> list[Any]:
    """The keys of ``instance`` an ``unevaluatedProperties: false`` error's ``message`` names (``Unevaluated
    properties are not allowed ('z', 'y' were unexpected)``, as ``jsonschema`` and :mod:`toolwire._schema_patterns`
    write it: their ``repr``\\ s sorted by text); empty when the message does not name exactly such keys."""
    for ending in (" was unexpected)", " were unexpected)"):
        if message.startswith(_UNEVALUATED) and message.endswith(ending):
            names = message[len(_UNEVALUATED):-len(ending)]
            found = sorted((k for k in instance if isinstance(k, str) and repr(k) in names), key=str)
            return found if found and ", ".join(repr(k) for k in found) == names else []
    return []


def describe_error(error: Any) -> tuple[list[str], bool]:
    """Turn one ``jsonschema.ValidationError`` into message parts for a person or a model to act on.

    Args:
        error: a ``jsonschema.ValidationError`` from a validator's ``iter_errors``.

    Returns:
        ``(parts, unknown)``: the message parts (``"'b' is required but missing"``, ``"'z' is not a parameter of
        this tool (got 2)"``, else ``"'path': <jsonschema's message>"``) and whether a key the arguments' object
        does not declare came (at the top level). For ``additionalProperties`` the keys are those the same schema's
        ``properties``/``patternProperties`` leave out; for ``unevaluatedProperties: false`` those the error names,
        the keys no subschema (``allOf``, ``$ref``...) evaluated (review 191 #4).
    """
    path = list(error.absolute_path)
    instance = error.instance
    if error.validator == "required" and isinstance(instance, Mapping):
        missing = [r for r in error.validator_value if r not in instance]
        return [f"'{_loc(path, r)}' is required but missing" for r in missing], False
    if error.validator == "unevaluatedProperties" and isinstance(instance, Mapping):
        extras = _unevaluated_names(error.message, instance) if error.validator_value is False else []
        if extras:  # (keys no subschema declares: a key ``allOf`` declares is not one, review 191 #4)
            what = "a parameter of this tool" if not path else "an allowed field here"
            return [f"'{_loc(path, k)}' is not {what} (got {_short(instance[k])})" for k in extras], not path
    elif error.validator == "additionalProperties" and isinstance(instance, Mapping):
        schema = error.schema if isinstance(error.schema, Mapping) else {}
        known = schema.get("properties") or {}
        patterns = list(schema.get("patternProperties") or {})
        extras = [k for k in instance if k not in known and not any(pattern_found(p, k) for p in patterns)]
        if extras:
            what = "a parameter of this tool" if not path else "an allowed field here"
            return [f"'{_loc(path, k)}' is not {what} (got {_short(instance[k])})" for k in extras], not path
    return [f"'{_loc(path) or '(arguments)'}': {error.message}"], False
