"""Review 231: made-up figures and dates, second round.

#3 a made-up amount whose last group of thousands is ``000`` ("R$ 100.000", "$10,000") is compared by its full value,
not taken for the question's "100"/"10"; #4 the figures rule reads thousands grouped by a space or an apostrophe
("12 345,67 €", "1'500'000 CHF") and "0.25" for a tool's "0.250", through the value check's reading of numbers
(:mod:`toolwire.models._number_readings`); #7 "1.º de março" / "1.º de marzo" is found as a date.
"""

from __future__ import annotations

import pytest

from toolwire.messages import HumanMessage
from toolwire.models._call_checks import context_numbers, context_words, conversation_texts, in_context


@pytest.mark.parametrize("question", [
    "Quantos dias há entre 1.º de março e 15 de abril de 2026?",
    "¿Cuántos días hay entre el 1.º de marzo y el 15 de abril de 2026?",
    "¿Cuántos días hay entre el 1.er de marzo y el 15 de abril de 2026?",
    "¿Cuántos días hay entre el 1ro de marzo y el 15 de abril de 2026?",
    "Quantos dias há entre 1.° de março e 15 de abril de 2026?",
])
def test_a_day_with_a_dotted_ordinal_is_found_as_a_date(question):
    texts = conversation_texts([HumanMessage(question)])
    assert in_context("2026-03-01", context_words(texts), context_numbers(texts))
    assert not in_context("2026-03-02", context_words(texts), context_numbers(texts))
