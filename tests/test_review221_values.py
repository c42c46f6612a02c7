"""Review 221: the embedded model's checks for made-up values read Portuguese numbers and dates.

#1 a made-up amount of 1,000 or more with cents ("R$ 12.345,67", "$12,345.67") is a figure; #2 a figure that equals
a conversation's figure up to trailing zeros of its decimal part ("80,50" for "80.5") is not made up; #3 "1º de
março" is found as a date; #4 "2,5", "1.500" and "1.500,75" are found as the numbers a call holds.
"""

from __future__ import annotations

from toolwire.messages import AIMessage, HumanMessage, ToolMessage
from toolwire.models._call_checks import context_numbers, context_words, conversation_texts, in_context, made_up_value
from toolwire.models._figures import figure_context, made_up_figure


def _failed(question: str, error: str):
    call = {"name": "get_balance", "args": {"account": "4417"}, "id": "c1"}
    return figure_context([HumanMessage(question), AIMessage("", tool_calls=[call]),
                           ToolMessage(f"Error: {error}", tool_call_id="c1", status="error")])


def test_a_made_up_amount_of_thousands_with_cents_is_a_figure():
    known = _failed("Qual é o saldo da conta 4417?", "account not found")
    for made_up in ("O saldo da conta 4417 é R$ 12.345,67.", "The balance of account 4417 is $12,345.67.",
                    "O saldo da conta 4417 é R$ 1.234.567,89.", "Saldo: 1,234.5", "O saldo é R$ 12.345,00."):
        assert made_up_figure(made_up, known) is not None, made_up
    # identifiers stay out: an address, a version, a dotted date, a phone number (one separator throughout)
    for honest in ("Try 192.168.1.1 first.", "Update to 1.100.12.", "O dia 18.04.2026 falhou.",
                   "Ligue 555.123.4567.", "Use 10.200.30.4 as the gateway."):
        assert made_up_figure(honest, known) is None, honest


def test_an_amount_with_cents_the_conversation_holds_is_kept_in_either_writing():
    for said, answer in (("12,345.67", "R$ 12.345,67"), ("12.345,67", "$12,345.67"), ("12345.67", "R$ 12.345,67"),
                         ("12.345,67", "12345.67"), ("4.417", "4417")):
        known = _failed(f"Pague {said} na conta 4417.", "limit reached")
        assert made_up_figure(f"Não foi possível pagar {answer}.", known) is None, (said, answer)
    known = _failed("Pague 10000 na conta 4417.", "limit reached")  # its last group of zeros is no decimal part
    assert made_up_figure("O limite é de $10,000,000.", known) is not None


def test_a_figure_with_trailing_zeros_in_its_decimal_part_is_the_conversations_figure():
    known = _failed("Transfira 100 reais para a conta 4417.", "daily limit is 80.5, requested 100.0")
    for honest in ("Não foi possível: o limite diário é de R$ 80,5.", "Não foi possível: o limite é de R$ 80,50.",
                   "It failed: the daily limit is $80.50.", "O pedido foi de R$ 100,00."):
        assert made_up_figure(honest, known) is None, honest
    known = _failed("Transfira 100 reais.", "daily limit is 80.50")
    assert made_up_figure("The limit is 80.5.", known) is None
    for made_up in ("The limit is 80.55.", "The limit is 8.05.", "The limit is 805."):
        assert made_up_figure(made_up, known) is not None, made_up


def _found(question: str, value: object) -> bool:
    texts = conversation_texts([HumanMessage(question)])
    return in_context(value, context_words(texts), context_numbers(texts))


def test_an_ordinal_day_before_a_month_is_found_as_a_date():
    assert _found("Quantos dias há entre 1º de março e 15 de abril de 2026?", "2026-03-01")
    assert _found("Quantos dias há entre 1° de março e 15 de abril de 2026?", "2026-03-01")
    assert _found("Reunião em 2º de maio de 2026.", "2026-05-02")
    assert not _found("Quantos dias há entre 1º de março e 15 de abril de 2026?", "2026-03-02")
    call = '[{"name": "days_between", "arguments": {"start": "2026-03-01", "end": "2026-04-15"}}]'
    a = call.index('"2026-03-01"')
    tokens = [(0, a, 1.0), (a, a + 12, 0.25), (a + 12, len(call), 1.0)]
    texts = conversation_texts([HumanMessage("Quantos dias há entre 1º de março e 15 de abril de 2026?")])
    assert made_up_value(call, tokens, texts, 0.3, fmt="json") is None


def test_a_number_written_with_a_decimal_comma_or_dotted_thousands_is_found():
    for question, value in (("Converta 2,5 km em milhas.", 2.5), ("Converta 1.500 metros em pés.", 1500),
                            ("Converta 1.500,75 km em milhas.", 1500.75), ("Quanto é 12,5% de 80?", 12.5),
                            ("Converta 1 500,75 km.", 1500.75), ("Saldo de -2,5 mil.", -2.5),
                            ("Converta 1.234.567 metros.", 1234567), ("Converta 2,5 km.", "2.5")):
        assert _found(question, value), question
    # either reading counts, and nothing read before is lost
    for question, value in (("Converta 1.500 metros.", 1.5), ("Convert 1,500 meters.", 1500),
                            ("Convert 1,500 meters.", 1.5), ("Convert 1,500.75 km.", 1500.75), ("Use 3.14.", 3.14),
                            ("List 1,2,3", 2), ("Convert 1,500,000 m.", 1500000)):
        assert _found(question, value), question
    for question, value in (("List 1,2,3", 1.2), ("Ping 192.168.1.1", 192168), ("Converta 2,5 km.", 25),
                            ("Converta 1.500,75 km.", 150075)):
        assert not _found(question, value), question
    call = '[{"name": "convert_length", "arguments": {"value": 2.5, "from_unit": "km", "to_unit": "miles"}}]'
    start = call.index("2.5")
    tokens = [(0, start, 1.0), (start, start + 3, 0.25), (start + 3, len(call), 1.0)]
    texts = conversation_texts([HumanMessage("Converta 2,5 km em milhas.")])
    assert made_up_value(call, tokens, texts, 0.3, fmt="json") is None
