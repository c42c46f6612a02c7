"""How the local model's prompts write tools and tool calls as text (used by :mod:`toolwire.models.dialects`).

* :func:`python_signature`: a tool as a Python function signature with a Google-style docstring (the
  ``pythonic`` dialect's tool list); nested object parameters list their keys in the docstring.
* :func:`format_calls`: tool calls as a reply in a call format holds them (the canonical form the grammar of
  :mod:`toolwire.models.grammar` allows), for the history and for the prompts' example calls.
* ``_example_call``: the prompts' example call of a tool, with values its schema (and so the grammar) accepts.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from toolwire.messages import ToolCall
from toolwire.models._text_content import json_form
from toolwire.models.grammar import python_literal
from toolwire.parsing.pythonic import PythonNames
from toolwire.tools import ToolSpec


def format_calls(calls: Sequence[ToolCall], fmt: str, tools: Sequence[ToolSpec] | None = None) -> str:
    """Write tool calls as a reply in ``fmt`` would hold them (the canonical form the grammar allows).

    Args:
        calls: ToolCall dicts.
        fmt: ``"pythonic"``, ``"json"`` or ``"hermes"``.
        tools: the bound tools; in ``"pythonic"``, their names and schemas decide the Python-safe spelling
            of names (:class:`~toolwire.parsing.pythonic.PythonNames`; without them, each name's own); in
            ``"json"`` and ``"hermes"``, their schemas decide the order of the arguments (the schema's
            property order, as the grammar writes them; without them, the stored order).

    Returns:
        ``[f(a=1), g(b="x")]`` (keyword arguments in signature order); ``[{"name": "f", "arguments":
        {"a": 1}}, ...]`` (one object alone when there is one call); or one ``<tool_call>`` block per call.
    """
    if fmt == "pythonic":
        names = _python_names(tools or ())
        return "[" + ", ".join(_python_call(c, names) for c in calls) + "]"
    schemas = {t.name: t.parameters for t in tools or ()}
    objects = [{"name": c["name"], "arguments": _schema_order(json_form(c["args"]), schemas.get(c["name"]))}
               for c in calls]
    if fmt == "hermes":
        return "\n".join(f"<tool_call>\n{json.dumps(o, ensure_ascii=False)}\n</tool_call>" for o in objects)
    return json.dumps(objects[0] if len(objects) == 1 else objects, ensure_ascii=False)


def _schema_order(value: Any, schema: Any, depth: int = 0) -> Any:
    """``value`` with the keys of each object the schema describes in the schema's property order (the order
    the JSON call grammar writes them), keys the schema does not name after them in their own order; objects
    inside ``properties`` and ``items`` are ordered too, other schemas (``anyOf``, ``$ref``) leave values as
    they are."""
    if not isinstance(schema, dict) or depth > 32:
        return value
    if isinstance(value, dict):
        props = schema.get("properties")
        if not isinstance(props, dict):
            return value
        order = [k for k in props if k in value] + [k for k in value if k not in props]
        return {k: _schema_order(value[k], props.get(k), depth + 1) for k in order}
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [_schema_order(v, schema["items"], depth + 1) for v in value]
    return value


def _python_names(tools: Sequence[ToolSpec]) -> PythonNames:
    return PythonNames({t.name: t.parameters for t in tools})


def _python_call(call: ToolCall, names: PythonNames) -> str:
    """One call as the pythonic prompt writes it: Python-safe names, arguments in signature order."""
    name = call["name"]
    args: dict[str, Any] = call.get("args") or {}
    order = [k for k in names.params(name) if k in args]
    order += [k for k in args if k not in order]
    written = ", ".join(f"{names.param(name, k)}={_py(json_form(args[k]))}" for k in order)
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
    ``optional`` for keys the object's ``required`` leaves out), nested objects' keys under theirs.
    """
    return _signature(spec, _python_names(tools or (spec,)))


def _doc_text(text: Any) -> str:
    """A description as one docstring line's text: no line breaks, no quote that would end the docstring."""
    return " ".join(str(text).split()).replace('"""', "'''")


def _object_schema(schema: Any) -> tuple[dict[str, Any], str] | None:
    """The object schema with ``properties`` that ``schema`` takes directly, as the items of an array, or as
    one branch of an ``anyOf``/``oneOf`` with null; with the words that introduce its keys."""
    if not isinstance(schema, dict):
        return None
    branches = schema.get("anyOf") or schema.get("oneOf")
    if isinstance(branches, list):
        others = [b for b in branches if not (isinstance(b, dict) and b.get("type") == "null")]
        return _object_schema(others[0]) if len(others) == 1 else None
    if isinstance(schema.get("properties"), dict) and schema["properties"]:
        return schema, "A dict with these keys:"
    items = schema.get("items")
    if schema.get("type") == "array" and isinstance(items, dict):
        inner = _object_schema(items)
        if inner is not None and inner[1] == "A dict with these keys:":
            return inner[0], "A list of dicts, each with these keys:"
    return None


def _keys_doc(schema: Any, indent: str, depth: int = 0) -> tuple[str, list[str]]:
    """For a parameter (or key) taking objects with ``properties``: the sentence that introduces its keys,
    and one docstring line per key at ``indent`` (nested objects' keys below theirs, at most 3 levels)."""
    found = _object_schema(schema) if depth < 3 else None
    if found is None:
        return "", []
    obj, intro = found
    required = set(obj.get("required") or ())
    lines = []
    for key, sub in obj["properties"].items():
        kind = _py_type(sub)
        flags = kind if key in required else f"{kind}, optional"
        text = _doc_text(sub.get("description", "")) if isinstance(sub, dict) else ""
        more, below = _keys_doc(sub, indent + "    ", depth + 1)
        text = " ".join(t for t in (text, more) if t)
        lines.append(f"{indent}{key} ({flags}): {text}".rstrip() if text else f"{indent}{key} ({flags})")
        lines += below
    return intro, lines


def _signature(spec: ToolSpec, names: PythonNames) -> str:
    props: dict[str, Any] = spec.parameters.get("properties") or {}
    required = set(spec.parameters.get("required") or ())
    params, docs = [], []
    for name, spelled in names.params(spec.name).items():
        sub = props[name] if isinstance(props[name], dict) else {}
        kind = _py_type(sub)
        if name in required:
            params.append(f"{spelled}: {kind}")
        else:
            params.append(f"{spelled}: {kind} = {_py(sub.get('default'))}")
        intro, keys = _keys_doc(sub, " " * 12)
        text = " ".join(t for t in (_doc_text(sub.get("description", "")), intro) if t)
        if text:
            docs.append(f"        {spelled}: {text}")
            docs += keys
    lines = [f"def {names.tool(spec.name)}({', '.join(params)}):"]
    description = (spec.description or "").strip().replace('"""', "'''")
    doc = [f"    {line}".rstrip() for line in description.splitlines()] or ["    (no description)"]
    doc[0] = '    """' + doc[0].strip()
    if docs:
        doc += ["", "    Args:", *docs]
    lines += doc
    lines.append('    """')
    return "\n".join(lines)


def _example_value(schema: Any, variant: int = 0, depth: int = 0) -> Any:
    """A literal the schema accepts, for the prompt's example call; ``variant`` picks a different value.

    The example must be a call the grammar would let the model write: an object gets its required keys, an
    array its ``minItems`` items, a union (``anyOf``/``oneOf``, a list of types) its first branch that is
    not null, a number its ``minimum`` when 1 is below it."""
    if not isinstance(schema, dict) or depth > 8:
        return "value" if not variant else "other value"
    if "const" in schema:
        return schema["const"]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][variant % len(schema["enum"])]
    branches = schema.get("anyOf") or schema.get("oneOf")
    if isinstance(branches, list) and branches:
        chosen = [b for b in branches if not (isinstance(b, dict) and b.get("type") == "null")] or branches
        return _example_value(chosen[0], variant, depth + 1)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), kind[0] if kind else None)
    if kind == "object" or (kind is None and isinstance(schema.get("properties"), dict)):
        props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        return {k: _example_value(props.get(k), variant, depth + 1) for k in schema.get("required") or () if k in props}
    if kind == "array":
        count = schema.get("minItems") if isinstance(schema.get("minItems"), int) else 0
        return [_example_value(schema.get("items"), variant, depth + 1) for _ in range(min(count, 3))]
    if kind in ("integer", "number"):
        value = (1, 2)[variant % 2] if kind == "integer" else (1.5, 2.5)[variant % 2]
        low = schema.get("minimum")
        return low if isinstance(low, int | float) and not isinstance(low, bool) and value < low else value
    values = {"boolean": (True, False), "null": (None, None)}.get(str(kind), ("value", "other value"))
    return values[variant % 2]


def _example_call(spec: ToolSpec, variant: int = 0) -> ToolCall:
    props: dict[str, Any] = spec.parameters.get("properties") or {}
    required = list(spec.parameters.get("required") or ()) or list(props)[:1]
    args = {k: _example_value(props.get(k), variant) for k in required if k in props}
    return {"name": spec.name, "args": args, "id": None, "type": "tool_call"}
