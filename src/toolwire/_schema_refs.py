"""JSON Schema rewriting shared by tool definitions and providers: ``$ref`` inlining (every provider gets a
self-contained schema), the null plan of OpenAI strict mode (nulls sent for optional values are
dropped where the schema does not accept them; written in :mod:`toolwire._schema_nulls`), and the path of a
validation error as the model sees it, in the message a validation error gives (:func:`validation_message`).
Re-exported by :mod:`toolwire.schema`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from toolwire._printing import safe_text
from toolwire._schema_dates import fit_written_errors
from toolwire._schema_nulls import NullPlan, drop_defaulted_nulls, null_plan
from toolwire._schema_nulls import union_branches as _union_branches
from toolwire._union_members import member_blocks, split_by_tag
from toolwire.errors import SchemaError

if TYPE_CHECKING:
    from pydantic import ValidationError

__all__ = ["NullPlan", "drop_defaulted_nulls", "field_names", "inline_refs", "null_plan", "recursive_type_error",
           "shown_path", "validation_message"]


# -- $ref inlining --------------------------------------------------------------------------------
# Only schema positions are rewritten: a keyword's value is a schema, a list of schemas or a map of names
# to schemas for the keywords below (JSON Schema 2020-12 Core, section 10; Validation, section 6; and
# draft-07's "items" list, "additionalItems" and "dependencies"). Every other value is data ("enum",
# "const", "default", "examples", an unknown "x-..." keyword) and is copied as it is: a "title" key in a
# default is the value's, not the schema's.

SCHEMA_KEYS = frozenset((
    "items", "additionalItems", "prefixItems", "anyOf", "oneOf", "allOf", "not", "if", "then", "else",
    "contains", "additionalProperties", "propertyNames", "unevaluatedItems", "unevaluatedProperties",
    "contentSchema",
))
SCHEMA_MAP_KEYS = frozenset(("properties", "patternProperties", "dependentSchemas", "dependencies"))
DROPPED_KEYS = frozenset(("$defs", "definitions", "title"))
_DEF_PREFIXES = ("#/$defs/", "#/definitions/")
_Owner = tuple[str, str] | None  # what holds a schema node, for its title: ("root", ""), ("def", name),
# ("property", name), ("position", "") (a tuple's), or None (an item, a union's member...: any title is the user's)


def _squeezed(text: str) -> str:
    return "".join(c for c in text.casefold() if c.isalnum())


def _ascii_squeezed(text: str) -> str:
    return "".join(c for c in text if c.isascii() and c.isalnum()).lower()


def _class_name_title(title: str, name: str) -> bool:
    """Whether ``title``, on the definition ``name``, is the class name pydantic wrote as both: one word, or the
    definition's name once pydantic has written it (each character but an ASCII letter or digit as ``_``: ``"Page[Item,
    int]"`` as ``Page_Item_int_``), perhaps inside a longer one (the module before it and a count after it when two
    classes share a name, ``__main____Page_Item_int___1``: review 271 #3)."""
    if len(title.split()) <= 1:
        return True
    squeezed = _ascii_squeezed(title)
    return bool(squeezed) and squeezed in _ascii_squeezed(name)


def _field_name_title(title: str) -> bool:
    """Whether ``title`` reads as the title pydantic makes of a field's name (``"Lat"``, ``"Lon Deg"`` for
    ``lon_deg``: each word capitalized, as ``str.title`` does), the title of a NamedTuple's position; a title that
    does not (``"Latitude in degrees"``) is one the user wrote (review 271 #4)."""
    name = title.replace(" ", "_")
    return name.isidentifier() and name.title().replace("_", " ").strip() == title


def kept_title(title: Any, owner: _Owner) -> bool:
    """Whether :func:`inline_refs` keeps the ``title`` keyword of a schema node held by ``owner`` (review 264 #2): a
    title the user wrote reaches the model, pydantic's made-up ones do not (they only cost tokens). Dropped: the root's
    (the model's or function's name), a tuple position's that reads as a field's name (a NamedTuple's: ``"Lat"``,
    ``"Lon Deg"``; a user's ``"Start Date"`` there cannot be told from it), a definition's that is its name
    or one word (a class name: ``"Address"``, ``"Page[int]"``, ``"Page[Item, int]"`` on ``__main____Page_Item_int___1``
    when two classes are named ``Item``), a property's that only spells its name (``"Country
    Code"`` for ``country_code``, pydantic's default), and any title that is not a non-blank string. Kept: every other
    (``"ISO 3166-1 alpha-2 country code"``).

    Args:
        title: the ``title`` keyword's value.
        owner: ``("root", "")``, ``("def", name)``, ``("property", name)``, ``("position", "")`` or ``None`` (any
            other place: an item, a union's member).

    Returns:
        True to keep it."""
    if not isinstance(title, str) or not title.strip():
        return False
    if owner is None:
        return True
    kind, name = owner
    if kind == "def":
        return not _class_name_title(title, name)
    if kind == "position":
        return not _field_name_title(title)
    return kind == "property" and _squeezed(title) != _squeezed(name)


def copy_data(value: Any) -> Any:
    """A fresh copy of JSON data (dicts and lists copied, everything else shared)."""
    if isinstance(value, dict):
        return {k: copy_data(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copy_data(v) for v in value]
    return value


def dangling_discriminator(value: Any) -> bool:
    """Whether ``value``, a ``discriminator`` keyword (OpenAPI 3.1, section 4.8.25), maps a tag to a
    ``#/$defs/...`` schema: once the definitions are inlined that ``mapping`` names schemas that no longer
    exist, and without it the bare ``propertyName`` would name schemas that have no name, so the whole
    keyword goes (each branch's ``const`` tag still says which branch a value is)."""
    mapping = value.get("mapping") if isinstance(value, dict) else None
    return isinstance(mapping, dict) and any(
        isinstance(target, str) and target.startswith(_DEF_PREFIXES) for target in mapping.values())


def _pointer(ref: str) -> list[str]:
    """The reference tokens of a ``#/...`` URI fragment: percent-decoded (RFC 3986, section 2.1), then
    ``~1`` -> ``/`` and ``~0`` -> ``~`` (RFC 6901, sections 4 and 6)."""
    return [unquote(token).replace("~1", "/").replace("~0", "~") for token in ref[2:].split("/")]


def _resolve(schema: dict[str, Any], tokens: list[str]) -> Any:
    """The value ``tokens`` point at in ``schema``, or ``_MISSING``; a ``#/definitions/`` pointer may find
    its target under ``$defs`` and the other way round."""
    for first in dict.fromkeys((tokens[0], *(k for k in ("$defs", "definitions") if k != tokens[0]))):
        node: Any = schema
        for token in (first, *tokens[1:]):
            if isinstance(node, dict) and token in node:
                node = node[token]
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
            else:
                break
        else:
            return node
    return _MISSING


_MISSING: Any = object()


def recursive_type_error(name: str) -> SchemaError:
    """The error for a type that refers to itself (a tree: ``children: list["Node"]``), by its name."""
    return SchemaError(f"The type {name!r} refers to itself, and a tool schema must be finite: replace the "
                       "recursive field with a depth-limited type or a JSON string.")


MAX_INLINED_VALUES = 20_000
"""The most JSON values (every item of every object and array) a schema may have once its ``$ref``s are written
out in place: about 250 KB of compact JSON, some 60,000 tokens of prompt for one tool. Real tool schemas are far
below it (a large MCP tool has hundreds of values; OpenAI's strict mode caps a schema at 5,000 properties) and no
model could use a bigger one, while a schema whose ``$defs`` each refer to the next one twice doubles per level: 1.5
KB of them wrote out a 17 MB schema (review 75). Checking it stops there, in a few milliseconds."""

MAX_SCHEMA_DEPTH = 64
"""The most levels of schemas nested in one another (``properties`` in ``properties``, ``items`` in ``items``...)
a schema may have once its ``$ref``s are written out: JSON Schema validators recurse once per level, so a deeper one
overflows the stack (about 100 levels, for ``jsonschema``); real schemas use a dozen at most (OpenAI's strict mode
allows 10)."""


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """Return ``schema`` with every local ``$ref`` into its ``$defs`` (or ``definitions``) replaced by the
    schema it points at, and pydantic's made-up ``title`` keywords dropped (a title the user wrote is kept:
    :func:`kept_title`, review 264 #2).

    A ``$ref`` is a JSON pointer (``#/$defs/Outer/properties/inner``, ``#/$defs/a~1b`` for the name
    ``a/b``); its siblings are kept and win over the target's keys. Only schema positions are rewritten:
    a property *named* "title" and a ``title`` inside ``enum``/``const``/``default``/``examples`` data are
    kept. A ``discriminator`` whose ``mapping`` points into the dropped definitions is dropped too.

    Args:
        schema: a JSON Schema dict as pydantic writes it (``$defs`` at the top, ``#/$defs/Name`` refs).

    Returns:
        A new self-contained schema dict (the input is not changed).

    Raises:
        SchemaError: a type refers to itself (recursive model): such a schema has no finite inline form;
            or a ``$ref`` names a definition the schema does not have; or the schema written out would hold
            more than :data:`MAX_INLINED_VALUES` values or nest more than :data:`MAX_SCHEMA_DEPTH` levels.
    """
    size = 0

    def too_big() -> SchemaError:
        return SchemaError(f"The schema is too large once its $ref references are written out in place (more than "
                           f"{MAX_INLINED_VALUES:,} JSON values; toolwire sends every schema without $ref): refer to "
                           "each definition from fewer places, or take the deep part as a JSON string.")

    def copy(value: Any) -> Any:  # copy_data, counting the values
        nonlocal size
        if isinstance(value, dict | list):
            size += len(value)
            if size > MAX_INLINED_VALUES:
                raise too_big()
            if isinstance(value, dict):
                return {k: copy(v) for k, v in value.items()}
            return [copy(v) for v in value]
        return value

    def walk(node: Any, stack: tuple[tuple[str, ...], ...], depth: int, owner: _Owner = None) -> Any:
        nonlocal size
        if isinstance(node, list):
            size += len(node)
            return [walk(x, stack, depth, owner) for x in node]
        if not isinstance(node, dict):
            return node
        if depth > MAX_SCHEMA_DEPTH or len(stack) > MAX_SCHEMA_DEPTH:  # (a chain of $ref to $ref: review 76)
            raise SchemaError(f"The schema nests more than {MAX_SCHEMA_DEPTH} levels of schemas once its $ref "
                              "references are written out in place: flatten it, or take the deep part as a JSON "
                              "string.")
        out: dict[str, Any] = {}
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(_DEF_PREFIXES):
            tokens = _pointer(ref)
            name = tokens[1] if len(tokens) > 1 else ref
            if tuple(tokens) in stack:
                raise recursive_type_error(name)
            target = _resolve(schema, tokens)
            if target is _MISSING:
                raise SchemaError(f"The schema refers to {ref!r}, which it does not define: add that "
                                  "definition to its $defs or fix the reference.")
            held: _Owner = ("def", name) if len(tokens) == 2 else \
                ("property", tokens[-1]) if tokens[-2] == "properties" else None
            inlined = walk(target, (*stack, tuple(tokens)), depth, held)
            # a boolean schema (JSON Schema 2020-12 Core, section 4.3.2) as the object form its siblings can join
            out = dict(inlined) if isinstance(inlined, dict) else {} if inlined else {"not": {}}
        elif isinstance(ref, str) and not ref.startswith("#"):  # (review 76: every call then failed to resolve it)
            raise SchemaError(f"The schema refers to {ref!r}, another document, which toolwire does not fetch: copy "
                              "that schema into $defs and refer to it as '#/$defs/<name>'.")
        for key, value in node.items():
            if key == "title" and kept_title(value, owner):
                out[key] = value
                continue
            if key in DROPPED_KEYS or (key == "$ref" and isinstance(ref, str) and ref.startswith(_DEF_PREFIXES)):
                continue
            if key in SCHEMA_KEYS:  # (a tuple position's title may be a NamedTuple field's name)
                out[key] = walk(value, stack, depth + 1, ("position", "") if key == "prefixItems" else None)
            elif key in SCHEMA_MAP_KEYS and isinstance(value, dict):
                out[key] = {pname: walk(sub, stack, depth + 1, ("property", pname) if key == "properties" else None)
                            for pname, sub in value.items()}
                size += len(value)
            elif key == "discriminator" and dangling_discriminator(value):
                continue
            else:
                out[key] = copy(value)
        size += len(out)
        if size > MAX_INLINED_VALUES:
            raise too_big()
        return out

    return walk(schema, (), 1, ("root", ""))  # type: ignore[no-any-return]


def _object_schema(schema: dict[str, Any]) -> dict[str, Any]:
    return _object_shape(inline_refs(schema))


def _object_shape(out: dict[str, Any]) -> dict[str, Any]:
    """A tool's top-level parameters schema: an object (``type``, ``description`` first), whose
    ``additionalProperties`` says what validation does with unknown keys (``false``: refused, as for every
    function tool; ``true``: taken, an args_schema with ``extra="allow"``; absent: ignored)."""
    extra = out.pop("additionalProperties", None)
    out["type"] = "object"
    out.setdefault("properties", {})
    if not out.get("required"):
        out.pop("required", None)
    # put the keys in a stable, readable order
    ordered = {"type": "object"}
    if "description" in out:
        ordered["description"] = out.pop("description")
    ordered.update(out)
    if extra is not None:
        ordered["additionalProperties"] = extra
    return ordered


# -- validation error paths and messages -----------------------------------------------------------
_UNKNOWN_KEY = ("extra_forbidden", "unexpected_keyword_argument")  # (the second from a dataclass)


def validation_message(exc: ValidationError, tool_name: str, known: Iterable[str] = (),
                       schema: Mapping[str, Any] | None = None, most: int | None = None) -> str:
    """Return a pydantic ``ValidationError`` as one message naming each field, what was expected and
    what came, e.g. ``"Invalid arguments for tool 'f': 'k': Input should be a valid integer (got 'x')."``.

    Args:
        exc: the pydantic error.
        tool_name: the tool's name, for the message.
        known: the tool's parameter names as the model sees them (aliases), listed when an unknown
            argument came.
        schema: the JSON Schema of the arguments (``$ref`` inlined), read to show each error's path as a
            path in the arguments: pydantic puts the name of the union member it tried in its ``loc``
            (``p.Cat.meow``, ``u.int``), which the model never wrote, so those steps are left out
            (``p.meow``, ``u``); the errors then at the same path with the same input are joined with
            "or". Without it the ``loc`` is shown as it is. An unknown key inside an object is named as a
            field of that object, whose fields the schema lists.
        most: how many problems to name at most, the rest counted (``...; and 35 more``); None for all.
    """
    entries: list[str | tuple[str, str]] = []  # a finished part, or the (path, input) of an "or" part
    messages: dict[tuple[str, str], list[str]] = {}
    extra = False
    objects: dict[str, list[str] | None] = {}  # objects that got an unknown key: their fields, when known
    errors = fit_written_errors(exc.errors(include_url=False), lambda loc: shown_path(loc, schema))
    # a union of objects told apart by a tag: only the errors of the member the tag picks (review 237 #1)
    tagged = _TaggedUnions(errors, schema) if schema is not None and len(errors) > 1 else None
    if tagged is not None:
        errors = tagged.errors
    # a key refused by one member of a union that another member takes is not the error (Cat | Dog given
    # {"meow": ..., "zzz": ...}: "meow" is Cat's field, only "zzz" is unknown); said only when nothing else is
    fine = [err for err in errors if err.get("type") in _UNKNOWN_KEY and len(err.get("loc", ())) > 1
            and not (tagged is not None and id(err) in tagged.labels)
            and str(err["loc"][-1]) in _any_member_fields(tuple(err["loc"][:-1]), schema)]
    if len(fine) < len(errors):
        errors = [err for err in errors if not any(err is f for f in fine)]
    labelled: dict[int, str] = {}  # the index in entries of the first entry of each picked member: its label
    for err in errors:
        full = tuple(err.get("loc", ()))
        loc = shown_path(full, schema) or "(arguments)"
        kind = err.get("type")
        at = len(entries)
        if tagged is not None and id(err) in tagged.missing_tag:
            entries.append(f"'{loc}' is required but missing (one of {tagged.missing_tag[id(err)]})")
        elif kind == "missing":
            entries.append(f"'{loc}' is required but missing")
        elif kind in _UNKNOWN_KEY and len(full) > 1:
            parent = shown_path(full[:-1], schema)
            fields = tagged.fields.get(full[:-1]) if tagged is not None else None
            objects.setdefault(parent, fields if fields is not None else field_names(full[:-1], schema))
            entries.append(f"'{loc}' is not an allowed field of '{parent}' (got {_short(err.get('input'))})")
        elif kind in _UNKNOWN_KEY:
            extra = True
            entries.append(f"'{loc}' is not a parameter of this tool (got {_short(err.get('input'))})")
        else:
            key = (loc, _short(err.get("input")))
            if key not in messages:
                messages[key] = []
                entries.append(key)
            else:
                at = entries.index(key)
            if str(err.get("msg")) not in messages[key]:
                messages[key].append(str(err.get("msg")))
        label = tagged.labels.get(id(err)) if tagged is not None else None
        if label is not None and label not in labelled.values():
            labelled.setdefault(at, label)
    parts: list[str] = []
    for index, entry in enumerate(entries):
        if isinstance(entry, tuple):
            first, *rest = messages[entry]
            text = ", or ".join([first, *(m[:1].lower() + m[1:] for m in rest)])
            entry = f"'{entry[0]}': {text} (got {entry[1]})"
        if index in labelled:
            entry = f"{labelled[index]}: {entry}"
        if entry not in parts:
            parts.append(entry)
    if most is not None and len(parts) > most:  # (structured output's feedback: review 247 #5)
        parts = [*parts[:most], f"and {len(parts) - most} more"]
        objects = {parent: fields for parent, fields in objects.items()
                   if any(f"'{parent}'" in part for part in parts)}
    text = f"Invalid arguments for tool '{tool_name}': " + "; ".join(parts) + "."
    names = list(known)
    if extra and names:
        text += f" Its parameters are: {', '.join(names)}."
    elif extra and schema is not None and not schema.get("properties"):
        text += " It takes no arguments: send {}."
    for parent, fields in objects.items():
        if fields:
            text += f" The fields of '{parent}' are: {', '.join(fields)}."
        elif fields is not None:
            text += f" '{parent}' takes no fields."
    return text


class _TaggedUnions:
    """The errors of a value that fits no member of a union of objects told apart by a tag (a property every member
    has with its own values, ``const`` or ``enum``, none shared: ``op: Literal["add"]`` or
    ``op: Literal["delete"]``) cut down to what the model should fix (review 237 #1), as the JSON-Schema path does
    (:mod:`toolwire.interop._union_errors`): pydantic lists every member's errors, so a call that picked
    ``"add"`` and sent a stray key was told to send ``"delete"``.

    - the tag picks a member: only that member's errors are kept (its unknown keys included, though another
      member takes them), the first one said ``with op "add": ...``, and the fields of that member are listed;
    - the tag is there but picks none: only the errors on the tag (``Input should be 'add', or ...``);
    - the tag is missing: only that, with the values it takes.

    The tag may have a default, or take several values (``Literal["add", "append"]``), and members that are no
    object (``Add | Delete | str``) are left out once the value is an object with the tag (review 242 #2, #10).

    Attributes:
        errors: the errors to word, in pydantic's order.
        labels: ``id(error)`` -> ``'with op "add"'``, for each kept error of a picked member.
        missing_tag: ``id(error)`` -> the values the tag takes (``'"add", "delete"'``), for a missing tag's error.
        fields: a picked member's pydantic ``loc`` -> its property names.
    """

    __slots__ = ("errors", "fields", "labels", "missing_tag")

    def __init__(self, errors: list[Any], schema: Mapping[str, Any]) -> None:
        self.labels: dict[int, str] = {}
        self.missing_tag: dict[int, str] = {}
        self.fields: dict[tuple[Any, ...], list[str]] = {}
        unions: dict[tuple[Any, ...], list[Any]] = {}  # a union's pydantic loc (outer ones first) -> its branches
        for err in errors:
            points: list[tuple[int, list[Any]]] = []
            loc = tuple(err.get("loc", ()))
            _schemas_at(loc, schema, points)
            for index, branches in points:
                unions.setdefault(loc[:index], branches)
        for prefix, branches in unions.items():
            errors = self._cut(errors, prefix, branches)
        self.errors = errors

    def _cut(self, errors: list[Any], prefix: tuple[Any, ...], branches: list[Any]) -> list[Any]:
        # (each property that could be the tag, required ones first, until one picks a member: a defaulted
        # constant the call left out (api: Literal["v1"] = "v1") tells nothing; review 247 #2)
        for tag, values in _union_tags(branches):
            found = self._cut_by(errors, prefix, branches, tag, values)
            if found is not None:
                return found
        return errors

    def _cut_by(self, errors: list[Any], prefix: tuple[Any, ...], branches: list[Any], tag: str,
                values: list[list[Any] | None]) -> list[Any] | None:
        """``errors`` cut by ``tag`` (see the class docstring), or None when ``tag`` tells no member apart."""
        size = len(prefix)
        objects = [b for b, v in zip(branches, values, strict=True) if v is not None]
        blocks = member_blocks(errors, prefix, objects)
        if len(objects) < len(values):  # (review 242 #10: a member that is no object, such as str, refused the
            # whole value; one whose errors are all at its own level is taken for it)
            blocks = [(name, errs) for name, errs in blocks if any(len(e.get("loc", ())) > size + 1 for e in errs)]
        if len(blocks) != len(objects) and len(objects) == len(values):  # (members sharing a name: split by
            # where each one's errors can end, when the tag the call sent allows one way alone; review 247 #4)
            blocks = split_by_tag(errors, prefix, objects, tag, [v for v in values if v is not None]) or blocks
        if len(blocks) != len(objects):  # (members sharing a name whose errors cannot be told apart: all are said)
            return None
        on_tag = [[e for e in errs if tuple(e.get("loc", ()))[size + 1:] == (tag,)] for _, errs in blocks]
        picked = [index for index, errs in enumerate(on_tag) if not errs]
        given = [e.get("input") for errs in on_tag for e in errs if e.get("type") != "missing"]
        # (a defaulted tag the call left out: its default picks the member the others' missing tag leaves;
        # review 247 #3)
        default = objects[picked[0]]["properties"][tag] if len(picked) == 1 and not given else None
        if len(picked) == 1 and (given or (isinstance(default, Mapping) and "default" in default)):
            if given:
                branch = next((b for b, v in zip(branches, values, strict=True) if v is not None
                               and any(t == given[0] and type(t) is type(given[0]) for t in v)), None)
                label = f"with {tag} {_json(given[0])}"
            else:
                branch, label = objects[picked[0]], f"with {tag} {_json(default['default'])} (its default)"
            if branch is None:
                return None
            name, chosen = blocks[picked[0]]
            keep = {id(e) for e in chosen}
            for err in chosen:
                self.labels[id(err)] = f"{self.labels[id(err)]}, {label}" if id(err) in self.labels else label
            self.fields[(*prefix, name)] = list(branch["properties"])
        elif not picked:
            keep = {id(e) for errs in on_tag for e in errs}
            if not given:
                shown = ", ".join(_json(t) for v in values if v is not None for t in v)
                self.missing_tag.update((i, shown) for i in keep)
        else:
            return None
        dropped = {id(e) for _, errs in blocks for e in errs} - keep
        if len(objects) < len(values):  # (the errors of the members that are no object go too)
            dropped |= {id(e) for e in errors if len(loc := tuple(e.get("loc", ()))) == size + 1
                        and loc[:size] == prefix} - keep
        return [err for err in errors if id(err) not in dropped]


def _union_tags(branches: list[Any]) -> list[tuple[str, list[list[Any] | None]]]:
    """Each property that could tell a union's object branches apart (see :class:`_TaggedUnions`), those every
    branch requires first, with the values each branch takes of it (``const``, or an ``enum``:
    ``Literal["add", "append"]``; required or with a default: review 242 #2), none of them shared by two branches
    (a constant every member has alike tells none apart). A branch that is no object (``str``) has ``None`` (review
    242 #10). Empty when there is none."""
    if len(branches) < 2:
        return []
    objects = [b for b in branches if isinstance(b, Mapping) and isinstance(b.get("properties"), Mapping)
               and b["properties"]]
    if len(objects) < 2:
        return []
    found: list[tuple[bool, str, list[list[Any] | None]]] = []
    for name in objects[0]["properties"]:
        values: list[list[Any]] = []
        for branch in objects:
            prop = branch["properties"].get(name)
            if not isinstance(prop, Mapping):
                break
            if "const" in prop:
                values.append([prop["const"]])
            elif isinstance(prop.get("enum"), list) and prop["enum"]:
                values.append(list(prop["enum"]))
            else:
                break
        else:
            texts = [_json(v) for taken in values for v in taken]
            if len(set(texts)) == len(texts):
                it = iter(values)
                required = all(isinstance(b.get("required"), list) and name in b["required"] for b in objects)
                found.append((required, name, [next(it) if any(b is o for o in objects) else None
                                               for b in branches]))
    return [(name, values) for required, name, values in sorted(found, key=lambda f: not f[0])]


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _short(value: Any, limit: int = 80) -> str:
    """The ``repr`` of an argument value for a validation message, cut to ``limit`` characters; ``"<TypeName>"``
    when its ``repr`` raises (an object whose ``__repr__`` reads a closed session, an int too long for text), so
    the call still gets its "Invalid arguments" error and not that exception."""
    text = safe_text(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _schemas_at(loc: tuple[Any, ...], schema: Mapping[str, Any] | None,
                points: list[tuple[int, list[Any]]] | None = None) -> tuple[list[str], list[Any]]:
    """``loc`` as the steps the model wrote (see :func:`shown_path`) and the schemas the path can end at (none
    when the schema cannot be followed that far). ``points``, when given, gets ``(index, branches)`` for each step
    of ``loc`` that is the name of a union member (the union's branches, when there is one union there)."""
    nodes: list[Any] = [schema] if isinstance(schema, Mapping) else []
    shown: list[str] = []
    for index, step in enumerate(loc):
        if not nodes or step == "[key]":  # a schema it cannot follow, or a dict key's own error
            shown.extend(str(s) for s in loc[index:])
            return shown, []
        unions = [_union_branches(node) for node in nodes]
        if all(len(branches) > 1 for branches in unions):
            if points is not None and len(unions) == 1:
                points.append((index, unions[0]))
            nodes = [branch for branches in unions for branch in branches]
            continue
        shown.append(str(step))
        nodes = [child for node, branches in zip(nodes, unions, strict=True)
                 if (child := _child_schema(branches[0] if len(branches) == 1 else node, step)) is not None]
    return shown, nodes


def shown_path(loc: tuple[Any, ...], schema: Mapping[str, Any] | None) -> str:
    """``loc`` as a dotted path in the arguments, without the union member names pydantic adds: a step is
    such a name when every schema the path can be at is an ``anyOf``/``oneOf`` of two or more non-null
    branches (``X | None`` is no union to pydantic); the path then goes on in each branch."""
    return ".".join(_schemas_at(loc, schema)[0])


def _any_member_fields(loc: tuple[Any, ...], schema: Mapping[str, Any] | None) -> set[str]:
    """The property names that some member of a union at ``loc`` (a pydantic ``loc``) takes; empty where ``loc``
    passes through no union (there one object's fields decide) or the schema cannot be followed."""
    nodes = _schemas_at(loc, schema)[1]
    branches = [b for node in nodes if isinstance(node, Mapping) for b in _union_branches(node)]
    if len(nodes) < 2 and len(branches) < 2:
        return set()
    names: set[str] = set()
    for node in [*nodes, *branches]:
        props = node.get("properties") if isinstance(node, Mapping) else None
        if isinstance(props, Mapping):
            names.update(props)
    return names


def field_names(loc: tuple[Any, ...], schema: Mapping[str, Any] | None) -> list[str] | None:
    """The property names of the object at ``loc`` (a pydantic ``loc``, as for :func:`shown_path`), or None
    when the schema does not tell one list (no schema, a path it cannot follow, union branches that differ)."""
    found: list[list[str]] = []
    for node in _schemas_at(loc, schema)[1]:
        branches = _union_branches(node) if isinstance(node, Mapping) else []
        node = branches[0] if len(branches) == 1 else node  # (X | None: the X)
        props = node.get("properties") if isinstance(node, Mapping) else None
        if not isinstance(props, Mapping):
            return None
        found.append(list(props))
    if not found or any(names != found[0] for names in found[1:]):
        return None
    return found[0]


def _child_schema(node: Mapping[str, Any], step: Any) -> Any:
    """The schema of ``node``'s item ``step`` (an array index or an object key), or None."""
    if isinstance(step, int):
        prefix = node.get("prefixItems")
        if isinstance(prefix, list) and step < len(prefix):
            return prefix[step]
        items = node.get("items")
        return items[step] if isinstance(items, list) and step < len(items) else items if isinstance(items, dict) \
            else None
    props = node.get("properties")
    if isinstance(props, dict) and step in props:
        return props[step]
    values = node.get("additionalProperties")
    return values if isinstance(values, dict) else {} if values is True else None
