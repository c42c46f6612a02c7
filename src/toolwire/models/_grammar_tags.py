"""The ``function_tag`` call format's grammar (Qwen3-Coder's XML parameters), for :mod:`toolwire.models.grammar`.

A call is one ``<function=NAME>`` block of ``<parameter=KEY>\\nVALUE\\n</parameter>\\n`` tags (format:
:mod:`toolwire.parsing.function_tags`). A value is raw text, typed back by the parser with the tool's schema
(:func:`toolwire.parsing.function_tags.typed_parameter`), so the grammar writes only text the parser reads back as
the value meant: strings as they are, other values as JSON, and ``enum`` values only where they read back as
themselves (review 94). No value holds ``</``, ``<function=`` or ``<tool_call>``, where the parser would end it.
JSON values inside are lowered by :func:`toolwire.models.grammar.value_rule` (imported where used: that module
imports this one).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from toolwire.models._grammar_items import keyword_sequence
from toolwire.models._local_union import argument_forms, local_parameters
from toolwire.parsing._json_strings import _wanted_kinds
from toolwire.parsing.function_tags import typed_parameter
from toolwire.tools import ToolSpec

if TYPE_CHECKING:
    from toolwire.models.grammar import Rules

__all__ = ["JSON_ESCAPE", "JSON_EXCLUDED", "tag_call", "tag_safe"]

# what may not follow a "<" in a ``function_tag`` value (raw text, or a string inside a JSON value): "/" (``</``
# could close the parameter or the block) and these words (``<function=``, ``<tool_call>`` open a call)
_TAG_WORDS = ("function=", "tool_call>")
JSON_EXCLUDED, JSON_ESCAPE = r'"\\\x00-\x1f', r'"\\" (["\\/bfnrt] | "u" [0-9a-fA-F]{4})'  # as in "char"


def tag_safe(rules: Rules, hint: str, excluded: str = "", escape: str = "") -> str:
    """A run of ``function_tag`` value text (the rule's name) in which no ``</``, ``<function=`` or ``<tool_call>``
    stands (:data:`_TAG_WORDS`): the parser ends a value, a call or a block there. A ``<`` is followed by a
    character that starts none of them, by part of a word and then a character that leaves it, or by another
    ``<`` or the end of the run.

    Args:
        rules: the rule set.
        hint: the rule's name.
        excluded: the GBNF character-class text of characters the run never holds (a JSON string's ``"``, ``\\``
            and control characters).
        escape: the GBNF of an escape sequence the run may hold (a JSON string's), or ``""``.
    """
    from toolwire.models.grammar import gbnf_literal  # (not at the top: it imports this module)

    def other(*chars: str) -> str:  # a character that is not "<", nor one of chars, nor excluded; or an escape
        return f"[^<{''.join(chars)}{excluded}]" + (f" | {escape}" if escape else "")

    words = [(w[:k], w[k]) for w in _TAG_WORDS for k in range(1, len(w))]  # ("f", "u") ... ("function", "=")
    opened = rules.add(hint + "-lt", '"<" (' + " | ".join(gbnf_literal(part) for part, _ in words) + ")?")
    left = " | ".join([other("/", *sorted({w[0] for w in _TAG_WORDS})),
                       *(f"{gbnf_literal(part)} ({other(nxt)})" for part, nxt in words)])
    broken = rules.add(hint + "-lt-left", f'"<" ({left})')
    return rules.add(hint, f"({other()} | {opened}* {broken})* {opened}*")


def _tag_value(schema: Any, root: dict[str, Any], rules: Rules, hint: str, depth: int = 0,
               read: Callable[[str], Any] | None = None) -> str:
    """One ``function_tag`` parameter value, as :func:`toolwire.parsing.function_tags` types it back: one of the
    values of an ``enum`` or ``const`` (a string as it is, any other value as JSON; only those ``read``, the
    parser's typing of the parameter's text, gives back as the same value: review 94), each branch of an
    ``anyOf``/``oneOf`` (a ``Decimal``'s string branch as a number's text, raw:
    :func:`toolwire.models.grammar.number_text`), raw text (:func:`tag_safe`) for any other schema that admits any
    string (or says nothing: a ``pattern`` or a ``format`` is not held, review 128 #7), else the JSON value
    :func:`value_rule` allows."""
    from toolwire.models.grammar import MAX_DEPTH, gbnf_literal, number_text, value_rule

    if isinstance(schema, dict) and depth <= MAX_DEPTH:
        options = [schema["const"]] if "const" in schema else schema.get("enum")
        if isinstance(options, list) and options:
            written = [(o if isinstance(o, str) else json.dumps(o, ensure_ascii=False), o) for o in options]
            kept = [text for text, o in written if read is None or _same_value(read(text), o)]
            if not kept:  # (no value of it can be written: left to validation, as before)
                kept = [text for text, _ in written]
            return rules.add(hint + "-enum", " | ".join(dict.fromkeys(gbnf_literal(w) for w in kept)))
        for key in ("anyOf", "oneOf"):
            branches = schema.get(key)
            if isinstance(branches, list) and branches:
                base = {k: v for k, v in schema.items() if k not in ("anyOf", "oneOf", "description", "title")}
                merged = [{**base, **b} if isinstance(b, dict) else b for b in branches]
                alts = [text if (text := number_text(b, rules, merged)) is not None  # raw: no "<" in it
                        else _tag_value(b, root, rules, f"{hint}-{i}", depth + 1, read) for i, b in enumerate(merged)]
                return rules.add(hint + "-any", " | ".join(dict.fromkeys(alts)))
    kinds = _wanted_kinds(schema, root)
    if not kinds or "string" in kinds:
        return tag_safe(rules, "raw")
    return value_rule(schema, rules, hint)


def _same_value(read: Any, value: Any) -> bool:
    """Whether ``read`` (a parameter's text typed back by the parser) is the JSON value ``value``, its type too
    (``1`` is not ``"1"`` nor ``True``)."""
    return type(read) is type(value) and read == value


_TAG_OPEN, _TAG_CLOSE, _PARAM_CLOSE = "<function=", "</function>", "\n</parameter>\n"


def tag_call(spec: ToolSpec, rules: Rules) -> str:
    """A call of ``spec`` in the ``function_tag`` form: required parameters always, optional ones maybe, in the
    schema's property order, each ``<parameter=KEY>\\nVALUE\\n</parameter>\\n``; each form of a top-level union of
    objects (:func:`~toolwire.models._local_union.argument_forms`), its values typed back as the reader types them,
    by the union's fold (:func:`~toolwire.models._local_union.local_parameters`)."""
    from toolwire.models.grammar import gbnf_literal

    root = local_parameters(spec.parameters, spec.name)  # (what the reader types values by)
    forms = argument_forms(spec.parameters)
    written = [_tag_params(form, root, rules, spec.name, f"{spec.name}-params" + (f"-{i}" if i else ""))
               for i, form in enumerate(forms)]
    some = list(dict.fromkeys(w for w in written if w != '""'))
    params = '""' if not some else some[0] if len(written) == 1 else rules.add(
        f"{spec.name}-params-forms", f"({' | '.join(some)})" + ("?" if '""' in written else ""))
    parts = [gbnf_literal(f"{_TAG_OPEN}{spec.name}>" + chr(10)), params, gbnf_literal(_TAG_CLOSE)]
    return rules.add(f"{spec.name}-call", " ".join(p for p in parts if p != '""'))


def _tag_params(schema: Any, root: dict[str, Any], rules: Rules, name: str, hint: str) -> str:
    """The parameter tags of one form ``schema`` of tool ``name`` (``'""'`` for none), values typed back by
    ``root``."""
    from toolwire.models.grammar import gbnf_literal, required_keys

    props = schema.get("properties")
    required = set(required_keys(schema))
    pairs: list[tuple[str, bool]] = []
    for key, sub in (props.items() if isinstance(props, dict) else ()):
        value = _tag_value(sub, root, rules, f"{name}-{key}",
                           read=functools.partial(typed_parameter, key=key, schema=root))
        pair = f"{gbnf_literal(f'<parameter={key}>' + chr(10))} {value} {gbnf_literal(_PARAM_CLOSE)}"
        pairs.append((rules.add(f"{name}-{key}-param", pair), key in required))
    return keyword_sequence(pairs, '""', rules, hint) if pairs else '""'
