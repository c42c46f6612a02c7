"""A reply after tool results that only says the user's request again, for declining it.

The ``pythonic`` and ``json`` dialects end a results turn with the user's request said again ("Using these results,
answer this request in its own language: <request>", :func:`toolwire.models.dialects._answer_line`). Handed the
result of an action it took, the default model sometimes answers with that request word for word: "Adicione uma
despesa de 80 reais com transporte no dia 2026-04-18." after ``add_expense`` succeeded, or the whole of "I paid
12.50 dollars for lunch today. Add it as food, then tell me my total food spending in April." (review 126 #4;
``benchmarks/chained_calls.py``, questions F6 and P2, at temperature 0, every time). Results turns that say the
request first and the instruction after it (three wordings, forty-fifth session) echoed one of the two questions or
none, but answered questions in other languages in English: two of them 6 and 7 of ``benchmarks/answer_turn.py``'s
ten, the third 3 of the 7 it was run on, where the current wording answers 1 of 10 so. The wording stays, and the
echo is declined where the reply is made:
:class:`~toolwire.models._generation.Generation` holds a reply back while it is still the request's start, and a
reply that ends as the whole request is generated again from its first token, that token banned (up to three
times, the first tokens of earlier echoes staying banned: review 130 #2). Measured on the default model: P2 is then
answered "A despesa foi adicionada com sucesso." (its request without the final period: "I added an expense of 80.00
USD for transportation on April 18, 2026."). F6 gets a text that says which calls would give the total when
``chained_calls.py`` asks the questions in order, and a wrong total (12.50 USD for 62.50) when F6 is asked alone: a
near-tied token falls either way with what the KV cache holds (``benchmarks/RESULTS.md``, B7). Every other reply of
``chained_calls.py``, ``answer_turn.py`` and ``failed_results.py`` is the same as without the rule.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from toolwire.models._text_content import prompt_text

__all__ = ["echo_target", "is_echo", "may_echo"]

_MIN_WORDS = 3  # a shorter request ("Paris?") said back may be a fair answer; a sentence of three words or more is not
_MIN_UNSPACED = 6  # characters of a request written without spaces (Chinese, Japanese) that count as a sentence
_SPACES = re.compile(r"\s+")
_ENDS = ".!?;:…\"'“”«»。！？ \t\n"


def _core(text: str) -> str:
    """``text`` with whitespace runs made one space, and surrounding quotes, final punctuation and spaces left out."""
    return _SPACES.sub(" ", text).strip(_ENDS)


def _kind(message: Any) -> str | None:
    return getattr(message, "type", None)


def echo_target(messages: Sequence[Any]) -> str | None:
    """The request a reply to ``messages`` must not only say again, or None.

    Args:
        messages: the conversation the reply answers (toolwire messages, as ``ChatLlamaCpp`` renders them).

    Returns:
        The newest user message's text as the prompt shows it (text blocks one per line; see :func:`_core` for what
        is left out) when the conversation ends with tool results, or with a user message right after them (both are
        said in the results turn the model answers; a blank one leaves the request before it, as the dialects do),
        and that text has at least three words (six characters when written without spaces); else None.
    """
    if not messages or _kind(messages[-1]) not in ("tool", "human"):
        return None
    if _kind(messages[-1]) == "human":
        if len(messages) < 2 or _kind(messages[-2]) != "tool":
            return None
        if not prompt_text(messages[-1]).strip():
            messages = messages[:-1]  # (a blank user turn: the dialects answer the request before it)
    request = next((m for m in reversed(messages) if _kind(m) == "human"), None)
    if request is None:
        return None
    text = _core(prompt_text(request))
    long_enough = len(text.split(" ")) >= _MIN_WORDS or (" " not in text and len(text) >= _MIN_UNSPACED)
    return text if long_enough else None


def may_echo(text: str, target: str) -> bool:
    """Whether the reply ``text`` (as generated so far) may still end as ``target`` (from :func:`echo_target`) said
    again: what :func:`is_echo` compares of it is empty or a start of ``target``."""
    return target.startswith(_core(text))


def is_echo(text: str, target: str) -> bool:
    """Whether the whole reply ``text`` only says ``target`` (from :func:`echo_target`) again: the same words, leaving
    out whitespace runs, surrounding quotes and final punctuation."""
    core = _core(text)
    return bool(core) and core == target
