"""The null plan of OpenAI strict mode: where a ``null`` received for an optional value is dropped so that its
default applies, worked out once from a JSON Schema (:func:`null_plan`) and applied to each call's arguments
(:func:`drop_defaulted_nulls`). Re-exported by :mod:`toolwire._schema_refs` and :mod:`toolwire.schema`.
"""

from __future__ import annotations

from typing import Any

__all__ = ["NullPlan", "drop_defaulted_nulls", "null_plan", "union_branches"]


# -- nulls for optional values (OpenAI strict mode) ------------------------------------------------
# Strict mode makes every property required and the optional ones nullable, so a model that leaves a
# value out sends null. Where the schema does not accept null, the null is dropped before validation,
# so the Python default (or the absence of a NotRequired key) applies, at every level.

NullPlan = dict[str, Any]


_CONSTRAINED = frozenset(("type", "enum", "const", "anyOf", "oneOf", "allOf", "properties", "items", "not"))
_NESTED = frozenset(("anyOf", "oneOf", "properties", "items", "prefixItems", "additionalProperties"))
_OBJECT_KEYS = frozenset(("properties", "additionalProperties", "required"))
_ARRAY_KEYS = frozenset(("items", "prefixItems"))


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


def union_branches(schema: dict[str, Any]) -> list[dict[str, Any]]:
    """The non-null branches of an ``anyOf``/``oneOf``, nested unions flattened (``A | (B | None)``).

    Args:
        schema: a JSON Schema dict (``$ref`` inlined).

    Returns:
        The branch schemas (dicts) other than ``{"type": "null"}``, in order; ``[]`` when ``schema`` is no union.
    """
    out: list[dict[str, Any]] = []
    for branch in schema.get("anyOf") or schema.get("oneOf") or ():
        if not isinstance(branch, dict) or branch.get("type") == "null":
            continue
        if ("anyOf" in branch or "oneOf" in branch) and "properties" not in branch:
            out.extend(union_branches(branch))
        else:
            out.append(branch)
    return out


def _branch_kind(branch: dict[str, Any]) -> str:
    """``"object"``, ``"array"`` or ``"any"``: which JSON values a union branch can take that a plan can change."""
    kind = branch.get("type")
    kinds = set(kind) if isinstance(kind, list) else {kind} if isinstance(kind, str) else set()
    if kinds:
        if "object" in kinds and "array" not in kinds:
            return "object"
        if "array" in kinds and "object" not in kinds:
            return "array"
        return "any" if {"object", "array"} <= kinds else ""
    if not _OBJECT_KEYS.isdisjoint(branch):
        return "object"
    if not _ARRAY_KEYS.isdisjoint(branch):
        return "array"
    return "any"


def _union_plan(branches: list[dict[str, Any]], outer: dict[str, Any]) -> tuple[Any, ...] | None:
    """How to tell which branch of a union a value is, with each branch's plan (``None``: no null to drop).

    A branch is described by ``(kind, required, properties, closed, fixed, plan)``: ``fixed`` holds the
    ``(name, allowed values)`` of its ``const``/``enum`` properties (a discriminator such as
    ``kind: Literal["a"]``); ``properties`` includes the ones the union's own object declares next to it.
    """
    plans = [null_plan(branch) for branch in branches]
    if not any(plans):
        return None
    outer_props = outer.get("properties") if isinstance(outer.get("properties"), dict) else {}
    entries = []
    for branch, plan in zip(branches, plans, strict=True):
        kind = _branch_kind(branch)
        if not kind:
            continue  # a scalar branch: an object or a list is never it
        props = branch.get("properties") if isinstance(branch.get("properties"), dict) else {}
        fixed = tuple(
            (name, (sub["const"],) if "const" in sub else tuple(sub["enum"]))
            for name, sub in props.items()
            if isinstance(sub, dict) and ("const" in sub or isinstance(sub.get("enum"), list)))
        entries.append((kind, frozenset(branch.get("required") or ()), frozenset(props) | frozenset(outer_props),
                        branch.get("additionalProperties") is False, fixed, plan))
    return tuple(entries)


def _same(a: Any, b: Any) -> bool:
    return a == b and (type(a) is bool) == (type(b) is bool)


def _common_plan(candidates: list[NullPlan | None]) -> NullPlan | None:
    """What several candidate plans agree on: a null is dropped only where every one of them drops it."""
    plans = [p for p in candidates if p is not None]
    if len(plans) < len(candidates):
        return None
    first, rest = plans[0], plans[1:]
    if all(p == first for p in rest):
        return first
    out: NullPlan = {}
    drop = frozenset(first.get("drop", ())).intersection(*(p.get("drop", ()) for p in rest))
    if drop:
        out["drop"] = drop
    props = {name: sub for name, sub in first.get("props", {}).items()
             if all(p.get("props", {}).get(name) == sub for p in rest)}
    if props:
        out["props"] = props
    for key in ("items", "values", "prefix", "union"):
        if key in first and all(p.get(key) == first[key] for p in rest):
            out[key] = first[key]
    return out or None


def _pick_branch(value: Any, union: tuple[Any, ...]) -> NullPlan | None:
    """The plan of the union branch ``value`` is (the common part when it could be several)."""
    if isinstance(value, dict):
        best, found = 3, []
        for kind, required, props, closed, fixed, plan in union:
            if kind == "array" or not required.issubset(value):
                continue
            if any(value.get(name) is not None and not any(_same(value[name], a) for a in allowed)
                   for name, allowed in fixed):  # (a null may be an optional field left out)
                continue
            inside = all(key in props for key in value)
            rank = (0 if len(value) == len(props) else 1) if inside else 2 if not closed else 3
            if rank < best:
                best, found = rank, [plan]
            elif rank == best and rank < 3:
                found.append(plan)
    elif isinstance(value, list):
        found = [plan for kind, *_, plan in union if kind != "object"]
    else:
        return None
    if not found:
        return None
    return found[0] if len(found) == 1 else _common_plan(found)


def null_plan(schema: Any, top_level: frozenset[str] | None = None) -> NullPlan | None:
    """Where a received ``null`` must be dropped so that a default applies, worked out once.

    Strict mode makes optional fields required-and-nullable at every level, in the branches of a union of
    objects and in ``prefixItems`` too (OpenAI "Structured Outputs" guide, "All fields must be required"),
    so the model sends ``null`` for each one it leaves out.

    Args:
        schema: an object schema with ``$ref`` inlined (as :func:`inline_refs` returns).
        top_level: the parameters to drop at the top, when the caller knows them from the Python
            signature; by default they come from the schema like the nested ones.

    Returns:
        ``{"drop": names, "props": {name: plan}, "items": plan, "prefix": (plan, ...), "values": plan,
        "union": branches}`` (only the keys that apply) for :func:`drop_defaulted_nulls`, or ``None`` when
        no null ever needs dropping. ``union`` describes the object/array branches of an ``anyOf``/``oneOf``
        with more than one non-null branch; the branch a value is (its ``const`` discriminators, required
        and known keys) decides which nulls go.
    """
    if not isinstance(schema, dict) or _NESTED.isdisjoint(schema):  # a leaf: nothing to drop
        return None
    branches = union_branches(schema)
    if len(branches) == 1:
        return null_plan(branches[0], top_level)
    plan: NullPlan = {}
    if branches and (union := _union_plan(branches, schema)):
        plan["union"] = union
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
    prefix = schema.get("prefixItems")
    if not isinstance(prefix, list) and isinstance(schema.get("items"), list):
        prefix = schema["items"]  # the draft-07 tuple form
    if isinstance(prefix, list) and prefix:
        plans = tuple(null_plan(sub) for sub in prefix)
        if any(plans):
            plan["prefix"] = plans
    for key, out_key in (("items", "items"), ("additionalProperties", "values")):
        sub = schema.get(key)
        if isinstance(sub, dict) and (sub_plan := null_plan(sub)):
            plan[out_key] = sub_plan
    return plan or None


def drop_defaulted_nulls(value: Any, plan: NullPlan) -> Any:
    """Return ``value`` without the ``null``s that ``plan`` (from :func:`null_plan`) says to drop.

    The input is not changed; it is returned itself when nothing had to go.
    """
    union = plan.get("union")
    if union is not None:
        branch = _pick_branch(value, union)
        if branch is not None:
            value = drop_defaulted_nulls(value, branch)
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
    if isinstance(value, list):
        prefix = plan.get("prefix", ())
        rest = plan.get("items")
        if not prefix and rest is None:
            return value
        new_list = []
        for i, item in enumerate(value):
            sub = prefix[i] if i < len(prefix) else rest
            new_list.append(drop_defaulted_nulls(item, sub) if sub is not None and item is not None else item)
        return new_list if any(a is not b for a, b in zip(new_list, value, strict=True)) else value
    return value
