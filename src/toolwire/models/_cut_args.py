"""The argument text of a tool call that was cut off in a reply's text (review 267 #2).

A call a reply ended inside is an :class:`~toolwire.messages.InvalidToolCall` whose ``args`` is its raw argument
text, as LangChain's ``InvalidToolCall.args`` is and as OpenAI's cut call's ``function.arguments`` is (the argument
JSON alone): not the dialect's wrapper around it. :func:`argument_text` takes that text out of the call's text.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["argument_text", "cut_arguments"]

_LEAD = r"\s*+(?:```[^\n]*+\n)?\s*+(?:<tool_call>\s*+)?(?:\[TOOL_CALLS\]\s*+)?"  # (possessive: linear time)
_STRING = r'"(?:[^"\\\n]|\\.)*+"'
_OPENINGS = (
    # a JSON call object, name first (``{{`` too: qwen2.5-coder copies its template's doubled braces)
    re.compile(_LEAD + r'\[*+\s*+\{\{?\s*+"name"\s*+:\s*+' + _STRING + r'\s*+,\s*+"(?:arguments|parameters)"\s*+:\s*+'),
    re.compile(_LEAD + r"\[++\s*+" + _STRING + r"\s*+,\s*+(?=\{)"),  # a JSON pair: ``["get_weather", {...``
    re.compile(_LEAD + r"<function\s*+=\s*+[^>\n]*+>\s*+"),  # ``<function=NAME>``, then XML parameters or JSON
    # a Python call: ``[get_weather(``, ```` ```python\nget_weather( ````, ``['get_weather'(``
    re.compile(_LEAD + r"`?\[*+\s*+['\"]?[A-Za-z_]\w*+(?:\s*+\.\s*+[A-Za-z_]\w*+)*+['\"]?\s*+\(\s*+"),
)


def argument_text(text: str) -> str:
    """The argument text of a cut-off call whose text (from its opening on) is ``text``.

    Args:
        text: the call's text as the model wrote it: a JSON call object (``{"name": ..., "arguments": ...``,
            ``"parameters"`` too, in a list, fence or ``<tool_call>`` block), a JSON pair (``["name", {...``), a
            ``<function=NAME>`` tag, or a Python call (``[name(...``).

    Returns:
        The text from where the call's arguments start, to its end (stripped): the JSON value after
        ``"arguments":``, the ``<parameter=...>`` tags or JSON after ``<function=NAME>``, what is inside the Python
        call's parenthesis. ``text`` stripped when the arguments had not started or no opening is recognised (the
        text may be the argument text already: Mistral's ``[ARGS]``).
    """
    for opening in _OPENINGS:
        found = opening.match(text)
        if found is not None:
            rest = text[found.end():].strip()
            return rest or text.strip()
    return text.strip()


_SAID_CUT = re.compile(r"\bcut off\b", re.IGNORECASE)  # (the text readers' errors for a call that is not closed)


def cut_arguments(invalid: list[Any]) -> list[Any]:
    """The invalid calls read from a reply's text (``invalid``: ``{"name", "args", "id", "error", ...}`` dicts),
    each one whose reader said its text ends before the call is closed (its error says "cut off": the JSON,
    pythonic, ``<function=NAME>`` and Qwen3-Coder XML readers) holding its argument text as ``args``
    (:func:`argument_text`); the others as they are. Returns a new list; the dicts changed are copies."""
    return [{**bad, "args": argument_text(bad["args"])} if _is_cut(bad) else bad for bad in invalid]


def _is_cut(bad: Any) -> bool:
    args = bad.get("args")
    return isinstance(args, str) and bool(args.strip()) and _SAID_CUT.search(str(bad.get("error") or "")) is not None
