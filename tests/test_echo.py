"""A reply after tool results that only says the user's request again is generated again (review 126 #4).

The default model answered "Adicione uma despesa de 80 reais com transporte no dia 2026-04-18." with that very
sentence after ``add_expense`` succeeded (``benchmarks/chained_calls.py``, P2); the reply is now held back while it
is still the request's start, and generated again from its first token, that token banned, once it ends as the whole
request.
"""

from __future__ import annotations

from test_dialects import _VOCAB, WEATHER, _Pieces, _ScriptedGeneration
from toolwire.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from toolwire.models._echo import echo_target, is_echo, may_echo

_CALL = {"name": "get_weather", "args": {"city": "Oslo"}, "id": "c1"}
_ECHO = [(7, {7: 0.9}), (8, {8: 0.9}), (9, {9: 0.9})]  # "It is sunny": the request below, said again
_OTHER = [(1, {1: 0.9}), (2, {2: 0.9})]  # "Sure."


def _after_results(request: str = "It is sunny") -> list:
    return [SystemMessage("Be brief."), HumanMessage(request), AIMessage("", tool_calls=[_CALL]),
            ToolMessage("Sunny, 21 C", tool_call_id="c1")]


def test_echo_target_is_the_newest_request_when_results_end_the_conversation():
    assert echo_target(_after_results("Add  it\nas food, please")) == "Add it as food, please"
    # a user turn right after the results is said in the results turn: it is the request then
    assert echo_target([*_after_results(), HumanMessage("And in Bergen now?")]) == "And in Bergen now"
    # a blank one leaves the request before it to answer, as the dialects say it in the results turn
    assert echo_target([*_after_results("Weather in Oslo today?"), HumanMessage(" ")]) == "Weather in Oslo today"
    # text blocks are read one per line, as the prompt shows them (review 130 #4: joined with nothing, never matched)
    blocks = [{"type": "text", "text": "Weather in"}, {"type": "text", "text": "Oslo today"}]
    assert echo_target(_after_results(blocks)) == "Weather in Oslo today"
    # no spaces: six characters or more
    assert echo_target(_after_results("帮我添加一笔交通费用")) == "帮我添加一笔交通费用"


def test_echo_target_is_none_without_results_or_for_a_short_request():
    assert echo_target([HumanMessage("Add it as food, please")]) is None  # no results: saying it back may be fair
    assert echo_target([*_after_results(), AIMessage("Sunny."), HumanMessage("Say that again please")]) is None
    assert echo_target(_after_results("Oslo weather?")) is None  # two words
    assert echo_target([]) is None and echo_target([ToolMessage("x", tool_call_id="c")]) is None


def test_is_echo_and_may_echo_compare_the_words_not_quotes_spaces_or_final_marks():
    target = echo_target(_after_results("Add it as food, please."))
    assert target == "Add it as food, please"
    assert is_echo('"Add it as  food, please"\n', target) and is_echo("Add it as food, please!", target)
    assert not is_echo("Add it as food, please. Done: added.", target) and not is_echo("", target)
    assert not is_echo("add it as food, please.", target)  # (the same words only: a case change is another reply)
    assert may_echo("", target) and may_echo("  Add it as", target) and may_echo("Add it\nas", target)
    assert not may_echo("Added it", target)
    # what is_echo declines, may_echo held back at every step (review 130 #1: a final mark let it be streamed)
    for reply in ('"Add it as food, please"\n', "Add it as food, please!", "Add it as food, please."):
        assert is_echo(reply, target) and all(may_echo(reply[:end], target) for end in range(len(reply) + 1))


def test_a_reply_that_only_says_the_request_again_is_generated_again_without_its_first_token():
    run = _ScriptedGeneration([_ECHO, _OTHER], bar=0.5, messages=_after_results())
    (whole, opener, fmt), shown = run.run(_VOCAB, tools=[WEATHER])
    assert (whole, opener, fmt) == ("Sure.", "", None)
    assert shown == "Sure."  # the echo was held back, never streamed
    assert run.calls == [([100, 101], ()), ([100, 101], (7,))]  # again from the reply's start, "It" banned
    assert run.gen.echoes == 1 and run.gen.declined_calls == 0 and run.gen.unknown_calls == 0
    assert run.gen.budget == 100 - 2  # the declined echo's tokens do not count


def test_an_echo_with_a_final_mark_is_never_streamed_and_the_answer_after_it_is_streamed_whole():
    # review 130 #1: the stream carried "It is sunny." and invoke gave "Sure."
    run = _ScriptedGeneration([[*_ECHO, (2, {2: 0.9})], _OTHER], bar=0.5, messages=_after_results())
    assert run.run(_VOCAB, tools=[WEATHER]) == (("Sure.", "", None), "Sure.") and run.gen.echoes == 1


def test_an_echo_written_again_another_way_is_declined_again_with_both_first_tokens_banned():
    # review 130 #2: the model wrote the same sentence again after its first token was banned
    vocab = _Pieces({**_VOCAB.pieces, 20: "It is", 21: " sunny"})
    again = [(20, {20: 0.9}), (21, {21: 0.9})]
    run = _ScriptedGeneration([_ECHO, again, _OTHER], bar=0.5, messages=_after_results())
    assert run.run(vocab, tools=[WEATHER]) == (("Sure.", "", None), "Sure.") and run.gen.echoes == 2
    assert [ban for _, ban in run.calls] == [(), (7,), (7, 20)]
    # a stop string right after the echo: declined all the same
    run = _ScriptedGeneration([[*_ECHO, (2, {2: 0.9}), (3, {3: 0.9}), (1, {1: 0.9})], _OTHER], bar=0.5,
                              messages=_after_results())
    run.gen.opts["stop"] = ["\n"]
    assert run.run(vocab, tools=[WEATHER]) == (("Sure.", "", None), "Sure.") and run.gen.echoes == 1


def test_echoes_are_declined_up_to_three_times_and_a_reply_that_only_begins_like_the_request_is_kept():
    run = _ScriptedGeneration([_ECHO] * 4, bar=0.5, messages=_after_results())
    assert run.run(_VOCAB, tools=[WEATHER]) == (("It is sunny", "", None), "It is sunny") and run.gen.echoes == 3
    # "It is" then something else: streamed once it is no longer the request's start
    longer = [*_ECHO, (2, {2: 0.9}), (8, {8: 0.9})]  # "It is sunny. is"
    run = _ScriptedGeneration([longer], bar=0.5, messages=_after_results())
    assert run.run(_VOCAB, tools=[WEATHER]) == (("It is sunny. is", "", None), "It is sunny. is")
    assert run.gen.echoes == 0


def test_without_tool_results_a_reply_saying_the_request_again_is_kept():
    run = _ScriptedGeneration([_ECHO, _OTHER], bar=0.5, messages=[HumanMessage("It is sunny")])
    assert run.run(_VOCAB, tools=[WEATHER]) == (("It is sunny", "", None), "It is sunny") and run.gen.echoes == 0


def test_the_model_option_turns_the_rule_off():
    from toolwire.models.llamacpp import ChatLlamaCpp

    assert ChatLlamaCpp().decline_echoes is True and ChatLlamaCpp(decline_echoes=False).decline_echoes is False
    run = _ScriptedGeneration([_ECHO, _OTHER], bar=0.5, messages=_after_results())
    run.gen.model.decline_echoes = False
    assert run.run(_VOCAB, tools=[WEATHER]) == (("It is sunny", "", None), "It is sunny") and run.gen.echoes == 0
