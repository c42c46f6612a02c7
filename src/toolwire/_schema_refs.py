"""JSON Schema rewriting shared by tool definitions and providers: ``$ref`` inlining (every provider gets a
self-contained schema) and the null plan of OpenAI strict mode (nulls sent for optional values are
dropped where the schema does not accept them). Re-exported by :mod:`toolwire.schema`.
"""

from __future__ import annotations

from typing import Any

from toolwire.errors import SchemaError

__all__ = ["NullPlan", "drop_defaulted_nulls", "inline_refs", "null_plan"]


# -- $ref inlining --------------------------------------------------------------------------------


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """Return ``schema`` with every local ``$ref`` replaced by its ``$defs`` entry and ``title`` keys
    dropped (property *names* called "title" are kept).

    Args:
        schema: a JSON Schema dict as pydantic writes it (``$defs`` at the top, ``#/$defs/Name`` refs).

    Returns:
        A new self-contained schema dict (the input is not changed).

    Raises:
        SchemaError: a type refers to itself (recursive model): such a schema has no finite inline form.
    """
    defs = schema.get("$defs") or schema.get("definitions") or {}

    def walk(node: Any, stack: tuple[str, ...]) -> Any:
        if isinstance(node, list):
            return [walk(x, stack) for x in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(("#/$defs/", "#/definitions/")):
            name = ref.rsplit("/", 1)[1]
            if name in stack:
                raise SchemaError(
                    f"The type {name!r} refers to itself, and a tool schema must be finite: "
                    "replace the recursive field with a depth-limited type or a JSON string."
                )
            if name not in defs:
                raise SchemaError(f"The schema refers to {ref!r}, which it does not define.")
            target = walk(defs[name], (*stack, name))
            extra = {k: walk(v, stack) for k, v in node.items() if k not in ("$ref", "title")}
            return {**target, **extra} if extra else target
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in ("$defs", "definitions", "title"):
                continue
            if key == "properties" and isinstance(value, dict):
                out[key] = {pname: walk(pschema, stack) for pname, pschema in value.items()}
            else:
                out[key] = walk(value, stack)
        return out

    return walk(schema, ())


def _object_schema(schema: dict[str, Any]) -> dict[str, Any]:
    return _object_shape(inline_refs(schema))


def _object_shape(out: dict[str, Any]) -> dict[str, Any]:
    out.pop("additionalProperties", None)
    out["type"] = "object"
    out.setdefault("properties", {})
    if not out.get("required"):
        out.pop("required", None)
    # put the keys in a stable, readable order
    ordered = {"type": "object"}
    if "description" in out:
        ordered["description"] = out.pop("description")
    ordered.update(out)
    return ordered


# -- nulls for optional values (OpenAI strict mode) ------------------------------------------------
# Strict mode makes every property required and the optional ones nullable, so a model that leaves a
# value out sends null. Where the schema does not accept null, the null is dropped before validation,
# so the Python default (or the absence of a NotRequired key) applies, at every level.

NullPlan = dict[str, Any]


_CONSTRAINED = frozenset(("type", "enum", "const", "anyOf", "oneOf", "allOf", "properties", "items", "not"))
_NESTED = frozenset(("anyOf", "oneOf", "properties", "items", "additionalProperties"))


def _admits_null(node: Any) -> bool:
    if not isinstance(node, dict):
        return True
    kind = node.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    if None in (node.get("enum") or ()) or ("const" in node and node["const"] is None):
        return True
    for key in ("anyOf", "oneOf"):
        for branch in node.get(key) or ():
            if _admits_null(branch):
                return True
    return _CONSTRAINED.isdisjoint(node)  # {} (or only a description): any value


def null_plan(schema: Any, top_level: frozenset[str] | None = None) -> NullPlan | None:
    """Where a received ``null`` must be dropped so that a default applies, worked out once.

    Args:
        schema: an object schema with ``$ref`` inlined (as :func:`inline_refs` returns).
        top_level: the parameters to drop at the top, when the caller knows them from the Python
            signature; by default they come from the schema like the nested ones.

    Returns:
        ``{"drop": names, "props": {name: plan}, "items": plan, "values": plan}`` (only the keys that
        apply) for :func:`drop_defaulted_nulls`, or ``None`` when no null ever needs dropping.
    """
    if not isinstance(schema, dict) or _NESTED.isdisjoint(schema):  # a leaf: nothing to drop
        return None
    branches = [b for b in (schema.get("anyOf") or schema.get("oneOf") or ())
                if isinstance(b, dict) and b.get("type") != "null"]
    if len(branches) == 1:
        return null_plan(branches[0], top_level)
    plan: NullPlan = {}
    props = schema.get("properties")
    if isinstance(props, dict):
        required = set(schema.get("required") or ())
        drop = top_level if top_level is not None else frozenset(
            name for name, sub in props.items() if name not in required and not _admits_null(sub))
        if drop:
            plan["drop"] = frozenset(drop)
        nested = {name: sub_plan for name, sub in props.items() if (sub_plan := null_plan(sub))}
        if nested:
            plan["props"] = nested
    for key, out_key in (("items", "items"), ("additionalProperties", "values")):
        sub = schema.get(key)
        if isinstance(sub, dict) and (sub_plan := null_plan(sub)):
            plan[out_key] = sub_plan
    return plan or None


def drop_defaulted_nulls(value: Any, plan: NullPlan) -> Any:
    """Return ``value`` without the ``null``s that ``plan`` (from :func:`null_plan`) says to drop.

    The input is not changed; it is returned itself when nothing had to go.
    """
    if isinstance(value, dict):
        drop = plan.get("drop", ())
        props = plan.get("props", {})
        values = plan.get("values")
        out: dict[Any, Any] = {}
        changed = False
        for key, item in value.items():
            if item is None:
                if key in drop:
                    changed = True
                    continue
            else:
                sub = props.get(key, values)
                if sub is not None:
                    new = drop_defaulted_nulls(item, sub)
                    changed = changed or new is not item
                    item = new
            out[key] = item
        return out if changed else value
    if isinstance(value, list) and "items" in plan:
        new_list = [drop_defaulted_nulls(item, plan["items"]) if item is not None else item for item in value]
        return new_list if any(a is not b for a, b in zip(new_list, value, strict=True)) else value
    return value
