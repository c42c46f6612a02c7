"""An answer after failed tool calls that states a figure no message holds is generated again (forty-sixth session).

After failed calls the default model answered "O saldo da conta 4417 é R$ 0.00." or "Der Kontostand von Konto 7788
beträgt 123456." (``benchmarks/failed_results.py``: 8 of 20 answers); such a reply is held back and generated again
from its first token, that token banned, up to three times.
"""

from __future__ import annotations

from test_dialects import WEATHER, _Pieces, _ScriptedGeneration
from toolwire.messages import AIMessage, HumanMessage, ToolMessage
from toolwire.models._figures import figure_context, figure_restart, made_up_figure

_CALL = {"name": "get_balance", "args": {"account": "4417"}, "id": "c1"}
_VOCAB = _Pieces({1: "The", 2: " balance", 3: " is", 4: " 12", 5: "0.50", 6: ".", 7: "Sorry", 8: ",", 9: " failed",
                  10: " 4417", 11: " 503"})
_MADE_UP = [(1, {1: 0.9}), (2, {2: 0.9}), (3, {3: 0.9}), (4, {4: 0.9}), (5, {5: 0.9}), (6, {6: 0.9})]
_HONEST = [(7, {7: 0.9}), (8, {8: 0.9}), (9, {9: 0.9}), (6, {6: 0.9})]  # "Sorry, failed."


def _after(status: str = "error", text: str = "Error: the bank's service is down (HTTP 503)") -> list:
    return [HumanMessage("What is the balance of account 4417?"), AIMessage("", tool_calls=[_CALL]),
            ToolMessage(text, tool_call_id="c1", status=status)]


def test_the_rule_applies_only_after_results_that_are_all_errors():
    numbers, _ = figure_context(_after())
    assert numbers == frozenset({("4417",), ("503",)})  # the question, the call, the error text
    assert figure_context(_after("success", "1,200.50 USD")) is None  # a result was given: figures may come of it
    two = [*_after()[:2], ToolMessage("Error: down", tool_call_id="c1", status="error"),
           ToolMessage("80", tool_call_id="c2")]
    assert figure_context(two) is None
    assert figure_context([HumanMessage("What is 2 + 2?")]) is None  # no results at all
    assert figure_context([*_after(), AIMessage("Sorry."), HumanMessage("Try again")]) is None


def _known(*texts: str):
    return figure_context([HumanMessage(" ".join(texts)), AIMessage("", tool_calls=[_CALL]),
                           ToolMessage("Error: down", tool_call_id="c1", status="error")])


def test_a_figure_is_a_standalone_number_of_two_digits_or_with_a_decimal_part():
    known = _known("account 4417, 80 reais on 2026-04-18, amount 80.0")
    for honest in ("Account 4417 has no balance.", "Try again in 5 minutes.", "1. Check the account.",
                   "R$ 80,00 was not added.", "O dia 18.04.2026 falhou.", "Call get_v2_balance again.",
                   "Use MP3 or sha256, the 1st one.", "Conta 4.417", "الحساب ٤٤١٧ غير موجود.",
                   "The default address is 192.168.1.1.", "Update to 2.10.3 first."):
        assert made_up_figure(honest, known) is None, honest
    for made_up in ("The balance is 120.50.", "It holds $44.17.", "It is 800 reais.", "Saldo: 0.00",
                    "Founded in 1816.", "It costs 123,45 €", "Es gibt 1.744.000 Einwohner."):
        assert made_up_figure(made_up, known) is not None, made_up


def test_a_made_up_figure_is_declined_from_the_first_token_and_never_streamed():
    run = _ScriptedGeneration([_MADE_UP, _HONEST], bar=0.5, messages=_after())
    (whole, opener, fmt), shown = run.run(_VOCAB, tools=[WEATHER])
    assert (whole, opener, fmt) == ("Sorry, failed.", "", None) and shown == "Sorry, failed."
    assert [ban for _, ban in run.calls] == [(), (1,)] and run.gen.figures == 1
    assert run.gen.budget == 100 - len(_HONEST)  # the declined reply's tokens do not count


def test_a_figure_the_conversation_holds_is_kept():
    said = [(7, {7: 0.9}), (8, {8: 0.9}), (10, {10: 0.9}), (9, {9: 0.9}), (11, {11: 0.9}), (6, {6: 0.9})]
    run = _ScriptedGeneration([said], bar=0.5, messages=_after())
    assert run.run(_VOCAB, tools=[WEATHER]) == (("Sorry, 4417 failed 503.", "", None), "Sorry, 4417 failed 503.")
    assert run.gen.figures == 0


def test_up_to_three_declines_then_the_reply_is_kept():
    run = _ScriptedGeneration([_MADE_UP] * 4, bar=0.5, messages=_after())
    text = "The balance is 120.50."
    assert run.run(_VOCAB, tools=[WEATHER]) == ((text, "", None), text) and run.gen.figures == 3
    assert [ban for _, ban in run.calls] == [(), (1,), (1,), (1,)]


def test_a_figure_at_the_very_end_is_judged_too():
    run = _ScriptedGeneration([_MADE_UP[:5], _HONEST], bar=0.5, messages=_after())  # "The balance is 120.50"
    assert run.run(_VOCAB, tools=[WEATHER])[1] == "Sorry, failed." and run.gen.figures == 1


def test_after_a_successful_result_or_with_the_option_off_the_figure_is_kept():
    text = "The balance is 120.50."
    run = _ScriptedGeneration([_MADE_UP, _HONEST], bar=0.5, messages=_after("success", "the balance: 120.50"))
    assert run.run(_VOCAB, tools=[WEATHER]) == ((text, "", None), text) and run.gen.figures == 0
    run = _ScriptedGeneration([_MADE_UP, _HONEST], bar=0.5, messages=_after())
    run.gen.model.decline_made_up_figures = False
    assert run.run(_VOCAB, tools=[WEATHER]) == ((text, "", None), text) and run.gen.figures == 0


def test_the_restart_is_from_the_stream_s_first_token():
    made = [1, 2, 3, 4, 5]  # "The", " balance", " is", " 99", " now"
    assert figure_restart("The balance is 99 now", _known(), 0, made) == (0, [1], None)
    assert figure_restart("The balance is 99 now", _known("99"), 0, made) is None
    assert figure_restart("Was 99, then", _known(), 9, made) is None  # before this stream


def test_sampling_leaves_the_reply_alone():
    """Review 134 #1: at temperature 0.7 the ban was not applied and the seed made the same reply again each time."""
    run = _ScriptedGeneration([_MADE_UP, _HONEST], bar=0.5, messages=_after())
    run.gen.opts["temperature"] = 0.7
    text = "The balance is 120.50."
    assert run.run(_VOCAB, tools=[WEATHER]) == ((text, "", None), text) and run.gen.figures == 0


def test_a_call_made_again_of_a_tool_with_a_digit_in_its_name_is_made():
    """Review 134 #2: the "2" of get_v2_balance counted as a made-up figure before the call was recognised."""
    vocab = _Pieces({**_VOCAB.pieces, 20: "[", 21: "get", 22: "_v", 23: "2", 24: "_balance", 25: "("})
    retry = [(20, {20: 0.9}), (21, {21: 0.9}), (22, {22: 0.9}), (23, {23: 0.9}), (24, {24: 0.9}), (25, {25: 0.9})]
    run = _ScriptedGeneration([retry], bar=0.0, messages=_after(),
                              calls=[('[get_v2_balance(account="4417")]', [], 0)])
    (_, call, _), _ = run.run(vocab, names=("get_v2_balance",), tools=[WEATHER])
    assert call == '[get_v2_balance(account="4417")]' and run.gen.figures == 0


def test_the_model_option_defaults_on():
    from toolwire.models.llamacpp import ChatLlamaCpp

    assert ChatLlamaCpp().decline_made_up_figures is True
    assert ChatLlamaCpp(decline_made_up_figures=False).decline_made_up_figures is False
