"""A reply's text read as a list of calls, as BFCL's prompt mode reads a model's output.

BFCL scores an irrelevance item right when the model makes no call, and in prompt mode "a call" is any output
that decodes as a list of Python calls, whatever the function names: ``relevance_file_runner`` in
``bfcl_eval/eval_checker/eval_runner.py`` (repository ShishirPatil/gorilla) fails the item as soon as
``default_decode_ast_prompting`` (``bfcl_eval/model_handler/utils.py``) succeeds on the whole output and the
result is not empty. toolwire reads calls only of the tools it bound, so a reply such as
``[calculate_triangle_area(base=10, height=5)]`` to a question no offered tool fits is text to toolwire, but a
call to BFCL; :func:`text_calls` finds such replies, for the eval (which counts them as BFCL does) and for the
embedded model (which declines a reply that opens as a call of no bound tool, see
:meth:`toolwire.models.openers.OpenerScanner.unknown_call`). JSON call objects written as text
(``[{"name": "f", "arguments": {...}}]``, the ``json`` dialect's call format) count the same way; that is
stricter than BFCL's prompt mode, whose decoder reads Python only, and is how the ``json`` dialect writes a call.

The decoding follows BFCL's: the text is stripped of backticks, newlines and spaces at both ends, wrapped in
``[`` ``]`` when it does not already start or end with them, and parsed as one Python expression; every element
must be a call. Keyword values are read as BFCL's ``resolve_ast_by_type`` reads them; the node types it cannot
read (a comparison, an f-string, a lambda, arithmetic on names other than Python's builtins) make the whole text
not a call list, as they make BFCL's decoder fail. Nothing is evaluated: arithmetic (which BFCL evaluates) is
kept as its source text, so arithmetic BFCL's evaluation would fail on (``1/0``) still reads.
"""

from __future__ import annotations

import ast
import builtins
import json
from typing import Any, cast

from toolwire.parsing._python_parse import parse_source

__all__ = ["text_calls"]

_BUILTINS = frozenset(dir(builtins))


class _NotCalls(Exception):
    """The text is not a list of calls as BFCL decodes one."""


def text_calls(text: str) -> list[dict[str, Any]]:
    """The calls that the whole of ``text`` writes, as BFCL's prompt mode decodes them.

    Args:
        text: a reply's text (its content, calls toolwire read taken out).

    Returns:
        ``[{"name": <function name as written, dotted>, "args": {keyword: value}}]``: the Python calls (positional
        arguments are not kept, as in BFCL) or JSON call objects (``name`` with ``arguments`` or ``parameters``)
        the text consists of; an empty list when it is anything else (prose, a list of literals, code that is
        not only calls). Never raises.
    """
    stripped = text.strip("`\n ")
    if not stripped:
        return []
    calls = _json_calls(stripped)
    if calls:
        return calls
    source = stripped if stripped.startswith("[") else "[" + stripped
    source = source if source.endswith("]") else source + "]"
    try:
        tree = cast(ast.Expression, parse_source(source.strip().strip("'")))
        body = tree.body
        elements = [body] if isinstance(body, ast.Call) else getattr(body, "elts", None)
        if elements is None or not all(isinstance(e, ast.Call) for e in elements):
            return []
        return [_call(e) for e in elements]
    except (SyntaxError, ValueError, RecursionError, MemoryError, _NotCalls):
        return []


def _call(node: ast.Call) -> dict[str, Any]:
    parts: list[str] = []
    func: ast.expr = node.func
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.append(func.id)
    # ``**mapping`` is kept under the key "**" (BFCL keeps it under None)
    return {"name": ".".join(reversed(parts)), "args": {k.arg or "**": _value(k.value) for k in node.keywords}}


def _value(node: ast.expr) -> Any:
    """A keyword value as BFCL's ``resolve_ast_by_type`` reads it (without evaluating anything)."""
    if isinstance(node, ast.Constant):
        return "..." if node.value is Ellipsis else node.value
    if isinstance(node, ast.UnaryOp):
        operand = node.operand  # BFCL reads ``-operand.value``: it fails on anything but a number
        if not (isinstance(operand, ast.Constant) and isinstance(operand.value, int | float | complex)):
            raise _NotCalls
        return -operand.value
    if isinstance(node, ast.List | ast.Tuple):
        return [_value(v) for v in node.elts]
    if isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):  # ``{**other}``: BFCL's reader fails on the missing key
            raise _NotCalls
        return {str(_value(k)): _value(v) for k, v in zip(node.keys, node.values, strict=True)}
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Call):
        return _call(node) if node.keywords else ast.unparse(node)
    if isinstance(node, ast.Subscript):
        return ast.unparse(node)
    if isinstance(node, ast.BinOp):  # BFCL evaluates it: names other than builtins fail there (sum(x) / 3 reads)
        if any(isinstance(n, ast.Name) and n.id not in _BUILTINS for n in ast.walk(node)):
            raise _NotCalls
        return ast.unparse(node)
    raise _NotCalls


def _json_calls(text: str) -> list[dict[str, Any]]:
    """JSON call objects making up the whole text (fenced ``json`` too), else ``[]``."""
    body = text[4:].lstrip() if text.startswith("json") else text
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return []
    items = data if isinstance(data, list) else [data]
    calls = []
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str) or "description" in item:
            return []  # (an object with a description is a function's definition written out, not a call)
        args = item.get("arguments", item.get("parameters"))
        if not isinstance(args, dict):
            return []
        calls.append({"name": item["name"], "args": args})
    return calls
