"""How the local model's prompts write tools and tool calls as text (used by :mod:`toolwire.models.dialects`).

* :func:`python_signature`: a tool as a Python function signature with a Google-style docstring (the
  ``pythonic`` dialect's tool list); nested object parameters list their keys in the docstring.
* :func:`format_calls`: tool calls as a reply in a call format holds them (the canonical form the grammar of
  :mod:`toolwire.models.grammar` allows), for the history and for the prompts' example calls.
* ``_example_call``: the prompts' example call of a tool, with values its schema (and so the grammar) accepts.
"""

from __future__ import annotations

import contextlib
import json
import math
import random
from collections.abc import Sequence
from typing import Any

from toolwire._schema_patterns import pattern_found
from toolwire.messages import ToolCall
from toolwire.models._call_checks import _leaves
from toolwire.models._local_union import argument_forms, local_parameters
from toolwire.models._text_content import json_form
from toolwire.models._value_notes import FORMS, rule_notes, value_notes
from toolwire.models.grammar import _types, float_items, python_literal, required_keys
from toolwire.parsing.pythonic import PythonNames
from toolwire.tools import ToolSpec

try:
    import rstr  # draws the example string of a pattern; the local extra installs it
except ImportError:  # pragma: no cover - without it, a pattern's example is the plain "value"
    rstr = None


def format_calls(calls: Sequence[ToolCall], fmt: str, tools: Sequence[ToolSpec] | None = None) -> str:
    """Write tool calls as a reply in ``fmt`` would hold them (the canonical form the grammar allows).

    Args:
        calls: ToolCall dicts.
        fmt: ``"pythonic"``, ``"json"``, ``"hermes"`` or ``"function_tag"``.
        tools: the bound tools; in ``"pythonic"``, their names and schemas decide the Python-safe spelling
            of names (:class:`~toolwire.parsing.pythonic.PythonNames`; without them, each name's own); in
            ``"json"`` and ``"hermes"``, their schemas decide the order of the arguments (the schema's
            property order, as the grammar writes them; without them, the stored order).

    Returns:
        ``[f(a=1), g(b="x")]`` (keyword arguments in signature order); ``[{"name": "f", "arguments":
        {"a": 1}}, ...]`` (one object alone when there is one call); or one ``<tool_call>`` block per call
        (``function_tag``: Qwen3-Coder's ``<function=NAME>`` and ``<parameter=KEY>`` tags inside, as its chat
        template writes them: a string as it is, any other value as JSON).
    """
    if fmt == "pythonic":
        names = _python_names(tools or ())
        return "[" + ", ".join(_python_call(c, names) for c in calls) + "]"
    schemas = {t.name: local_parameters(t.parameters, t.name) for t in tools or ()}
    objects = [{"name": c["name"], "arguments": _schema_order(json_form(c["args"]), schemas.get(c["name"]))}
               for c in calls]
    if fmt == "hermes":
        return "\n".join(f"<tool_call>\n{json.dumps(o, ensure_ascii=False)}\n</tool_call>" for o in objects)
    if fmt == "function_tag":
        return "\n".join(_tag_block(o["name"], o["arguments"]) for o in objects)
    return json.dumps(objects[0] if len(objects) == 1 else objects, ensure_ascii=False)


def _tag_block(name: str, arguments: Any) -> str:
    """One call as Qwen3-Coder's chat template writes it (``function_tag``)."""
    params = "".join(f"<parameter={key}>\n{value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)}"
                     "\n</parameter>\n" for key, value in (arguments.items() if isinstance(arguments, dict) else ()))
    return f"<tool_call>\n<function={name}>\n{params}</function>\n</tool_call>"


def _schema_order(value: Any, schema: Any, depth: int = 0) -> Any:
    """``value`` with the keys of each object the schema describes in the schema's property order (the order
    the JSON call grammar writes them), keys the schema does not name after them in their own order; objects
    inside ``properties`` and ``items`` are ordered too, other schemas (``anyOf``, ``$ref``) leave values as
    they are. Whole numbers in a ``list[float]`` become floats, as the grammar writes them
    (:func:`~toolwire.models.grammar.float_items`)."""
    if not isinstance(schema, dict) or depth > 32:
        return value
    if isinstance(value, dict):
        props = schema.get("properties")
        if not isinstance(props, dict):
            return value
        order = [k for k in props if k in value] + [k for k in value if k not in props]
        return {k: _schema_order(value[k], props.get(k), depth + 1) for k in order}
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        if float_items(schema["items"]):
            return [float(v) if isinstance(v, int) and not isinstance(v, bool) and abs(v) < 2**53 else v
                    for v in value]
        return [_schema_order(v, schema["items"], depth + 1) for v in value]
    return value


def _python_names(tools: Sequence[ToolSpec]) -> PythonNames:
    return PythonNames({t.name: local_parameters(t.parameters, t.name) for t in tools})


def _python_call(call: ToolCall, names: PythonNames) -> str:
    """One call as the pythonic prompt writes it: Python-safe names, arguments in signature order (arguments
    kept as unreadable text, which its error result answered, written as that text)."""
    name = call["name"]
    args: dict[str, Any] = call.get("args") or {}
    if not isinstance(args, dict):
        return f"{names.tool(name)}({args if isinstance(args, str) else json_form(args)})"
    order = [k for k in names.params(name) if k in args]
    order += [k for k in args if k not in order]
    props = (names.schema(name) or {}).get("properties")
    props = props if isinstance(props, dict) else {}
    written = ", ".join(f"{names.param(name, k)}={_py(_schema_order(json_form(args[k]), props.get(k)))}"
                        for k in order)
    return f"{names.tool(name)}({written})"


def _py(value: Any) -> str:
    try:
        return python_literal(value)
    except ValueError:
        return "None"


# -- describing tools ------------------------------------------------------------------------------------


def _py_type(schema: Any, depth: int = 0) -> str:
    if not isinstance(schema, dict) or depth > 4:
        return "Any"
    if "const" in schema:
        return f"Literal[{_py(schema['const'])}]"
    if isinstance(schema.get("enum"), list):
        return "Literal[" + ", ".join(_py(v) for v in schema["enum"]) + "]"
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list):
            return " | ".join(dict.fromkeys(_py_type(s, depth + 1) for s in schema[key]))
    kind = schema.get("type")
    if isinstance(kind, list):
        return " | ".join(_py_type({**schema, "type": k}, depth + 1) for k in kind)
    simple = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"}
    if kind in simple:
        return simple[kind]
    if kind == "array":
        return f"list[{_py_type(schema.get('items'), depth + 1)}]"
    if kind == "object" or "properties" in schema:
        return "dict"  # its keys are listed in the docstring (_keys_doc)
    return "Any"


def python_signature(spec: ToolSpec, tools: Sequence[ToolSpec] | None = None) -> str:
    """Describe a tool as a Python function signature with a Google-style docstring.

    Required parameters come first (no default), optional ones get ``= <default>`` (or ``= None``), each
    in schema order. Names Python cannot read as written get their Python-safe spelling
    (:class:`~toolwire.parsing.pythonic.PythonNames`), decided among ``tools`` (default: ``spec`` alone).
    A parameter that takes an object with ``properties`` (or a list of such objects) is typed ``dict`` (or
    ``list[dict]``) and its keys are listed under it in the docstring, Google style (``key (type): text``,
    ``optional`` for keys the object's ``required`` leaves out), nested objects' keys under theirs. Arguments given as a
    top-level ``anyOf``/``oneOf``/``allOf`` of objects are shown as their fold (every branch's parameters, which
    alternative to give said after the description, in the signature's spellings:
    :func:`~toolwire.models._local_union.local_parameters`).

    Args:
        spec: the tool (name, description, JSON Schema of its arguments).
        tools: the tools offered with it, which decide the Python-safe spellings (default: ``spec`` alone).

    Returns:
        The ``def name(...):`` line and its docstring, as the ``pythonic`` dialect's system prompt shows them.
        Never raises on odd schemas: what it cannot type is ``Any``, a non-list ``required`` counts as none.
    """
    return _signature(spec, _python_names(tools or (spec,)))


def _doc_text(text: Any) -> str:
    """A description (or key name) as one docstring line's text: no line breaks, no quote that would end the
    docstring; nothing for a missing or non-string description."""
    if not isinstance(text, str):
        return ""
    return " ".join(text.split()).replace('"""', "'''")


def _object_schema(schema: Any) -> tuple[list[dict[str, Any]], str] | None:
    """The object schemas with ``properties`` that ``schema`` takes directly, as the items of an array, or as the
    branches of an ``anyOf``/``oneOf`` (null left out; every other branch such an object), with the words that
    introduce their keys; one schema but for a union of objects (a discriminated union: review 124 #6)."""
    if not isinstance(schema, dict):
        return None
    branches = schema.get("anyOf") or schema.get("oneOf")
    if isinstance(branches, list):
        others = [b for b in branches if not (isinstance(b, dict) and b.get("type") == "null")]
        if len(others) == 1:
            return _object_schema(others[0])
        forms = [_object_schema(b) for b in others]
        if not others or any(f is None or f[1] != _KEYS or len(f[0]) != 1 for f in forms):
            return None
        return [f[0][0] for f in forms if f is not None], _FORMS
    if isinstance(schema.get("properties"), dict) and schema["properties"]:
        return [schema], _KEYS
    items = schema.get("items")
    if schema.get("type") == "array" and isinstance(items, dict):
        inner = _object_schema(items)
        if inner is not None and inner[1] in (_KEYS, _FORMS):
            return inner[0], _EACH_KEYS if inner[1] == _KEYS else _EACH_FORM
    return None


_KEYS, _FORMS = "A dict with these keys:", "A dict in one of these forms:"
_EACH_KEYS, _EACH_FORM = "A list of dicts, each with these keys:", "A list of dicts, each in one of these forms:"


def _with_notes(text: str, schema: Any) -> str:
    """``text`` (a description) followed by the bounds of ``schema`` that the grammar does not hold the model to
    (``maxLength``, ``maximum``, ``maxItems``, a date's or a UUID's form..., at every level a value reaches:
    :func:`~toolwire.models._value_notes.value_notes`): without them a call the grammar let through was refused only
    at validation (review 124 #6)."""
    notes = " ".join(value_notes(schema) + rule_notes(schema))
    if not notes:
        return text
    if text and not text.endswith((".", "!", "?", ":")):
        text += "."
    return f"{text} {notes}".strip()


def _doc_of(schema: Any) -> str:
    """A parameter's (or key's) description, else its ``title`` (one the user wrote: review 264 #2)."""
    return _doc_text(schema.get("description", "")) or _doc_text(schema.get("title", "")) \
        if isinstance(schema, dict) else ""


def _keys_doc(schema: Any, indent: str, depth: int = 0) -> tuple[str, list[str]]:
    """For a parameter (or key) taking objects with ``properties``: the sentence that introduces its keys,
    and one docstring line per key at ``indent`` (nested objects' keys below theirs, at most 3 levels); for a union
    of objects, a ``Form N:`` line per branch with its keys below it."""
    found = _object_schema(schema) if depth < 3 else None
    if found is None:
        return "", []
    objects, intro = found
    if len(objects) == 1 and intro in (_KEYS, _EACH_KEYS):
        return intro, _key_lines(objects[0], indent, depth)
    lines = []
    for number, obj in enumerate(objects, 1):
        lines.append(f"{indent}Form {number}:")
        lines += _key_lines(obj, indent + "    ", depth)
    return intro, lines


def _key_lines(obj: dict[str, Any], indent: str, depth: int) -> list[str]:
    """One docstring line per key of the object schema ``obj`` (``key (type[, optional]): text``), nested objects'
    keys below theirs."""
    required = set(required_keys(obj))
    lines = []
    for key, sub in obj["properties"].items():
        kind = _py_type(sub)
        flags = kind if key in required else f"{kind}, optional"
        written = _doc_text(key) or '""'
        text = _doc_of(sub)
        more, below = _keys_doc(sub, indent + "    ", depth + 1)
        text = " ".join(t for t in (_with_notes(text, sub), more) if t)
        lines.append(f"{indent}{written} ({flags}): {text}".rstrip() if text else f"{indent}{written} ({flags})")
        lines += below
    return lines


def _signature(spec: ToolSpec, names: PythonNames) -> str:
    keywords = names.params(spec.name)
    # (a top-level union as its fold, review 198 #1; which alternative to give in the signature's spellings, 204 #7)
    parameters = local_parameters(spec.parameters, spec.name, key_text=lambda key: keywords.get(key, key),
                                  value_text=_py)
    props: dict[str, Any] = parameters.get("properties") or {}
    required = set(required_keys(parameters))
    params, docs = [], []
    for name, spelled in keywords.items():
        sub = props[name] if isinstance(props[name], dict) else {}
        kind = _py_type(sub)
        if name in required:
            params.append(f"{spelled}: {kind}")
        else:
            params.append(f"{spelled}: {kind} = {_py(sub.get('default'))}")
        intro, keys = _keys_doc(sub, " " * 12)
        text = " ".join(t for t in (_with_notes(_doc_of(sub), sub), intro) if t)
        if text:
            docs.append(f"        {spelled}: {text}")
            docs += keys
    lines = [f"def {names.tool(spec.name)}({', '.join(params)}):"]
    description = (spec.description or "").strip()
    if parameters is not spec.parameters and _doc_text(parameters.get("description")):  # which alternative to give
        description = f"{description}\n{_doc_text(parameters['description'])}".strip()
    if rules := " ".join(rule_notes(spec.parameters, own=True)):  # (the root's: review 271 #2)
        stop = "" if not description or description.endswith((".", "!", "?", ":")) else "."
        description = f"{description}{stop} {rules}".strip()
    description = description.replace('"""', "'''")
    doc = [f"    {line}".rstrip() for line in description.splitlines()] or ["    (no description)"]
    doc[0] = '    """' + doc[0].strip()
    if docs:
        doc += ["", "    Args:", *docs]
    lines += doc
    lines.append('    """')
    return "\n".join(lines)


def _number(schema: dict[str, Any], value: float, integer: bool) -> float:
    """``value`` moved inside the schema's ``minimum``/``exclusiveMinimum``/``maximum`` bounds (whole for
    an integer)."""
    def bound(key: str) -> float | None:
        found = schema.get(key)
        if isinstance(found, bool) or not isinstance(found, int | float):
            return None
        if isinstance(found, float) and not math.isfinite(found):
            return None
        return found if abs(found) < 1e15 else None  # the grammar writes at most 24 digits: keep it simple

    low, above, high = bound("minimum"), bound("exclusiveMinimum"), bound("maximum")
    if low is not None and value < low:
        value = math.ceil(low) if integer else low
    if above is not None and value <= above:
        value = math.floor(above) + 1 if integer else above + 1
    if high is not None and value > high:
        value = math.floor(high) if integer else high
    return value


def _example_value(schema: Any, variant: int = 0, depth: int = 0, scale: int = 1) -> Any:
    """A literal the schema accepts, for the prompt's example call; each ``variant`` (0, 1, 2...) gives a
    different value where the type has one (``"value"``, ``"other value"``, ``"value 3"``...; 1, 2, 3...).

    The example must be a call the grammar (:mod:`toolwire.models.grammar`) lets the model write, read the
    way the grammar reads the schema: ``const``/``enum`` first; of a union (``anyOf``/``oneOf``) the first
    branch that is not null, with the parent's keys merged in; of a list of types the first that is not
    null; an object gets its required keys, a tuple (``prefixItems``) an item per position, an array its
    ``minItems`` items (up to 64, and up to 256 with the counts of the lists it is in multiplied: review 139 #1;
    distinct ones under ``uniqueItems`` where the item type has enough values), a number stays within
    ``minimum``/``exclusiveMinimum``/``maximum`` (bounds past 1e15 are left aside), a string of a ``format`` whose
    form is known (:data:`~toolwire.models._value_notes.FORMS`) is written in it (``"2025-01-01"``), a string
    with a ``pattern`` is one that matches it where :func:`_pattern_example` finds one (``"39201"`` for
    ``^[0-9]{5}$``), and another string is at least ``minLength`` long (up to 64). The grammar holds
    neither the pattern nor the counts (they are left to validation), but a model copies the example's form,
    so the example keeps them (review 131 #6: a ``zip_code`` example of ``"value"`` was refused)."""
    if not isinstance(schema, dict) or depth > 8:
        return "value" if not variant else "other value" if variant == 1 else f"value {variant + 1}"
    if "const" in schema:
        return schema["const"]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][variant % len(schema["enum"])]
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if isinstance(branches, list) and branches:
            base = {k: v for k, v in schema.items() if k not in ("anyOf", "oneOf", "description", "title")}
            merged = [{**base, **b} if isinstance(b, dict) else b for b in branches]
            chosen = [b for b in merged if not (isinstance(b, dict) and _types(b) == ["null"])] or merged
            return _example_value(chosen[0], variant, depth + 1, scale)
    kinds = _types(schema)
    kind = next((k for k in kinds if k != "null"), kinds[0] if kinds else None)
    if kind == "object":
        props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        wanted = set(required_keys(schema))
        return {k: _example_value(props[k], variant, depth + 1, scale) for k in props if k in wanted}  # grammar's order
    if kind == "array":
        count = schema.get("minItems")
        count = count if isinstance(count, int) and not isinstance(count, bool) and 0 <= count <= 64 else 0
        count = count if scale * count <= 256 else 0  # (nested lists: their counts multiply)
        inner = scale * max(count, 1)
        step = 1 if schema.get("uniqueItems") is True else 0
        # a tuple (``prefixItems``, or the older ``items`` list): each position's own item (review 71: the
        # example of a tuple[int, str] was ["value", "value"], which the grammar refuses)
        fixed = schema.get("prefixItems", schema.get("items"))
        fixed = fixed if isinstance(fixed, list) else []
        rest = schema.get("additionalItems") if isinstance(schema.get("items"), list) else schema.get("items")
        head = [_example_value(item, variant, depth + 1, inner) for item in fixed[:64]]
        values = head + [_example_value(rest, variant + i * step, depth + 1, inner) for i in range(len(head), count)]
        return [float(v) for v in values] if not fixed and float_items(rest) else values  # as the grammar
    if kind == "integer":
        return _number(schema, variant + 1, True)
    if kind == "number":
        return _number(schema, variant + 1.5, False)
    if kind == "boolean":
        return not variant % 2
    if kind == "null":
        return None
    matching = _pattern_example(schema, variant)
    if matching is not None:
        return matching
    fmt = schema.get("format")
    if fmt in FORMS and "pattern" not in schema:  # the form validation takes
        day = f"2025-01-{variant % 28 + 1:02d}"
        return {"date": day, "date-time": f"{day}T09:00:00", "time": f"{9 + variant % 12:02d}:00:00",
                "uuid": f"00000000-0000-4000-8000-{variant + 1:012d}"}[fmt]
    text = "value" if not variant else "other value" if variant == 1 else f"value {variant + 1}"
    least = schema.get("minLength")
    if isinstance(least, int) and not isinstance(least, bool) and len(text) < least <= 64:
        text = text.ljust(least, "x")
    return text


class _ExampleDraws(random.Random):
    """The draws :mod:`rstr`'s string generator makes for an example string: each repeat its fewest times,
    each character an ASCII letter or digit where its class holds one, picked by the seed. The library draws
    at random; these draws keep the prompt the same from run to run (and the prompt cache valid)."""

    def randint(self, a: int, b: int) -> int:
        return a

    def choice(self, seq: Any) -> Any:
        items = list(seq)
        if all(isinstance(item, str) for item in items):  # a negated class comes from a set: sort it
            items = sorted(items)
            items = [c for c in items if c.isascii() and c.isalnum()] or items
        return items[self.randrange(len(items))]


_SHORTEST = 64  # the most characters the shortest string a pattern matches may have, for it to get an example
_WIDEST_CLASS = 4096  # the most characters a class range of such a pattern may span (each draw lists them all)


def _drawable(pattern: str) -> bool:
    """Whether rstr can draw a string for ``pattern`` at once: a Python regular expression whose shortest match is at
    most :data:`_SHORTEST` characters (``{100000000}`` or ``(a{1000}){1000}`` is not) and none of whose class ranges
    spans more than :data:`_WIDEST_CLASS` characters (review 139 #1: such patterns took seconds or froze the
    prompt's making). Read with :mod:`re`'s own parser, the one rstr draws from."""
    try:
        from re import _parser  # type: ignore[attr-defined]

        tree = _parser.parse(pattern)
        if tree.getwidth()[0] > _SHORTEST:
            return False
    except Exception:  # not a Python regular expression (an ECMA-262 \p{L}), or one too deep to read
        return False
    stack: list[Any] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, tuple) and len(node) == 2 and node[0] is _parser.RANGE:
            if node[1][1] - node[1][0] > _WIDEST_CLASS:
                return False
        elif isinstance(node, list | tuple | _parser.SubPattern):
            stack.extend(node if not isinstance(node, _parser.SubPattern) else node.data)
    return True


def _pattern_example(schema: dict[str, Any], variant: int) -> str | None:
    """A string that the schema's ``pattern`` matches (searched anywhere, as JSON Schema and pydantic do, and in
    linear time: :func:`~toolwire._schema_patterns.pattern_found`, which counts a pattern it cannot search as
    matching, as validation does) and whose length is within ``minLength``/``maxLength`` and at most 64, drawn by rstr
    (https://github.com/leapfrogonline/rstr) with :class:`_ExampleDraws` seeded by ``variant``; None without a
    pattern, without rstr (the ``local`` extra installs it), or when the pattern is not one rstr can draw for at once
    (:func:`_drawable`) or rstr finds no such string."""
    pattern = schema.get("pattern")
    if not isinstance(pattern, str) or rstr is None or not _drawable(pattern):
        return None
    try:
        text = rstr.Rstr(_ExampleDraws(variant)).xeger(pattern)
        found = isinstance(text, str) and len(text) <= 64 and pattern_found(pattern, text)
    except Exception:  # a third-party generator on any pattern: an odd one gives no example
        return None
    least, most = schema.get("minLength"), schema.get("maxLength")
    if (isinstance(least, int) and len(text) < least) or (isinstance(most, int) and len(text) > most):
        return None
    return text if found else None


def _example_call(spec: ToolSpec, variant: int = 0) -> ToolCall:
    form = argument_forms(spec.parameters)[0]  # (of a top-level union, its first alternative: review 198 #1)
    props = form.get("properties")
    props = props if isinstance(props, dict) else {}
    required = required_keys(form) or list(props)[:1]
    args = {k: _example_value(props.get(k), variant) for k in required if k in props}
    return {"name": spec.name, "args": args, "id": None, "type": "tool_call"}


def example_strings(tools: Sequence[ToolSpec], parallel: bool = True) -> dict[str, frozenset[str]]:
    """The made-up strings of the prompt's example calls, by the function name the calls write.

    Args:
        tools: the tools offered, in the prompt's order (the examples call the first one).
        parallel: whether the prompt shows two example calls (parallel tool calls on) or one.

    Returns:
        ``{name of the first tool, as a pythonic call writes it and as a JSON call does: its example calls'
        strings}`` (``"value"``, ``"other value"``), leaving out any string the schema itself lists
        (``enum``/``const``/``default``/``examples``: real choices); numbers are left out (``1.5`` is too
        often a real value). Empty for no tools. A call of that tool that copies one of them, where the
        conversation does not hold it, fills the schema with the example rather than with the user's values.
        Never raises on odd schemas (nothing is found then).
    """
    if not tools:
        return {}
    spec = tools[0]
    listed: set[str] = set()

    def walk(node: Any, depth: int = 0) -> None:
        if depth > 32:
            return
        if isinstance(node, dict):
            for key in ("enum", "const", "default", "examples"):
                if key in node:
                    listed.update(leaf for leaf in _scalars(node[key]) if isinstance(leaf, str))
            for item in node.values():
                walk(item, depth + 1)
        elif isinstance(node, list):
            for item in node:
                walk(item, depth + 1)

    try:
        walk(spec.parameters)
        shown = [_example_call(spec, variant)["args"] for variant in ((0, 1) if parallel else (0,))]
        found = {leaf for args in shown for leaf in _scalars(args) if isinstance(leaf, str)} - listed
    except (RecursionError, ValueError, TypeError, AttributeError, OverflowError):
        return {}
    if not found:
        return {}
    return {_python_names(tools).tool(spec.name): frozenset(found), spec.name: frozenset(found)}


_SCHEMA_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})
"""JSON Schema keywords whose value maps names (a parameter's, a definition's) to schemas."""

_DATA_KEYWORDS = frozenset({"default", "const", "enum", "examples"})
"""JSON Schema keywords whose value is data, not a schema."""


def default_values(tools: Sequence[ToolSpec]) -> dict[str, dict[str, list[str]]]:
    """The values each tool's schema gives as ``default`` or ``const`` (at any depth), as text, by the function
    name a call writes and the argument they belong to.

    A call that writes one makes nothing up: a default says what leaving the argument out says, a const is the one
    value allowed. So they count as found, beside the conversation's texts, when the values the model chose for a
    call are judged, but not the arguments or calls a call went on to (the rule for those is about values the
    request gave) (:func:`~toolwire.models._call_checks.made_up_value`; review 80: ``zip="00000"``, the default,
    declined a right call of ``ship``, and the default model then wrote its lead-in sentence again until
    ``max_tokens``). They count only for that tool's argument: another tool's default, or another argument's,
    says nothing about this value.

    Args:
        tools: the tools offered.

    Returns:
        ``{function name, as a pythonic call writes it and as a JSON call does: {argument name, likewise: the
        strings and numbers found, as text}}``. An argument's values are those under its own schema and under the
        ``$defs`` it refers to (``#/$defs/Address`` for a nested model), at any depth; booleans and None are left
        out (they are never judged). What was found before an odd schema stopped the search.
    """
    found: dict[str, dict[str, list[str]]] = {}
    names = _python_names(tools)
    for spec in tools:
        params = local_parameters(spec.parameters, spec.name)
        props = params.get("properties") if isinstance(params, dict) else None
        by_arg: dict[str, list[str]] = {}
        with contextlib.suppress(RecursionError, ValueError, TypeError, AttributeError):
            for arg, schema in (props.items() if isinstance(props, dict) else ()):
                values = _schema_defaults(schema, params)
                if values:
                    by_arg[arg] = by_arg[names.param(spec.name, arg)] = values
        if by_arg:
            found[spec.name] = found[names.tool(spec.name)] = by_arg
    return found


def _schema_defaults(schema: Any, root: dict[str, Any]) -> list[str]:
    """The ``default``/``const`` values, as text, under ``schema`` and the local ``$ref`` targets in ``root`` it
    reaches (each target read once)."""
    found: list[str] = []
    seen: set[str] = set()

    def walk(node: Any, depth: int = 0, names: bool = False) -> None:
        # names: node maps names to schemas (``properties``...): a parameter called "default" is no default (review 82)
        if depth > 32:
            return
        if isinstance(node, dict):
            if not names:
                found.extend(str(leaf) for key in ("default", "const") if key in node
                             for leaf in _scalars(node[key]) if isinstance(leaf, str | int | float))
                ref = node.get("$ref")
                if isinstance(ref, str) and ref.startswith("#/") and ref not in seen:
                    seen.add(ref)
                    target: Any = root
                    for part in ref[2:].split("/"):
                        target = target.get(part.replace("~1", "/").replace("~0", "~")) \
                            if isinstance(target, dict) else None
                    walk(target, depth + 1)
            for key, item in node.items():
                if names or key not in _DATA_KEYWORDS:  # values, not schemas (a default's own leaves are read above)
                    walk(item, depth + 1, not names and key in _SCHEMA_MAPS)
        elif isinstance(node, list):
            for item in node:
                walk(item, depth + 1)

    walk(schema)
    return found


def _scalars(value: Any) -> list[Any]:
    return [leaf for leaf in _leaves(value) if not isinstance(leaf, bool)]
