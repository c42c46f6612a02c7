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
        props = schema.get("properties")
        if isinstance(props, dict) and props:
            inner = ", ".join(f"{k}: {_py_type(v, depth + 1)}" for k, v in props.items())
            return f"dict  # {{{inner}}}" if depth == 0 else "dict"
        return "dict"
    return "Any"


def python_signature(spec: ToolSpec, tools: Sequence[ToolSpec] | None = None) -> str:
    """Describe a tool as a Python function signature with a Google-style docstring.

    Required parameters come first (no default), optional ones get ``= <default>`` (or ``= None``), each
    in schema order. Names Python cannot read as written get their Python-safe spelling
    (:class:`~toolwire.parsing.pythonic.PythonNames`), decided among ``tools`` (default: ``spec`` alone).
    """
    return _signature(spec, _python_names(tools or (spec,)))


def _signature(spec: ToolSpec, names: PythonNames) -> str:
    props: dict[str, Any] = spec.parameters.get("properties") or {}
    required = set(spec.parameters.get("required") or ())
    params, docs = [], []
    for name, spelled in names.params(spec.name).items():
        sub = props[name] if isinstance(props[name], dict) else {}
        kind = _py_type(sub).split("  #")[0]
        if name in required:
            params.append(f"{spelled}: {kind}")
        else:
            params.append(f"{spelled}: {kind} = {_py(sub.get('default'))}")
        if sub.get("description"):
            docs.append(f"        {spelled}: {sub['description']}")
    lines = [f"def {names.tool(spec.name)}({', '.join(params)}):"]
    description = (spec.description or "").strip().replace('"""', "'''")
    doc = [f"    {line}".rstrip() for line in description.splitlines()] or ["    (no description)"]
    doc[0] = '    """' + doc[0].strip()
    if docs:
        doc += ["", "    Args:", *docs]
    lines += doc
    lines.append('    """')
    return "\n".join(lines)


def _example_value(schema: Any, variant: int = 0) -> Any:
    """A literal of the schema's type for the prompt's example call; ``variant`` picks a different value."""
    if not isinstance(schema, dict):
        return "value" if not variant else "other value"
    if "const" in schema:
        return schema["const"]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][variant % len(schema["enum"])]
    kind = schema.get("type")
    kind = kind[0] if isinstance(kind, list) and kind else kind
    values = {"integer": (1, 2), "number": (1.5, 2.5), "boolean": (True, False), "array": ([], []),
              "object": ({}, {}), "null": (None, None)}.get(str(kind), ("value", "other value"))
    return values[variant % 2]


def _example_call(spec: ToolSpec, variant: int = 0) -> ToolCall:
    props: dict[str, Any] = spec.parameters.get("properties") or {}
    required = list(spec.parameters.get("required") or ()) or list(props)[:1]
    args = {k: _example_value(props.get(k), variant) for k in required if k in props}
    return {"name": spec.name, "args": args, "id": None, "type": "tool_call"}
