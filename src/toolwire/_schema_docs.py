"""Descriptions of the fields of a class that a tool takes (a pydantic model, a dataclass, a TypedDict), read
from the class itself (review 124 #8).

Private to :mod:`toolwire._schema_strict` and :mod:`toolwire._schema_fast`, which write a class's JSON Schema the
same way. pydantic writes a class's whole docstring as its ``description``, an ``Attributes:`` section included,
and that description is replaced by the parameter's own when the function's ``Args:`` documents it, so the fields
lost their descriptions. Here, as :func:`toolwire.schema.model_schema` does for an ``args_schema`` class:

* a field without a description of its own takes the text of an ``Annotated[T, "text"]`` hint (which pydantic
  ignores), else its entry in the class docstring's ``Attributes:`` (or ``Args:``) section;
* the class's description is its docstring without the entries whose text went to a field (review 127 #5): every
  other part stays, the summary, the body, the other sections (``Note:``, ``Example:``) and the entries that name
  no field (a ``ClassVar``), and a section whose entries all went loses its title too. The entries are found as
  Google style writes them (:func:`_without_entries`); a docstring where they cannot be (another style) stays
  whole, its entries then both in the description and on the fields.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import re
import typing
from typing import Annotated, Any, get_args, get_origin

import docstring_parser.google

from toolwire._signature import _GOOGLE, _NAMES_SEP, _indent_leading_section, _parse_docstring

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
def _class_texts(cls: type) -> tuple[str | None, dict[str, str], dict[str, str]]:
    """``(docstring as pydantic writes it, {name: its docstring entry's text}, {field: Annotated text})`` of
    ``cls``."""
    doc = cls.__dict__.get("__doc__")
    written = inspect.cleandoc(doc) if isinstance(doc, str) else None
    documented = _parse_docstring(doc)[1] if written else {}
    return written, documented, _annotated_texts(cls)


_ENTRY_SECTIONS = frozenset(title for title, section in _GOOGLE.sections.items()
                            if section.key in ("param", "attribute")
                            and section.type == docstring_parser.google.SectionType.MULTIPLE)


def _entry_names(lines: list[str]) -> list[str] | None:
    """The names an entry of a Google section documents (``name (type): text``, ``x, y: text``), read as
    docstring_parser reads them; None when it has no colon (no Google entry)."""
    text = "\n".join(lines).strip()
    if ":" not in text:
        return None
    before = text.split(":", 1)[0]
    if "\n" in before:
        first, rest = before.split("\n", 1)
        before = first + inspect.cleandoc(rest)
    typed = docstring_parser.google.GOOGLE_TYPED_ARG_REGEX.match(before)
    name = (typed.group(1) if typed else before).strip()
    return [n for n in _NAMES_SEP.split(name) if n] if "," in name else [name]


@functools.lru_cache(maxsize=1024)
def _without_entries(written: str, moved: frozenset[str]) -> str | None:
    """``written`` (a cleaned docstring) without the entries of its ``Attributes:``/``Args:`` sections whose names are
    all in ``moved``, nor the title of a section left without entries; None when a name of ``moved`` is not the
    name of exactly one such entry (a docstring of another style)."""
    lines = _indent_leading_section(written).lstrip("\n").split("\n")
    drop: set[int] = set()
    found: dict[str, int] = {}
    i = 0
    while i < len(lines):
        title = _GOOGLE.titles_re.match(lines[i])
        end = i + 1  # the section's body: up to the next line at the margin
        while end < len(lines) and not (lines[end].strip() and not lines[end][0].isspace()):
            end += 1
        filled = [k for k in range(i + 1, end) if lines[k].strip()]
        if title is None or title.group(1) not in _ENTRY_SECTIONS or not filled:
            i = end if title is not None else i + 1
            continue
        indent = re.match(r"\s*", lines[filled[0]]).group()  # type: ignore[union-attr]
        starts = [k for k in filled if lines[k].startswith(indent) and not lines[k][len(indent)].isspace()]
        kept = False
        for n, start in enumerate(starts):
            stop = starts[n + 1] if n + 1 < len(starts) else filled[-1] + 1
            names = _entry_names(lines[start:stop])
            if names and all(name in moved for name in names):
                drop.update(range(start, stop))
                for name in names:
                    found[name] = found.get(name, 0) + 1
            else:
                kept = True
        if not kept:
            drop.add(i)
        i = end
    if any(found.get(name) != 1 for name in moved):
        return None
    text = "\n".join(line for k, line in enumerate(lines) if k not in drop)
    return re.sub(r"\n(?:[ \t]*\n)+", "\n\n", text).strip()


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
        written, documented, annotated = _class_texts(cls)
    except TypeError:  # (an unhashable class)
        return body
    moved: set[str] = set()
    for key, prop in body["properties"].items():
        if not isinstance(prop, dict) or "description" in prop:
            continue
        text = annotated.get(key)
        if not text and documented.get(key):
            text = documented[key]
            moved.add(key)
        if text:
            body["properties"][key] = {**prop, "description": text}
    if moved and written is not None and body.get("description") == written:
        left = _without_entries(written, frozenset(moved))
        if left:
            body["description"] = left
        elif left is not None:
            del body["description"]
    return body
