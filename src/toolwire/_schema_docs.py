"""Descriptions of the fields of a class that a tool takes (a pydantic model, a dataclass, a TypedDict), read
from the class itself (review 124 #8).

Private to :mod:`toolwire._schema_strict` and :mod:`toolwire._schema_fast`, which write a class's JSON Schema the
same way. pydantic writes a class's whole docstring as its ``description``, an ``Attributes:`` section included,
and that description is replaced by the parameter's own when the function's ``Args:`` documents it, so the fields
lost their descriptions. Here, as :func:`toolwire.schema.model_schema` does for an ``args_schema`` class:

* a field without a description of its own takes the text of an ``Annotated[T, "text"]`` hint (which pydantic
  ignores), else its entry in the class docstring's ``Attributes:`` (or ``Args:``) section;
* when that docstring has such a section, the class's description is its summary and body, sections left out.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import typing
from typing import Annotated, Any, get_args, get_origin

from toolwire._signature import _parse_docstring

__all__ = ["describe_class"]


def _text(metadata: Any) -> str | None:
    return next((m for m in metadata if isinstance(m, str)), None)


def _annotated_texts(cls: type) -> dict[str, str]:
    """``{field name or alias: text}`` of the fields of ``cls`` hinted ``Annotated[T, "text"]``."""
    fields = cls.__dict__.get("__pydantic_fields__")  # (a pydantic model or dataclass)
    if isinstance(fields, dict):
        out: dict[str, str] = {}
        for name, info in fields.items():
            text = _text(getattr(info, "metadata", ()) or ())
            if text:
                out[name] = text
                alias = info.validation_alias if isinstance(info.validation_alias, str) else info.alias
                if isinstance(alias, str):
                    out[alias] = text
        return out
    if not dataclasses.is_dataclass(cls):
        return {}
    try:
        hints = typing.get_type_hints(cls, include_extras=True)
    except Exception:  # (an unresolved forward reference: pydantic says so itself)
        return {}
    return {f.name: text for f in dataclasses.fields(cls)
            if get_origin(hint := hints.get(f.name)) is Annotated and (text := _text(get_args(hint)[1:]))}


@functools.lru_cache(maxsize=1024)
def _class_texts(cls: type) -> tuple[str | None, str | None, dict[str, str]]:
    """``(docstring as pydantic writes it, description to write instead or None, {field: text})`` of ``cls``."""
    doc = cls.__dict__.get("__doc__")
    written = inspect.cleandoc(doc) if isinstance(doc, str) else None
    summary, documented = _parse_docstring(doc) if written else ("", {})
    return written, (summary if documented else None), {**documented, **_annotated_texts(cls)}


def describe_class(body: dict[str, Any], cls: Any) -> dict[str, Any]:
    """Describe the fields of the JSON Schema ``body`` pydantic wrote for the class ``cls`` (see the module).

    Args:
        body: the class's object schema (``{"properties": {...}, "description": docstring, ...}``), changed in
            place; a property that has a ``description`` keeps it.
        cls: the model, dataclass or TypedDict class (anything else leaves ``body`` as it is).

    Returns:
        ``body``.
    """
    if not isinstance(cls, type) or not isinstance(body.get("properties"), dict):
        return body
    try:
        written, summary, texts = _class_texts(cls)
    except TypeError:  # (an unhashable class)
        return body
    if summary is not None and body.get("description") == written:
        if summary:
            body["description"] = summary
        else:
            del body["description"]
    for key, prop in body["properties"].items():
        text = texts.get(key)
        if text and isinstance(prop, dict) and "description" not in prop:
            body["properties"][key] = {**prop, "description": text}
    return body
