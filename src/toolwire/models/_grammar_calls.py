"""The call objects of :mod:`toolwire.models.grammar`'s ``json``/``hermes`` and ``pythonic`` formats: a tool's name
and its arguments, each form of a top-level union of objects an alternative
(:func:`toolwire.models._local_union.argument_forms`; review 198 #1). The rules of the values are
:mod:`toolwire.models.grammar`'s (imported where used: that module imports this one).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from toolwire.models._local_union import argument_forms, local_parameters
from toolwire.parsing.pythonic import PythonNames, signature_order
from toolwire.tools import ToolSpec

if TYPE_CHECKING:
    from toolwire.models.grammar import Rules

__all__ = ["json_call", "python_call"]


def json_call(spec: ToolSpec, rules: Rules, signature: bool = False) -> str:
    """A JSON call object of ``spec``; with ``signature``, its arguments in signature order (as
    :func:`python_call`), else in the schema's property order. A top-level union of objects is each of its forms
    (:func:`~toolwire.models._local_union.argument_forms`)."""
    order = signature_order(local_parameters(spec.parameters)) if signature else None
    forms = argument_forms(spec.parameters)
    alts = [_json_args(form, rules, f"{spec.name}-args" + (f"-{i}" if i else ""), order)
            for i, form in enumerate(forms)]
    args = alts[0] if len(alts) == 1 else rules.add(f"{spec.name}-args-forms", " | ".join(dict.fromkeys(alts)))
    body = (f'"{{" ws "\\"name\\"" ws ":" ws {rules.key(spec.name)} ws "," ws '
            f'"\\"arguments\\"" ws ":" ws {args} ws "}}"')
    return rules.add(f"{spec.name}-call", body)


def _json_args(schema: Any, rules: Rules, hint: str, order: list[str] | None) -> str:
    """The arguments object of one form ``schema``, its keys in ``order`` (then the rest) when given; only ``{}``
    for a form without parameters (as the pythonic call takes no arguments)."""
    from toolwire.models.grammar import object_rule

    props = schema.get("properties")
    if not isinstance(props, dict) or not props:
        return rules.add("empty-object", '"{" ws "}"')
    if order is not None:
        schema = {**schema, "properties": _in_order(props, order)}
    return object_rule(schema, rules, hint)


def _in_order(props: dict[str, Any], order: Sequence[str]) -> dict[str, Any]:
    """``props`` with the keys of ``order`` first, in its order."""
    return {k: props[k] for k in order if k in props} | {k: v for k, v in props.items() if k not in order}


def python_call(spec: ToolSpec, rules: Rules, names: PythonNames) -> str:
    """A call of ``spec`` as the pythonic prompt shows it: Python-safe names, keyword arguments in signature
    order (required ones first, then optional ones, each in schema order); each form of a top-level union."""
    from toolwire.models.grammar import gbnf_literal, object_rule

    keywords = names.params(spec.name)
    forms = argument_forms(spec.parameters)
    written = []
    for i, schema in enumerate(forms):
        props = schema.get("properties")
        if isinstance(props, dict) and props:
            schema = {**schema, "properties": _in_order(props, list(keywords))}
        written.append(object_rule(schema, rules, f"{spec.name}-kw" + (f"-{i}" if i else ""), python_call=True,
                                   keywords=keywords))
    some = list(dict.fromkeys(w for w in written if w != '""'))
    kwargs = '""' if not some else some[0] if len(written) == 1 else rules.add(
        f"{spec.name}-kw-forms", f"({' | '.join(some)})" + ("?" if '""' in written else ""))
    inner = "" if kwargs == '""' else f" {kwargs}"
    return rules.add(f"{spec.name}-call", f'{gbnf_literal(names.tool(spec.name) + "(")}{inner} ")"')
