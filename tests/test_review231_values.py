"""Review 231: made-up figures and dates, second round.

#3 a made-up amount whose last group of thousands is ``000`` ("R$ 100.000", "$10,000") is compared by its full value,
not taken for the question's "100"/"10"; #4 the figures rule reads thousands grouped by a space or an apostrophe
("12 345,67 €", "1'500'000 CHF") and "0.25" for a tool's "0.250", through the value check's reading of numbers
(:mod:`toolwire.models._number_readings`); #7 "1.º de março" / "1.º de marzo" is found as a date.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from toolwire.messages import AIMessage, HumanMessage, ToolMessage
from toolwire.models._call_checks import context_numbers, context_words, conversation_texts, in_context
from toolwire.models._figures import figure_context, made_up_figure
from toolwire.models._number_readings import readings


def _failed(question: str, error: str):
    call = {"name": "get_price", "args": {"symbol": "ACME"}, "id": "c1"}
    return figure_context([HumanMessage(question), AIMessage("", tool_calls=[call]),
                           ToolMessage(f"Error: {error}", tool_call_id="c1", status="error")])


@pytest.mark.parametrize(("question", "answer"), [
    ("Quanto custam 100 ações da ACME?", "As 100 ações custam R$ 100.000."),
    ("How much are 10 shares of ACME?", "10 shares of ACME cost $10,000."),
    ("Quanto custam 5 ações da ACME?", "5 ações custam R$ 5.000."),
    ("Quanto custam 5 ações a R$ 1.000?", "5 ações custam R$ 5.000."),  # 5 and 000 held apart: not the amount
    ("How much are 10 shares of ACME?", "10 shares of ACME cost $10,000,000."),
])
def test_a_made_up_amount_ending_in_a_group_of_zeros_is_declined(question, answer):
    known = _failed(question, "quote service unavailable")
    assert made_up_figure(answer, known) is not None


@pytest.mark.parametrize(("said", "answer"), [
    ("100.000", "O limite é R$ 100.000."), ("100,000", "O limite é R$ 100.000."), ("100000", "The limit is 100,000."),
    ("R$ 100.000", "O limite é R$ 100 mil."),  # the leading group alone, as before
    ("1.5", "The rate is 1,500."),  # both readings where both are usual
])
def test_an_amount_the_conversation_holds_is_kept(said, answer):
    known = _failed(f"Qual é o limite? Era {said}.", "quote service unavailable")
    assert made_up_figure(answer, known) is None


@pytest.mark.parametrize(("error", "answer"), [
    ("daily limit is 12345.67", "Não foi possível: o limite diário é 12 345,67 €."),
    ("daily limit is 12345.67", "Impossible : la limite est de 12\u202f345,67 €."),
    ("daily limit is 12345.67", "Impossible : la limite est de 12\u00a0345,67 €."),
    ("daily limit is 1500000", "Nicht möglich: das Limit ist 1'500'000 CHF."),
    ("daily limit is 1500000", "Nicht möglich: das Limit ist 1\u2019500\u2019000 CHF."),
    ("daily limit is 12 345,67", "It failed: the daily limit is 12,345.67."),
    ("fee rate is 0.250", "It failed: the fee rate is 0.25."),
    ("fee rate is 0.25", "It failed: the fee rate is 0.250."),
    ("fee rate is 0.250", "Não foi possível: a taxa é de 0,25."),
])
def test_the_failed_tools_figure_in_another_usual_writing_is_kept(error, answer):
    known = _failed("Transfira o saldo da conta 4417.", error)
    assert made_up_figure(answer, known) is None


def test_a_made_up_figure_grouped_by_spaces_is_still_declined():
    known = _failed("Transfira o saldo da conta 4417.", "account not found")
    for made_up in ("O saldo é 12 345,67 €.", "Das Saldo ist 1'500'000 CHF.", "The fee is 0.250."):
        assert made_up_figure(made_up, known) is not None, made_up


def test_the_shared_reading_of_numbers():
    assert readings("100.000") == {Decimal(100000)}
    assert readings("1.500") == {Decimal(1500), Decimal("1.5")}
    assert readings("0.250") == {Decimal("0.25")}
    assert readings("12 345,67") == {Decimal("12345.67")}
    assert readings("1'500'000") == {Decimal(1500000)}
    assert readings("1.2.3") == frozenset()
    # the value check still finds every reading it found before, as written too
    assert {Decimal(100), Decimal(100000)} <= context_numbers(["R$ 100.000"])
    assert {Decimal("12345.67")} <= context_numbers(["12\u202f345,67 €"])


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
