"""The null plan of OpenAI strict mode: where a ``null`` received for an optional value is dropped so that its
default applies, worked out once from a JSON Schema (:func:`null_plan`) and applied to each call's arguments
(:func:`drop_defaulted_nulls`). Re-exported by :mod:`toolwire._schema_refs` and :mod:`toolwire.schema`.
"""

from __future__ import annotations

import copy
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


_JSON_TYPES: dict[str, tuple[type, ...]] = {"string": (str,), "integer": (int,), "number": (int, float),
                                            "boolean": (bool,), "array": (list,), "object": (dict,)}


def _of_type(value: Any, kind: Any) -> bool:
    """Whether the JSON value ``value`` (not null) is of the JSON Schema type ``kind`` (a boolean is no number)."""
    if isinstance(value, bool) and kind != "boolean":
        return False
    if kind == "integer" and isinstance(value, float):
        return value.is_integer()
    return isinstance(value, _JSON_TYPES.get(kind, ()))


def _takes(node: dict[str, Any], value: Any) -> bool:
    """Whether the schema ``node`` may take ``value`` (a JSON ``default``): ``null`` only where :func:`_admits_null`,
    another value when the whole node validates it (JSON Schema 2020-12, with the ``jsonschema`` package: its type,
    enum, const and its bounds and pattern too, review 128 #3: a sentinel ``Field(0, ge=1)`` was given back); a
    ``default`` pydantic never validated, such as ``z: int = None``, can be refused."""
    if value is None:
        return _admits_null(node)
    try:
        import jsonschema

        return jsonschema.Draft202012Validator(node).is_valid(value)
    except Exception:  # (a node jsonschema cannot read: its own keywords decide, below)
        pass
    kind = node.get("type")
    kinds = [kind] if isinstance(kind, str) else kind if isinstance(kind, list) else None
    if kinds is not None and not any(_of_type(value, k) for k in kinds):
        return False
    if "const" in node and not _same(node["const"], value):
        return False
    return not isinstance(node.get("enum"), list) or any(_same(value, a) for a in node["enum"])


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

    A branch is described by ``(kind, required, properties, closed, fixed, plan, fills)``: ``fixed`` holds the
    ``(name, allowed values)`` of its ``const``/``enum`` properties (a discriminator such as
    ``kind: Literal["a"]``); ``properties`` includes the ones the union's own object declares next to it;
    ``fills`` maps the properties whose null the branch drops to their JSON ``default``, when they have one (see
    :func:`_kept_apart`).
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
        fills = {name: props[name]["default"] for name in (plan or {}).get("drop", ())
                 if isinstance(props.get(name), dict) and "default" in props[name]
                 and _takes(props[name], props[name]["default"])}
        entries.append((kind, frozenset(branch.get("required") or ()), frozenset(props) | frozenset(outer_props),
                        branch.get("additionalProperties") is False, fixed, plan, fills))
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


def _rank(value: dict[Any, Any], entry: tuple[Any, ...]) -> int:
    """How well the object ``value`` fits the union branch ``entry``: 0 (its keys exactly), 1 (some of them), 2 (more
    keys, which the branch does not refuse), 3 (not at all)."""
    kind, required, props, closed, fixed = entry[:5]
    if kind == "array" or not required.issubset(value):
        return 3
    if any(value.get(name) is not None and not any(_same(value[name], a) for a in allowed)
           for name, allowed in fixed):  # (a null may be an optional field left out)
        return 3
    if all(key in props for key in value):
        return 0 if len(value) == len(props) else 1
    return 2 if not closed else 3


def _pick_branch(value: Any, union: tuple[Any, ...]) -> tuple[NullPlan | None, tuple[Any, ...] | None]:
    """The plan of the union branch ``value`` is (the common part when it could be several), and that branch's
    entry when it is the only one."""
    if isinstance(value, dict):
        best, found = 3, []
        for entry in union:
            rank = _rank(value, entry)
            if rank < best:
                best, found = rank, [entry]
            elif rank == best and rank < 3:
                found.append(entry)
    elif isinstance(value, list):
        found = [entry for entry in union if entry[0] != "object"]
    else:
        return None, None
    if not found:
        return None, None
    if len(found) == 1:
        return found[0][5], found[0]
    return _common_plan([entry[5] for entry in found]), None


def _kept_apart(value: dict[Any, Any], dropped: dict[Any, Any], union: tuple[Any, ...],
                entry: tuple[Any, ...]) -> dict[Any, Any]:
    """``dropped`` (``value`` without the nulls its branch ``entry`` drops), with the dropped keys that tell that
    branch from the others given back their JSON default (review 124 #3).

    A ``null`` sent for a key only one branch has says which branch the model filled in (``{"x": 1, "z": null}``
    of ``A(x, y=0) | B(x, z="q")`` is a B); without it, ``{"x": 1}`` fits A as well, and pydantic's smart union
    takes A. So when the object left would fit another branch too, each dropped key that such a branch lacks
    comes back as the picked branch's default (``{"x": 1, "z": "q"}``), which pydantic then reads as that branch
    (the key counts as set, in ``model_fields_set``, as if the model had written the default). A key whose default
    cannot be given back stays dropped, and pydantic picks from the keys left as before review 124 #3 (``A``
    above): one without a JSON default in the schema (a ``default_factory``: calling it here is not sound, as the
    plan is worked out from JSON Schema alone, without the class, and a factory may give a new value on each call
    (``datetime.now``, ``uuid4``), take the validated data, have side effects or give a value JSON cannot carry;
    review 127 #2), and one whose default its own schema refuses (:func:`_takes`: ``z: int = None`` has the
    default ``null``, which validation would refuse, review 127 #1)."""
    fills = entry[6]
    gone = [key for key, item in value.items() if item is None and key in fills and key not in dropped]
    if not gone:
        return dropped
    rivals = [other for other in union if other is not entry and _rank(dropped, other) < 3]
    back = {key for key in gone if any(key not in other[2] for other in rivals)}
    if not back:
        return dropped
    return {key: copy.deepcopy(fills[key]) if key in back else dropped[key]
            for key in value if key in back or key in dropped}


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
        and known keys) decides which nulls go. When the object left would fit another branch too
        (``{"x": 1, "z": null}`` of ``A(x, y=0) | B(x, z="q")`` as ``{"x": 1}``, which pydantic's smart union
        reads as an A), the dropped keys that other branch lacks get the picked branch's JSON ``default``
        instead (``{"x": 1, "z": "q"}``, a B whose ``model_fields_set`` holds ``z``), so the function gets the
        member the model filled in. The exception: a key without a JSON default (a ``default_factory``) or whose
        default its own schema's ``type``/``enum``/``const`` refuses (``null`` for ``z: int = None``) is dropped
        still, so there pydantic's smart union picks the member from the keys left (an A above).
    """
    if not isinstance(schema, dict) or _NESTED.isdisjoint(schema):  # a leaf: nothing to drop
        return None
    branches = union_branches(schema) if "anyOf" in schema or "oneOf" in schema else []
    if len(branches) == 1:
        return null_plan(branches[0], top_level)
    plan: NullPlan = {}
    if branches and (union := _union_plan(branches, schema)):
        plan["union"] = union
    props = schema.get("properties")
    if isinstance(props, dict):
        if top_level is not None:
            drop = top_level
        else:
            required = set(schema.get("required") or ())
            drop = frozenset(name for name, sub in props.items() if name not in required and not _admits_null(sub))
        if drop:
            plan["drop"] = frozenset(drop)
        nested = {name: sub_plan for name, sub in props.items()  # (a leaf, most properties, is passed over here)
                  if isinstance(sub, dict) and not _NESTED.isdisjoint(sub) and (sub_plan := null_plan(sub))}
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
        if isinstance(sub, dict) and not _NESTED.isdisjoint(sub) and (sub_plan := null_plan(sub)):
            plan[out_key] = sub_plan
    return plan or None


def drop_defaulted_nulls(value: Any, plan: NullPlan) -> Any:
    """Return ``value`` without the ``null``s that ``plan`` (from :func:`null_plan`) says to drop.

    The input is not changed; it is returned itself when nothing had to go.
    """
    union = plan.get("union")
    if union is not None:
        branch, entry = _pick_branch(value, union)
        if branch is not None:
            dropped = drop_defaulted_nulls(value, branch)
            if entry is not None and dropped is not value and isinstance(value, dict):
                dropped = _kept_apart(value, dropped, union, entry)
            value = dropped
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
