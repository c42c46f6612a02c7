"""Figures an answer after failed tool calls makes up, for declining them (``ChatLlamaCpp(decline_made_up_figures=)``).

When every tool result the model answers is an error, no tool gave it a figure, so a number in its answer that no
message of the conversation holds is made up: "O saldo da conta 4417 é R$ 0.00." after ``get_balance`` failed,
"Der Kontostand von Konto 7788 beträgt 123456." (``benchmarks/failed_results.py``: the default model wrote such a
figure in 8 of 20 answers after failed calls, forty-sixth session; a hint against it in the results turn cut that to
5 but made 3 answers echo the English error, thirty-fifth session). This is the rule the value check applies to a
call's arguments (a value the conversation does not hold is made up, :mod:`toolwire.models._call_checks`), applied
to the answer's figures, where it can be decided by reading: a number is made up when its digits (without ``.``
and ``,``, which languages write apart) are not the digits of a number any message holds.

:class:`~toolwire.models._generation.Generation` holds such a reply back from the stream until it ends, and one that
states a made-up figure is generated again from its first token, that token banned (up to three times, the bans
accumulating, as for an echo: :mod:`toolwire.models._echo`). Banning the figure's own first token was tried first
and does not work: the model, committed by "é R$ ", wrote another made-up figure each time (8 of 20 still). From the
first token, the eight answers became statements that the call failed ("A conta 4417 não existe.", "Não foi
possível encontrar informações sobre quando foi fundada a cidade de Curitiba."), one of them in English for a German
question; the other twelve answers, and every answer of ``benchmarks/chained_calls.py`` and of the 0.5b model's
run, are the same as without the rule.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from toolwire.models._text_content import prompt_text, result_text

__all__ = ["figure_context", "figure_restart", "made_up_figure"]

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_SEPARATORS = re.compile(r"[.,]")


def _digits(number: str) -> str:
    return _SEPARATORS.sub("", number)


def figure_context(messages: Sequence[Any]) -> frozenset[str] | None:
    """The figures an answer to ``messages`` may state, or None when the rule does not apply.

    Args:
        messages: the conversation the reply answers (toolwire messages, as ``ChatLlamaCpp`` renders them).

    Returns:
        None unless the conversation ends with tool results (the ToolMessages after the last AIMessage) and every one
        of them is an error; then the digits (:func:`_digits`) of every number in the conversation's text: each
        message's text, the tool calls' arguments and the results (error texts included: "HTTP 503").
    """
    if not messages or getattr(messages[-1], "type", None) != "tool":
        return None
    results = []
    for message in reversed(messages):
        if getattr(message, "type", None) != "tool":
            break
        results.append(message)
    if any(getattr(m, "status", "success") != "error" for m in results):
        return None
    said: list[str] = []
    for message in messages:
        kind = getattr(message, "type", None)
        if kind == "tool":
            said.append(result_text(message.content))
        elif kind in ("human", "system"):
            said.append(prompt_text(message))
        else:
            content = getattr(message, "content", "")
            said.append(content if isinstance(content, str) else json.dumps(content, default=str))
            said += [json.dumps(call.get("args"), default=str) for call in getattr(message, "tool_calls", None) or ()]
    return frozenset(_digits(n) for text in said for n in _NUMBER.findall(text))


def made_up_figure(text: str, known: frozenset[str], start: int = 0) -> int | None:
    """Where the first whole number of ``text`` from ``start`` on that is not in ``known`` begins, or None.

    A number is whole when a character other than a digit follows it, or a ``.``/``,`` that no digit follows (the end
    of a sentence: "123456."): one at the end of ``text`` may still grow.
    """
    for found in _NUMBER.finditer(text, start):
        rest = text[found.end():]
        if not rest or (rest[0] in ".," and len(rest) < 2):
            return None  # (it may still grow)
        if _digits(found.group()) not in known:
            return found.start()
    return None


def figure_restart(text: str, known: frozenset[str], base: int, ends: list[int],
                   made: list[int]) -> tuple[int, list[int], None] | None:
    """The restart of a reply whose ``text`` holds a whole number not in ``known`` (:func:`made_up_figure`), as
    :meth:`~toolwire.models._generation.Generation._free` takes it: ``(the index in ``made`` of the token the number
    begins in, [that token] banned, None: its bans stay, as an echo's)``; None when there is none, or when it began
    before the current stream (``base`` characters: it is left as it is). ``ends[i]`` is the text's length after
    ``made[i]``."""
    at = made_up_figure(text, known)
    if at is None or at < base:
        return None
    return 0, [made[0]], None
