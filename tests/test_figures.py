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
    assert figure_context(_after()) == frozenset({"4417", "503"})  # the question, the call, the error text
    assert figure_context(_after("success", "1,200.50 USD")) is None  # a result was given: figures may come of it
    two = [*_after()[:2], ToolMessage("Error: down", tool_call_id="c1", status="error"),
           ToolMessage("80", tool_call_id="c2")]
    assert figure_context(two) is None
    assert figure_context([HumanMessage("What is 2 + 2?")]) is None  # no results at all
    assert figure_context([*_after(), AIMessage("Sorry."), HumanMessage("Try again")]) is None


def test_a_figure_is_judged_whole_and_by_its_digits():
    known = frozenset({"4417", "120050"})
    assert made_up_figure("Account 4417 has", known) is None
    assert made_up_figure("Account 4,417 holds 1.200,50 now.", known) is None  # separators apart, as languages write
    assert made_up_figure("It is 12", known) is None  # may still grow
    assert made_up_figure("It is 12.", known) is None  # "12.5" may follow
    assert made_up_figure("It is 12. Then", known) == 6  # whole: a sentence's end
    assert made_up_figure("It is 120.50 USD", known) == 6


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


def test_the_restart_is_from_the_reply_s_first_token():
    ends, made = [3, 11, 14, 16, 20], [1, 2, 3, 4, 5]  # "The", " balance", " is", " 9", " now"
    assert figure_restart("The balance is 9 now", frozenset(), 0, ends, made) == (0, [1], None)
    assert figure_restart("The balance is 9 now", frozenset({"9"}), 0, ends, made) is None
    assert figure_restart("Was 9, then", frozenset(), 9, [3, 5, 6, 11], [1, 2, 3, 4]) is None  # before this stream


def test_the_model_option_defaults_on():
    from toolwire.models.llamacpp import ChatLlamaCpp

    assert ChatLlamaCpp().decline_made_up_figures is True
    assert ChatLlamaCpp(decline_made_up_figures=False).decline_made_up_figures is False
