"""JSON objects that give one key twice (review 148 #4).

Python's ``json`` keeps the last of two values of one key without a word: a call ``{"name": "a", ...,
"name": "b"}`` would run ``b``, and ``{"city": "Paris", "city": "Rome"}`` would lose Paris. The pythonic and
function_tag dialects refuse a parameter given twice; :func:`unique_pairs`, the ``object_pairs_hook`` of the
decoder of tool calls (:class:`toolwire.parsing._scan.LenientDecoder`), makes every JSON reader refuse it too.
:func:`refuse_repeated_literal_keys` does the same for text in Python syntax (a Python-dict call
``{'name': 'a', ..., 'name': 'b'}``, a dict in a pythonic keyword value), which :func:`ast.literal_eval` would read
the same way (review 215 #1).
"""

from __future__ import annotations

import ast
import json
from typing import Any

__all__ = ["RepeatedKey", "refuse_repeated_literal_keys", "same_json", "unique_pairs"]


class RepeatedKey(json.JSONDecodeError):
    """A JSON object of model text gives one key twice, with different values (:func:`unique_pairs`).

    A :class:`json.JSONDecodeError`, so every reader that refuses text it cannot decode refuses this too; the
    readers of tool calls turn it into an invalid call whose error is ``msg``, one sentence the model can act on
    (the wording of the pythonic and function_tag dialects: "... is given twice; give each parameter once.").

    Attributes:
        key: the key given twice.
    """

    def __init__(self, key: str, msg: str) -> None:  # (no position: the decoder's hook does not know it)
        ValueError.__init__(self, msg)
        self.msg, self.doc, self.pos, self.lineno, self.colno = msg, "", 0, 1, 1
        self.key = key

    def __reduce__(self) -> tuple[Any, ...]:
        return RepeatedKey, (self.key, self.msg)


_CALL_KEYS = frozenset(("name", "arguments", "parameters", "function", "id", "type", "call_id"))


def unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """The ``object_pairs_hook`` of :class:`~toolwire.parsing._scan.LenientDecoder`: the object as a dict, refusing
    a key given twice. A key given twice with equal values (the same JSON, see :func:`same_json`) is kept once.

    Args:
        pairs: the object's ``(key, value)`` pairs in the order written.

    Returns:
        The object as a dict.

    Raises:
        RepeatedKey: a key is given twice with different values; its message names the key (as a key of the
            tool call when the object is a call's and the key one of a call's own, else as a parameter).
    """
    obj = dict(pairs)
    if len(obj) == len(pairs):
        return obj
    _refuse_repeats(pairs, "name" in obj)
    return obj


def _refuse_repeats(pairs: list[tuple[Any, Any]], is_call: bool) -> None:
    """Raise :class:`RepeatedKey` for the first key of ``pairs`` given again with another value; ``is_call``: the
    object has a ``"name"`` key (its call keys are then named as the tool call's)."""
    first: dict[Any, Any] = {}
    for key, value in pairs:
        if key in first and not same_json(first[key], value):
            if key in _CALL_KEYS and is_call:
                raise RepeatedKey(key, f"The tool call gives {key!r} twice; give each key once.")
            raise RepeatedKey(key, f"Parameter {key!r} is given twice; give each parameter once.")
        first.setdefault(key, value)


_NO_LITERAL = object()  # (the value of a key that is not a literal: never the same as another value)


def refuse_repeated_literal_keys(node: ast.AST) -> None:
    """Refuse a dict display, in the Python-literal AST ``node`` or nested in it, that gives one constant key twice
    with different values, as :func:`unique_pairs` refuses it in JSON: :func:`ast.literal_eval` would keep the last
    value without a word (``{'name': 'a', 'arguments': {}, 'name': 'b'}`` would call ``b``).

    Args:
        node: the parsed (never evaluated) Python source, such as :func:`~toolwire.parsing._python_parse.parse_expr`
            returns it.

    Raises:
        RepeatedKey: a dict gives a key twice with different values; same message as :func:`unique_pairs`.
    """
    for sub in ast.walk(node):
        if not isinstance(sub, ast.Dict):
            continue
        keys = [k.value for k in sub.keys if isinstance(k, ast.Constant)]
        try:
            if len(set(keys)) == len(keys):
                continue
        except TypeError:  # (an unhashable constant: literal_eval refuses the dict anyway)
            continue
        pairs = []
        for k, v in zip(sub.keys, sub.values, strict=True):
            if isinstance(k, ast.Constant):
                try:
                    value = ast.literal_eval(v)
                except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                    value = _NO_LITERAL
                pairs.append((k.value, value))
        _refuse_repeats(pairs, "name" in keys)


def same_json(a: Any, b: Any) -> bool:
    """Whether two decoded JSON values are the same JSON (``1``, ``1.0`` and ``true`` are not the same; the
    order of an object's keys does not count)."""
    if a is b:
        return True
    try:
        return bool(a == b) and json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        return False
