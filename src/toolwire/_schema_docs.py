"""Descriptions of the fields of a class that a tool takes (a pydantic model, a dataclass, a TypedDict, a NamedTuple),
from the class itself (review 124 #8).

Private to :mod:`toolwire._schema_strict` and :mod:`toolwire._schema_fast`, which write a class's JSON Schema the
same way. pydantic writes a class's whole docstring as its ``description``, an ``Attributes:`` section included,
and that description is replaced by the parameter's own when the function's ``Args:`` documents it, so the fields
lost their descriptions. Here, as :func:`toolwire.schema.model_schema` does for an ``args_schema`` class:

* a field without a description of its own takes the text of an ``Annotated[T, "text"]`` hint (which pydantic
  ignores), else its entry in the class docstring's ``Attributes:`` (or ``Args:``) section, else its entry in a
  parent class's docstring (the nearest parent first); the entry may name the field by its key in the schema or
  by its Python name (``from_: str = Field(alias="from")`` documented as ``from_``), and a parametrised generic
  model (``Page[int]``, whose own docstring is None) reads its origin class's docstring, which is also its
  description (review 127 #6);
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
import typing_extensions

from toolwire._signature import _GOOGLE, _NAMES_SEP, _indent_leading_section, _parse_docstring, napoleon_entry

__all__ = ["describe_class"]


def _text(metadata: Any) -> str | None:
    return next((m for m in metadata if isinstance(m, str)), None)


def _annotated_texts(cls: type) -> dict[str, str]:
    """``{field name or alias: text}`` of the fields of ``cls`` (a pydantic model or dataclass, a stdlib dataclass or a
    NamedTuple) hinted ``Annotated[T, "text"]``."""
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
    if dataclasses.is_dataclass(cls):
        names = [f.name for f in dataclasses.fields(cls)]
    elif issubclass(cls, tuple) and isinstance(getattr(cls, "_fields", None), tuple):  # (a NamedTuple: review 182 #4)
        names = [name for name in cls._fields if isinstance(name, str)]  # type: ignore[attr-defined]
    else:
        return {}
    try:
        hints = typing.get_type_hints(cls, include_extras=True)
    except Exception:  # (an unresolved forward reference: pydantic says so itself)
        return {}
    return {name: text for name in names
            if get_origin(hint := hints.get(name)) is Annotated and (text := _text(get_args(hint)[1:]))}


def _schema_keys(cls: type) -> dict[str, str]:
    """``{key in the JSON Schema: Python name}`` of the fields of a pydantic model or dataclass ``cls`` published
    under an alias, read as pydantic's JSON Schema reads it (a ``validation_alias`` string, else the first one-step
    path of its choices)."""
    fields = getattr(cls, "__pydantic_fields__", None)
    keys: dict[str, str] = {}
    for name, info in (fields if isinstance(fields, dict) else {}).items():
        alias = getattr(info, "validation_alias", None) or getattr(info, "alias", None)
        if alias is not None and not isinstance(alias, str):
            paths = alias.convert_to_aliases() if hasattr(alias, "convert_to_aliases") else []
            paths = [paths] if paths and not isinstance(paths[0], list) else paths  # (an AliasPath: one path)
            alias = next((path[0] for path in paths if len(path) == 1 and isinstance(path[0], str)), None)
        if isinstance(alias, str) and alias != name:
            keys[alias] = name
    return keys


def _docstring(cls: type) -> str | None:
    """The docstring of ``cls`` itself (not inherited), or for a parametrised generic model (``Page[int]``, whose
    own is None) its origin class's."""
    doc = cls.__dict__.get("__doc__")
    if doc is None:
        origin = (getattr(cls, "__pydantic_generic_metadata__", None) or {}).get("origin")
        doc = origin.__dict__.get("__doc__") if isinstance(origin, type) else None
    return doc if isinstance(doc, str) else None


def _parents(cls: type) -> list[type]:
    """The classes ``cls`` inherits fields from, nearest first: its MRO (a TypedDict's: its TypedDict bases), without
    pydantic's, typing's and the builtin ones, whose docstrings document no field of the user's."""
    if typing_extensions.is_typeddict(cls):
        out: list[type] = []
        todo = [get_origin(b) or b for b in getattr(cls, "__orig_bases__", ())]
        while todo:
            base = todo.pop(0)
            if isinstance(base, type) and typing_extensions.is_typeddict(base) and base not in out:
                out.append(base)
                todo.extend(get_origin(b) or b for b in getattr(base, "__orig_bases__", ()))
    else:
        out = list(cls.__mro__[1:])
    return [c for c in out if c.__module__.partition(".")[0] not in _LIBRARIES]


_LIBRARIES = frozenset(("pydantic", "typing", "typing_extensions", "builtins", "abc", "collections"))


@functools.lru_cache(maxsize=1024)
def _class_texts(cls: type) -> tuple[str | None, dict[str, str], dict[str, str], dict[str, str], dict[str, str]]:
    """``(docstring as pydantic writes it, {name: its entry's text}, {name: the entry's text in a parent's
    docstring}, {field key: Annotated text}, {key: Python name})`` of ``cls`` (see :func:`describe_class`)."""
    doc = _docstring(cls)
    written = inspect.cleandoc(doc) if doc else None
    documented = _parse_docstring(doc)[1] if written else {}
    inherited: dict[str, str] = {}
    for parent in _parents(cls):
        parent_doc = parent.__dict__.get("__doc__")
        if isinstance(parent_doc, str) and parent_doc.strip():
            for name, text in _parse_docstring(parent_doc)[1].items():
                inherited.setdefault(name, text)
    return written, documented, inherited, _annotated_texts(cls), _schema_keys(cls)


_ENTRY_SECTIONS = frozenset(title for title, section in _GOOGLE.sections.items()
                            if section.key in ("param", "attribute")
                            and section.type == docstring_parser.google.SectionType.MULTIPLE)


def _entry_names(lines: list[str]) -> list[str] | None:
    """The names an entry of a Google section documents (``name (type): text``, ``x, y: text``), read as
    docstring_parser reads them; None when it has no colon (no Google entry)."""
    text = napoleon_entry("\n".join(lines).strip())
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
        written, documented, inherited, annotated, keys = _class_texts(cls)
    except TypeError:  # (an unhashable class)
        return body
    moved: set[str] = set()
    for key, prop in body["properties"].items():
        if not isinstance(prop, dict) or "description" in prop:
            continue
        names = (key, keys[key]) if key in keys else (key,)  # (an aliased field: documented under either name)
        text = next((annotated[name] for name in names if annotated.get(name)), None)
        entry = None if text else next((name for name in names if documented.get(name)), None)
        if entry is not None:
            text = documented[entry]
            moved.add(entry)
        text = text or next((inherited[name] for name in names if inherited.get(name)), None)
        if text:
            body["properties"][key] = {**prop, "description": text}
    if written is not None and (body.get("description") == written or (
            "description" not in body and cls.__dict__.get("__doc__") is None)):  # (Page[int]: pydantic writes none)
        left = _without_entries(written, frozenset(moved)) if moved else None
        if left is None:  # (nothing moved, or entries not found as Google style writes them: all of it)
            left = written
        if left:
            body["description"] = left
        else:
            body.pop("description", None)
    return body
