"""Gemini function schemas: JSON Schema lowered to the OpenAPI-subset ``Schema`` of ``FunctionDeclaration``.

Rules, from the Gemini API reference (``Schema``, "Function calling" guide) and its answers:

* every node needs a ``type`` (``STRING``, ``INTEGER``, ``NUMBER``, ``BOOLEAN``, ``ARRAY``, ``OBJECT``)
  unless it is an ``any_of`` (400 "type: must be specified when not using one_of, any_of or all_of
  fields"); an untyped node (``Any``, the items of a bare ``list``) is sent as a ``STRING`` holding its
  JSON text, its description saying so (and, as any node's, the keywords it drops: review 271 #1), and
  :func:`decode_json_text` reads that text back into the value before the tool runs;
* an ``OBJECT`` needs non-empty ``properties`` (400 "should be non-empty for OBJECT type"): a nested object
  without properties (``dict[str, X]``, ``dict``) is sent as a ``STRING`` holding its JSON text, which
  :func:`toolwire.parsing.arguments.decode_json_strings` decodes (the schema wants an object there); in a union
  that also takes a string (``str | dict[str, X]``), where that decoding keeps every string as the string, a
  string that is the JSON text of an object fitting the map's schema is decoded into that object before the tool
  runs (:class:`ObjectPath`, :func:`decode_json_text`; review 124 #9), any other string stays a string: the
  model is told to write the map as JSON object text there, so such text is read as the map;
* no ``prefixItems``: a tuple (``tuple[int, str]``) is an ``ARRAY`` whose ``items`` are the ``any_of`` of
  its item types (one type when they agree), its length in ``min_items``/``max_items``, and, when the types
  differ, its description says which position takes which (``Items by position: 1. string, 2. integer.``,
  :func:`~toolwire.models.lowering._tuples.position_note`; review 124 #10), since ``["Oslo", 3]`` and
  ``[3, "Oslo"]`` both fit the ``any_of``, as it does for a closed tuple (``items: false`` after its positions, or
  draft-07's ``additionalItems: false``), whose ``max_items`` is then its number of positions (review 198 #4);
  toolwire still validates each position before running the tool; a position sent as JSON text (an ``Any``, a
  map, or one inside them) is decoded at that position alone (an ``int`` step of its :data:`JsonPath`, review 158
  #1, #2), as :func:`toolwire.parsing.arguments.decode_json_strings` does
  not reach below a tuple position;
* no ``$defs``/``$ref`` (inlined), ``default``, ``title`` (a title the user wrote is the description of a node that
  has none: review 264 #2), ``additionalProperties``, ``$schema``;
  ``anyOf [X, null]`` becomes nullable X; other keywords (``minimum``, ``pattern``...) are dropped; the
  model is still told, in the description, a default, the bounds (``minimum``, ``maximum``, their exclusive
  forms, ``multipleOf``, ``minLength``, ``maxLength``, ``pattern``) and a ``format`` Gemini does not take
  (``Format: date.``), as :func:`~toolwire.models.lowering._common.constraint_notes` words them (review 61), and,
  for a map sent as JSON text, its keys' ``propertyNames`` and its key count (review 94), and any other keyword it
  drops (``uniqueItems``, an object's ``minProperties``, ``examples``, ``deprecated``, ``not``, ``contains``...) as
  the strict lowerings say it (:func:`~toolwire.models.lowering._openai_strict.dropped_notes`, review 264 #1), all
  written by :mod:`~toolwire.models.lowering._gemini_notes`;
* ``enum`` is for ``STRING`` values only: the values of another ``enum``/``const`` (an ``IntEnum``, a
  ``Literal[0, 3]``, a mixed ``Literal["a", 1]`` sent as JSON text) are written in the description instead
  (``One of: 1, 2.``), so the model still knows the only values the tool takes; a ``null`` among the values
  (``Literal["a", "b", None]``) makes the node nullable rather than the enum mixed (review 28);
* the parameters are one ``OBJECT`` (400 "parameters schema should be of type OBJECT"): a top-level
  ``anyOf``/``oneOf`` of objects (a ``tool_from_schema`` or MCP tool) is folded into one object
  (:func:`~toolwire.models.lowering._common.fold_top_union`), a union of other schemas is a SchemaError.

Everything changed or dropped is named in ``dropped`` (``"<what> at <path>"``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping
from typing import Any

from toolwire._schema_refs import kept_title
from toolwire.errors import SchemaError
from toolwire.models.base import to_tool_spec
from toolwire.models.lowering._common import (
    COMBINATORS,
    fold_top_union,
    merge_object_union,
    object_branches,
)
from toolwire.models.lowering._gemini_notes import (
    ANY_HINT,
    KEEP,
    SILENT,
    joined,
    key_notes,
    node_notes,
    own_text,
    value_schema_text,
    values_hint,
)
from toolwire.models.lowering._tuples import position_note

__all__ = ["ITEMS", "JsonPath", "ObjectPath", "Rest", "arguments_text", "call_args", "decode_json_text",
           "gemini_schema", "json_text_paths", "json_text_plan"]

_TYPES = {"string": "STRING", "integer": "INTEGER", "number": "NUMBER", "boolean": "BOOLEAN",
          "array": "ARRAY", "object": "OBJECT"}
_FORMATS = {"STRING": {"enum", "date-time"}, "INTEGER": {"int32", "int64"}, "NUMBER": {"float", "double"}}
ITEMS = "[]"
"""The step of a :data:`JsonPath` that means "each item of the array"."""



class Rest(int):
    """The step of a :data:`JsonPath` that means "each item of the array from this index on" (the items after a
    tuple's ``prefixItems``)."""


JsonPath = tuple[str | int, ...]
"""Where a value sits in the arguments: property names, :data:`ITEMS` for the items of an array, an ``int`` for
one position of a tuple (review 158 #1, #2) and a :class:`Rest` for the items after a tuple's positions."""


def _untitled(node: Any, owner: tuple[str, str] | None) -> Any:
    """``node`` without a ``title`` pydantic made up (:func:`~toolwire._schema_refs.kept_title`)."""
    if isinstance(node, dict) and "title" in node and not kept_title(node["title"], owner):
        return {k: v for k, v in node.items() if k != "title"}
    return node


def _is_null(node: Any) -> bool:
    return isinstance(node, dict) and (node.get("type") == "null" or node.get("const", 0) is None)


def _kind_of(values: list[Any]) -> str | None:
    """The JSON type shared by all ``values`` (of an ``enum``/``const``), or ``None``."""
    kinds = {"boolean" if isinstance(v, bool) else "integer" if isinstance(v, int) else "number"
             if isinstance(v, float) else "string" if isinstance(v, str) else "other" for v in values}
    if kinds == {"integer", "number"}:
        return "number"
    kind = kinds.pop() if len(kinds) == 1 else None
    return kind if kind != "other" else None


class _Lowering:
    def __init__(self, name: str, root: dict[str, Any]) -> None:
        self.name = name
        self.root = root
        self.dropped: list[str] = []
        self.json_hints: dict[str, str] = {}  # path -> what the lowering adds to the description (json_text,
        # any_text, an enum Gemini cannot send: see values_hint), kept when a union's description replaces it
        self.positions: dict[str, JsonPath] = {"": ()}  # path (for messages) -> where it is in the arguments
        self.any_paths: list[JsonPath] = []  # untyped values sent as JSON text (see any_text), and maps sent as
        # JSON text in a union that also takes a string (ObjectPath, see union)
        self.object_texts: dict[str, dict[str, Any]] = {}  # path -> the schema of a map sent as JSON text
        self.position_maps: dict[str, JsonPath] = {}  # path -> where a map sent as JSON text sits under a tuple
        # position, which decode_json_strings does not reach (review 158 #1); moved to an ObjectPath by union

    def sub(self, path: str, step: str | int | None, label: str) -> str:
        """The path of a child node (``label`` for messages; ``step`` in the arguments, ``None``: same place)."""
        child = f"{path}{label}".lstrip(".")
        here = self.positions.get(path, ())
        self.positions[child] = here if step is None else (*here, step)
        return child

    def drop(self, path: str, key: str) -> None:
        self.dropped.append(f"{key} at {path or 'the top'}")

    def resolve(self, node: Any, refs: tuple[str, ...]) -> tuple[Any, tuple[str, ...]]:
        while isinstance(node, dict) and isinstance(node.get("$ref"), str):
            ref = node["$ref"]
            if ref in refs:
                raise SchemaError(f"Tool {self.name!r} has a recursive schema ({ref}), which Gemini cannot express: "
                                  "bound the nesting with explicit models.")
            target: Any = self.root
            for part in ref.lstrip("#/").split("/") if ref.startswith("#/") else ():
                target = target.get(part) if isinstance(target, dict) else None
            if not isinstance(target, dict):
                raise SchemaError(f"Tool {self.name!r}: the schema reference {ref!r} cannot be resolved.")
            extra = {k: v for k, v in node.items() if k != "$ref"}
            parts = ref[2:].split("/")  # (a definition's made-up title is no description: _untitled)
            owner = ("def", parts[1]) if len(parts) == 2 else ("property", parts[-1]) \
                if len(parts) > 2 and parts[-2] == "properties" else None
            node, refs = {**_untitled(target, owner), **extra}, (*refs, ref)
        return node, refs

    def schema(self, node: Any, path: str, refs: tuple[str, ...] = ()) -> dict[str, Any]:
        node, refs = self.resolve(node, refs)
        if not isinstance(node, dict):
            node = {}
        for key in node:
            if key not in KEEP and key not in SILENT and key not in ("allOf", "const"):
                self.drop(path, key)
        if self.folds(node, refs):
            return self.fold(node, path, refs)
        union = node.get("anyOf") or node.get("oneOf")
        if isinstance(union, list) and union:
            return self.union(node, union, path, refs)
        all_of = node.get("allOf")
        if isinstance(all_of, list) and all_of:
            merged: dict[str, Any] = {k: v for k, v in node.items() if k != "allOf"}
            for sub in all_of:
                sub, _ = self.resolve(sub, refs)
                for k, v in (sub or {}).items():
                    if k == "properties":
                        merged["properties"] = {**merged.get("properties", {}), **v}
                    elif k == "required":
                        merged["required"] = [*merged.get("required", []), *v]
                    else:
                        merged.setdefault(k, v)
            return self.schema(merged, path, refs)
        return self.typed(node, path, refs)

    def folds(self, node: dict[str, Any], refs: tuple[str, ...]) -> bool:
        """Whether ``node`` is an object whose ``anyOf``/``oneOf`` constrains its own properties (``properties``
        next to the union, or an object of branches that only say what is ``required``): Gemini's ``Schema``
        cannot say that, and an ``any_of`` of them would lose the properties."""
        if not any(isinstance(node.get(k), list) for k in ("anyOf", "oneOf")):
            return False
        if isinstance(node.get("properties"), dict) and node["properties"]:
            return True
        if node.get("type") != "object":
            return False
        branches = [self.resolve(b, refs)[0] for k in ("anyOf", "oneOf") for b in node.get(k) or ()]
        return all(isinstance(b, dict) and "type" not in b and "properties" not in b for b in branches)

    def fold(self, node: dict[str, Any], path: str, refs: tuple[str, ...]) -> dict[str, Any]:
        """The object with its union folded in (see :func:`~toolwire.models.lowering._common.merge_object_union`):
        its properties kept, the alternatives in its description, the ``anyOf``/``oneOf`` named in ``dropped``."""
        combos = []
        for key in COMBINATORS:
            if key in node:
                if key != "allOf":  # (allOf merges exactly)
                    self.drop(path, key)
                raw = node[key] if isinstance(node[key], list) else []
                combos.append((key, object_branches([self.resolve(b, refs)[0] for b in raw], True) or []))
        return self.typed(merge_object_union(node, combos), path, refs)

    def union(self, node: dict[str, Any], branches: list[Any], path: str, refs: tuple[str, ...]) -> dict[str, Any]:
        resolved = [self.resolve(b, refs)[0] for b in branches]
        kept = [b for b in resolved if not _is_null(b)]
        if len(kept) == 1:
            out = self.schema(kept[0], path, refs)
        elif not kept:
            out = self.any_text({}, path)
        else:
            children = [self.sub(path, None, f"|{i}") for i in range(len(kept))]
            out = {"any_of": [self.schema(b, child, refs) for b, child in zip(kept, children, strict=True)]}
            if any(_takes_string(b) for b in kept):  # (decode_json_strings keeps a string there: review 124 #9)
                self.any_paths += [ObjectPath(self.positions.get(child, ()), self.object_texts[child], self.root)
                                   for child in children if child in self.object_texts]
                for child in children:  # (only a fitting object is decoded there, as the ObjectPath says)
                    self.position_maps.pop(child, None)
        if len(kept) < len(resolved):
            out["nullable"] = True
        # (an Optional parameter's default, examples... sit beside its anyOf)
        self.note(out, path, node_notes(node, said_format=False))
        if own_text(node):
            hint, text = self.json_hints.get(path), own_text(node)
            own = kept[0].get("description") if len(kept) == 1 and isinstance(kept[0], dict) else None
            if isinstance(own, str) and own.strip() and own.strip() not in text:  # (Optional[Flag]'s flag names:
                stop = "" if text.rstrip().endswith((".", "!", "?", ":")) else "."  # the branch's own words
                text = f"{text.rstrip()}{stop} {own.strip()}"  # stay: review 222 #7)
            out["description"] = f"{text} ({hint})" if hint else text
        return out

    def note(self, out: dict[str, Any], path: str, notes: list[str]) -> None:
        """Say ``notes`` (what the lowering dropped and the model must still know) in ``out``'s description, and
        keep them with the node's hints (:attr:`json_hints`) for a union whose description replaces it."""
        if not notes:
            return
        text = " ".join(notes)
        known = self.json_hints.get(path)
        if known and text in known:
            return
        self.json_hints[path] = joined(known, text) if known else text
        described = out.get("description")
        if not described or described == known:  # (only notes so far: one more sentence)
            out["description"] = self.json_hints[path]
        else:
            out["description"] = f"{described} ({text})"

    def typed(self, node: dict[str, Any], path: str, refs: tuple[str, ...]) -> dict[str, Any]:
        kind = node.get("type")
        nullable = bool(node.get("nullable"))
        if isinstance(kind, list):
            nullable = nullable or "null" in kind
            kinds = [k for k in kind if k != "null"]
            if len(kinds) > 1:
                out = {"any_of": [self.typed({**node, "type": k}, path, refs) for k in kinds]}
                return {**out, "nullable": True} if nullable else out
            kind = kinds[0] if kinds else None
        enum = [node["const"]] if "const" in node else node.get("enum")
        if isinstance(enum, list) and None in enum and any(v is not None for v in enum):
            enum = [v for v in enum if v is not None]  # (Literal["a", "b", None]: a nullable STRING enum)
            nullable = True
        if kind is None:  # what the node says without a type
            if isinstance(enum, list) and enum:
                kind = _kind_of(enum)
            elif isinstance(node.get("properties"), dict):
                kind = "object"
            elif "items" in node or "prefixItems" in node:
                kind = "array"
        gtype = _TYPES.get(kind) if isinstance(kind, str) else None
        if gtype is None:  # (type null alone: only null fits, sent as JSON text "null")
            nullable = nullable or kind == "null"
            return self.any_text(node, path, nullable)
        out: dict[str, Any] = {"type": gtype}
        if own_text(node):
            out["description"] = own_text(node)
        if nullable:
            out["nullable"] = True
        if isinstance(enum, list):
            if gtype == "STRING" and all(isinstance(e, str) for e in enum):
                out["enum"] = list(enum)
            else:
                self.drop(path, "enum" if "enum" in node else "const")
                hint = self.json_hints[path] = values_hint(enum)
                out["description"] = f"{out['description']} ({hint})" if out.get("description") else hint
        fmt = node.get("format")
        said_format = isinstance(fmt, str) and fmt not in _FORMATS.get(gtype, ())
        if said_format:
            self.drop(path, f"format {fmt!r}")
        elif isinstance(fmt, str):
            out["format"] = fmt
        order = None
        if gtype == "ARRAY":
            out["items"], order = self.items(node, path, refs)
            for key, field in (("minItems", "min_items"), ("maxItems", "max_items")):
                if isinstance(node.get(key), int):
                    out[field] = node[key]
            prefix = node.get("prefixItems")
            if node.get("items") is False and isinstance(prefix, list) and prefix:  # a closed tuple: no more items
                out["max_items"] = min(len(prefix), out.get("max_items", len(prefix)))  # (review 198 #4)
        if gtype == "OBJECT":
            props = node.get("properties") or {}
            if props:
                out["properties"] = {k: self.schema(_untitled(v, ("property", k)), self.sub(path, k, f".{k}"), refs)
                                     for k, v in props.items()}
                required = [r for r in node.get("required") or () if r in props]
                if required:
                    out["required"] = required
            elif path:  # (the top level: gemini_schema sends no parameters)
                out = self.json_text(node, out, path)
        is_map = gtype == "OBJECT" and not node.get("properties")
        self.note(out, path, node_notes(node, said_format=said_format, order=order, is_map=is_map))
        return out

    def items(self, node: dict[str, Any], path: str, refs: tuple[str, ...]) -> tuple[dict[str, Any], str | None]:
        """The ``items`` of an array, and what its description must say of them: a tuple's ``prefixItems`` become
        one ``any_of`` of its item types, and when they differ the note says which position takes which
        (:func:`~toolwire.models.lowering._tuples.position_note`, review 124 #10); ``None`` for no note."""
        prefix = node.get("prefixItems")
        if not isinstance(prefix, list) or not prefix:
            return self.schema(node.get("items", {}), self.sub(path, ITEMS, "[]"), refs), None
        branches = [*prefix, *([node["items"]] if isinstance(node.get("items"), dict) else [])]
        lowered: list[dict[str, Any]] = []
        for i, branch in enumerate(branches):  # (each position at its own place: review 158 #1, #2)
            at = self.sub(path, i, f"[{i}]") if i < len(prefix) else self.sub(path, Rest(i), f"[{i}:]")
            sub = self.schema(_untitled(branch, ("position", "")) if i < len(prefix) else branch, at, refs)
            if sub not in lowered:
                lowered.append(sub)
        self.drop(path, "prefixItems (items sent as the any_of of the item types)")
        rest = node.get("items")
        if len(lowered) == 1:  # (a closed tuple's positions are still named, so its length is said: review 198 #4)
            closed = rest is False
            return lowered[0], position_note(prefix, None, lambda n: self.resolve(n, refs)[0]) if closed else None
        return {"any_of": lowered}, position_note(prefix, rest, lambda n: self.resolve(n, refs)[0])

    def any_text(self, node: dict[str, Any], path: str, nullable: bool = False) -> dict[str, Any]:
        """An untyped node (``Any``, the items of a bare ``list``) as a ``STRING`` holding its JSON text: Gemini
        refuses a node without a type; its description says, after that, every keyword it drops, as other nodes'
        do (:func:`~toolwire.models.lowering._gemini_notes.node_notes`). Named in ``dropped`` as ``untyped value (sent
        as JSON text)``; its place is in :attr:`any_paths`, for :func:`decode_json_text`."""
        self.drop(path, "untyped value (sent as JSON text)")
        self.any_paths.append(self.positions.get(path, ()))
        description = own_text(node)
        enum = [node["const"]] if "const" in node else node.get("enum")
        hint = f"{values_hint(enum)} {ANY_HINT}" if isinstance(enum, list) and enum else ANY_HINT
        fmt = node.get("format")
        if isinstance(fmt, str):
            self.drop(path, f"format {fmt!r}")
        notes = node_notes(node, said_format=isinstance(fmt, str))  # (examples, not, default...: review 271 #1)
        hint = self.json_hints[path] = joined(hint, " ".join(notes)) if notes else hint
        out = {"type": "STRING", "description": f"{description} ({hint})" if description else hint}
        return {**out, "nullable": True} if nullable or node.get("nullable") else out

    def json_text(self, node: dict[str, Any], out: dict[str, Any], path: str) -> dict[str, Any]:
        """A nested object with no declared properties (``dict[str, X]``, ``dict``, a free-form object) as a
        ``STRING`` holding its JSON text: Gemini refuses an ``OBJECT`` without ``properties`` ("should be
        non-empty for OBJECT type") and its ``Schema`` has no ``additionalProperties``. Before validation,
        toolwire decodes a JSON string sent where the schema wants an object
        (:func:`toolwire.parsing.arguments.decode_json_strings`). Named in ``dropped`` as ``type object``."""
        self.drop(path, "type object")
        values = node.get("additionalProperties")
        kind = values.get("type") if isinstance(values, dict) else None
        hint = "A JSON object written as a string, e.g. '{\"key\": ...}'"
        shape = value_schema_text(values)
        if shape is not None:  # models, lists...: the model must see their fields (review 53)
            hint += f", each value matching the JSON Schema {shape}."
        else:
            hint += f", each value of type {kind}." if isinstance(kind, str) else "."
        keys = key_notes(node)
        if keys:
            hint += " " + " ".join(keys)
        self.json_hints[path] = hint
        self.object_texts[path] = node
        steps = self.positions.get(path, ())
        if any(isinstance(step, int) for step in steps):  # (under a tuple position: review 158 #1)
            self.position_maps[path] = steps
        text = {"type": "STRING", "description": f"{out['description']} ({hint})" if out.get("description") else hint}
        return {**text, "nullable": True} if out.get("nullable") else text


def _lower(parameters: dict[str, Any], name: str) -> tuple[dict[str, Any] | None, _Lowering]:
    lowering = _Lowering(name, parameters)
    root, _ = lowering.resolve(_untitled(parameters, ("root", "")), ())
    if isinstance(root, dict) and any(isinstance(root.get(k), list) for k in ("anyOf", "oneOf", "allOf")):
        # the parameters must be one OBJECT (400 "parameters schema should be of type OBJECT")
        for key in ("anyOf", "oneOf"):
            if key in root:
                lowering.drop("", key)  # (as a nested object's folded union is named)
        root = fold_top_union(name, root, provider="Gemini", field="parameters")
    out = lowering.schema(root, "")
    if out.get("type") == "OBJECT" and not out.get("properties"):
        return None, lowering  # no parameters (an OBJECT needs properties)
    return out, lowering


def gemini_schema(parameters: dict[str, Any], name: str = "tool") -> tuple[dict[str, Any] | None, list[str]]:
    """Lower a JSON Schema to Gemini's ``Schema`` subset (see the module docstring for the rules).

    Args:
        parameters: the tool's argument schema (JSON Schema, possibly with ``$defs``/``$ref``).
        name: the tool name, for messages.

    Returns:
        ``(schema or None, dropped)``: ``None`` when the tool takes no parameters (or its object declares
        no properties); ``dropped`` lists what could not be expressed, as ``"<keyword> at <path>"``
        (``"type object at <path>"``: a nested object without properties, and ``"untyped value (sent as
        JSON text) at <path>"``: a node without a type, each sent as JSON text in a ``STRING``).

    Raises:
        SchemaError: the schema is recursive, has a reference that cannot be resolved, or is a top-level
            union of schemas that are not objects.
    """
    out, lowering = _lower(parameters, name)
    return out, lowering.dropped


def json_text_paths(parameters: dict[str, Any], name: str = "tool") -> list[JsonPath]:
    """Where the lowered schema of ``parameters`` asks for an untyped value as JSON text, for a map as JSON text
    beside a string (an :class:`ObjectPath`) or for one under a tuple position, for :func:`decode_json_text`; ``[]``
    when nowhere. Raises
    SchemaError as :func:`gemini_schema` does."""
    out, lowering = _lower(parameters, name)
    return [*lowering.any_paths, *lowering.position_maps.values()] if out is not None else []


def _takes_string(node: Any) -> bool:
    """Whether the JSON Schema ``node`` (a union member) takes a string: its ``type`` is or lists ``string``, or an
    ``enum``/``const`` value is one."""
    if not isinstance(node, dict):
        return False
    kind = node.get("type")
    if kind == "string" or (isinstance(kind, list) and "string" in kind):
        return True
    values = [node["const"]] if "const" in node else node.get("enum")
    return isinstance(values, list) and any(isinstance(v, str) for v in values)


class ObjectPath(tuple[str | int, ...]):
    """A :data:`JsonPath` to a map sent as JSON text (``dict[str, X]``) in a union that also takes a string
    (``str | dict[str, X]``), with the map's JSON Schema: :func:`decode_json_text` decodes a string there only into
    a JSON object that fits that schema (:meth:`fits`), and leaves any other string for the string member."""

    schema: dict[str, Any]

    def __new__(cls, steps: JsonPath, schema: dict[str, Any], root: dict[str, Any]) -> ObjectPath:
        out = super().__new__(cls, steps)
        defs = {k: root[k] for k in ("$defs", "definitions") if isinstance(root.get(k), dict)}
        out.schema = {**schema, **defs}  # (its $refs point into the root's $defs)
        return out

    def fits(self, value: Any) -> bool:
        """Whether ``value`` (decoded JSON) is an object valid against the map's schema (JSON Schema 2020-12)."""
        if not isinstance(value, dict):
            return False
        from jsonschema import Draft202012Validator
        from jsonschema.exceptions import SchemaError as BadSchema
        try:
            return Draft202012Validator(self.schema).is_valid(value)
        except (BadSchema, RecursionError, ValueError, TypeError):  # (a schema it cannot read: no decoding)
            return False


def _decode_at(value: Any, path: JsonPath, fits: Callable[[Any], bool] | None = None) -> Any:
    if not path:
        if isinstance(value, str):
            try:
                decoded = json.loads(value)
            except (ValueError, RecursionError):  # not JSON, or too deep to decode (review 75): the text itself
                return value  # (a string is a value too)
            return decoded if fits is None or fits(decoded) else value
        return value
    step, rest = path[0], path[1:]
    if isinstance(step, int) and isinstance(value, list):  # one position of a tuple, or those from a Rest on
        start, stop = (step, len(value)) if isinstance(step, Rest) else (step, min(step + 1, len(value)))
        new = [*value[:start], *(_decode_at(item, rest, fits) for item in value[start:stop]), *value[stop:]]
        return value if all(a is b for a, b in zip(new, value, strict=True)) else new
    if step == ITEMS and isinstance(value, list):
        new = [_decode_at(item, rest, fits) for item in value]
        return value if all(a is b for a, b in zip(new, value, strict=True)) else new
    if isinstance(step, str) and step != ITEMS and isinstance(value, dict) and step in value:
        inner = _decode_at(value[step], rest, fits)
        return value if inner is value[step] else {**value, step: inner}
    return value


def decode_json_text(args: Any, paths: list[JsonPath]) -> Any:
    """Decode the JSON text Gemini sent for untyped values (``Any``, bare ``list`` items, and maps under a tuple
    position) at ``paths`` (from :func:`json_text_paths`; an ``int`` step is one position of a list, a :class:`Rest`
    those from its index on): a string that is JSON becomes its value, other strings stay as they are; at an
    :class:`ObjectPath` (the map member of ``str | dict[str, X]``) only a JSON object that fits the map's schema is
    decoded (module doc).

    Returns:
        ``args`` itself when nothing changed, else a copy (the input is not changed).
    """
    for path in paths:
        args = _decode_at(args, path, path.fits if isinstance(path, ObjectPath) else None)
    return args


def json_text_plan(tools: Collection[Any]) -> dict[str, list[JsonPath]]:
    """Return, for each of ``tools`` (bound tools) that has them, where its lowered schema asks for an untyped value
    (``Any``, bare ``list`` items) as JSON text, or for a map as JSON text beside a string (``str | dict[str, X]``,
    an :class:`~toolwire.models.lowering._gemini_schema.ObjectPath`, review 124 #9): ``{tool name: [path, ...]}``,
    for :func:`parse_response` and :class:`StreamState`, which decode that text back into the value before the
    call is returned."""
    plan: dict[str, list[JsonPath]] = {}
    for tool in tools:
        spec = to_tool_spec(tool)
        try:
            paths = json_text_paths(spec.parameters, spec.name)
        except SchemaError:
            continue  # (the request was refused when lowered)
        if paths:
            plan[spec.name] = paths
    return plan


def call_args(call: dict[str, Any], json_text: Mapping[str, list[JsonPath]] | None) -> Any:
    """A function call's ``args`` with the JSON text of the paths ``json_text`` plans for its tool decoded."""
    args = call.get("args")
    paths = (json_text or {}).get(call.get("name") or "")
    return decode_json_text(args, paths) if paths and isinstance(args, dict) else args


def arguments_text(call: dict[str, Any], json_text: Mapping[str, list[JsonPath]] | None) -> str:
    """A function call's arguments as the JSON text a stream gives them (``{}`` when it has none)."""
    return json.dumps(call_args(call, json_text) or {}, ensure_ascii=False)
