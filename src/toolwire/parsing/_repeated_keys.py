"""JSON objects that give one key twice (review 148 #4).

Python's ``json`` keeps the last of two values of one key without a word: a call ``{"name": "a", ...,
"name": "b"}`` would run ``b``, and ``{"city": "Paris", "city": "Rome"}`` would lose Paris. The pythonic and
function_tag dialects refuse a parameter given twice; :func:`unique_pairs`, the ``object_pairs_hook`` of the
decoder of tool calls (:class:`toolwire.parsing._scan.LenientDecoder`), makes every JSON reader refuse it too.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["RepeatedKey", "same_json", "unique_pairs"]


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
    first: dict[str, Any] = {}
    for key, value in pairs:
        if key in first and not same_json(first[key], value):
            if key in _CALL_KEYS and "name" in obj:
                raise RepeatedKey(key, f"The tool call gives {key!r} twice; give each key once.")
            raise RepeatedKey(key, f"Parameter {key!r} is given twice; give each parameter once.")
        first.setdefault(key, value)
    return obj


def same_json(a: Any, b: Any) -> bool:
    """Whether two decoded JSON values are the same JSON (``1``, ``1.0`` and ``true`` are not the same; the
    order of an object's keys does not count)."""
    if a is b:
        return True
    try:
        return bool(a == b) and json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        return False
