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
reply that ends as the whole request is generated again from its first token, that token banned. Measured on the
default model: P2 is then answered "A despesa foi adicionada com sucesso."; F6 gets a text that says which calls
would give the total (no answer, but no echo); every other reply of ``chained_calls.py``, ``answer_turn.py`` and
``failed_results.py`` is the same as without the rule.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from toolwire.messages import content_text

__all__ = ["echo_target", "is_echo", "may_echo"]

_MIN_WORDS = 3  # a shorter request ("Paris?") said back may be a fair answer; a sentence of three words or more is not
_SPACES = re.compile(r"\s+")
_ENDS = ".!?;:…\"'“”«» \t\n"


def _plain(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


def echo_target(messages: Sequence[Any]) -> str | None:
    """The request a reply to ``messages`` must not only say again, or None.

    Args:
        messages: the conversation the reply answers (toolwire or LangChain-style messages with ``type``).

    Returns:
        The newest user message's text (whitespace runs made one space) when the conversation ends with tool
        results, or with a user message right after them (both are said in the results turn the model answers),
        and that text has at least three words; else None.
    """
    if not messages:
        return None
    last = messages[-1]
    kind = getattr(last, "type", None)
    if kind == "human":
        request = last if len(messages) > 1 and getattr(messages[-2], "type", None) == "tool" else None
    elif kind == "tool":
        request = next((m for m in reversed(messages) if getattr(m, "type", None) == "human"), None)
    else:
        request = None
    if request is None:
        return None
    text = _plain(content_text(request.content))
    return text if len(text.split(" ")) >= _MIN_WORDS else None


def may_echo(text: str, target: str) -> bool:
    """Whether the reply ``text`` (as generated so far) may still end as ``target`` said again: it is empty or a
    start of it (whitespace runs counted as one space)."""
    return target.startswith(_SPACES.sub(" ", text).lstrip())


def is_echo(text: str, target: str) -> bool:
    """Whether the whole reply ``text`` only says ``target`` again: the same words, leaving out surrounding quotes,
    final punctuation and whitespace."""
    reply = _plain(text).strip(_ENDS)
    return bool(reply) and reply == target.strip(_ENDS)
