"""Another wording for the line that ends a results turn, for the benchmarks that compare wordings
(``answer_turn.py``, ``chained_calls.py``)."""

from __future__ import annotations

import toolwire.models.dialects as dialects


def use_answer_line(template: str) -> None:
    """Make the ``pythonic`` and ``json`` dialects end a results turn with ``template`` (``{question}`` is the user's
    request) in place of :func:`toolwire.models.dialects._answer_line`'s wording, for this process; a request over
    the dialects' repeat limit (``_REPEAT_LIMIT`` characters) is still only referred to, as toolwire does."""
    original = dialects._answer_line

    def line(question: str, *, again: bool = True) -> str:
        if question.strip() and (not again or len(question.strip()) <= dialects._REPEAT_LIMIT):
            return "\n\n" + template.format(question=question.strip())
        return original(question, again=again)

    dialects._answer_line = line
