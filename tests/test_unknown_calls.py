"""A reply that opens as a call of no bound tool is declined, so that the model answers in text (review 22).

The default model answered many questions no offered tool fits with a call list of a made-up function
(``[calculate_triangle_area(base=10, height=5)]``): text to toolwire, but of no use to the user, and a call
by BFCL's rules.
"""

from __future__ import annotations

import pytest

from test_dialects import _VOCAB, _Pieces, _ScriptedGeneration
from toolwire.models.openers import OpenerScanner

NAMES = ("get_weather", "calculate")


def _scan(text: str, formats: tuple[str, ...] = ("pythonic",)) -> tuple[tuple[int, str] | None, int | None, int]:
    """Feed ``text`` one character at a time as generation does: ``(feed's find, unknown_call's, safe_end)``."""
    scanner = OpenerScanner(formats, NAMES)
    for n in range(1, len(text) + 1):
        found = scanner.feed(text[:n])
        if found is not None:
            return found, None, scanner.safe_end(text[:n])
        unknown = scanner.unknown_call(text[:n])
        if unknown is not None:
            return None, unknown, scanner.safe_end(text[:n])
    return None, None, scanner.safe_end(text)


@pytest.mark.parametrize(("text", "where"), [
    ("[calculate_triangle_area(base=10)]", 0),
    ("  [str('Eiffel Tower')] and more", 2),  # decided when the list closes
    ("[[get_weather(city='Oslo')]]", 0),  # a bound tool, but written as no call list is
    ("[\n  [calc_area(base=10)]\n]", 0),  # a list of a call list, over lines
    ("```python\n[fibonacci(n=20)]\n```", 0),
    ("`[calc_area(base=10)]`", 0),
    ("fibonacci(20)\nThat is all.", 0),  # BFCL reads a bare call as a call list: alone on its line
    # in parentheses (review 67: after a declined call list the model wrote its call so, a bound tool's too)
    ("(calc_area(base=10))\n", 0),
    ("( get_weather(city='Oslo'))\nDone.", 0),
])
def test_a_reply_opening_as_a_call_of_no_bound_tool_is_found(text: str, where: int) -> None:
    found, unknown, _ = _scan(text)
    assert found is None and unknown == where


def test_a_bare_call_or_an_open_list_is_judged_when_the_reply_ends() -> None:
    for text, where in (("\n sin(45)", 2), ("fibonacci(20)", 0), ("[calc(x=1)", 0), ("[calc(x=1", None),
                        ("(calc(x=1))", 0)):
        scanner = OpenerScanner(("pythonic",), NAMES)
        scanner.feed(text)
        assert scanner.unknown_call(text) is None and scanner.safe_end(text) == 0, text  # held back
        assert scanner.unknown_call(text, final=True) == where, text


@pytest.mark.parametrize("text", [
    "The area is 25.", "['James Buchanan']", "[1, 2, 3]", "[(10 * 5) / 2]", "Paris (France) is sunny.",
    "```python\nprint(area(10, 5))\n```",  # a code block may open with a call
    "Use this:\n[calculate_area(base=10)]",  # only the start of the reply counts
    "```json\n[1, 2]\n```", "", "   ",
    # review 23: prose and code that begin like a call
    "O(n log n) is the complexity.", "f(x) = 2x + 1 for all x", "sqrt(16) = 4", "len() returns the length.",
    "[str(x) for x in nums]", "```python\n[str(x) for x in nums]\n```", "[Python (language)](https://x) is",
    "fibonacci(20) is 6765.", "(see the docs) first.", "(1 + 2) * 3 = 9", "(sqrt(16) = 4)",
])
def test_prose_literals_and_code_are_not_calls_of_unknown_tools(text: str) -> None:
    found, unknown, _ = _scan(text)
    assert (found, unknown) == (None, None)
    scanner = OpenerScanner(("pythonic",), NAMES)
    scanner.feed(text)
    assert scanner.unknown_call(text, final=True) is None
    assert scanner.safe_end(text) == len(text.rstrip())  # all of it may be shown once the reply ended


def test_bound_calls_are_still_calls_and_json_objects_count_too() -> None:
    assert _scan("[get_weather(city='Oslo')]")[:2] == ((0, "pythonic"), None)
    assert _scan('[{"name": "get_weather", "arguments": {}}]', ("json",))[:2] == ((0, "json"), None)
    assert _scan('[{"name": "calc_area", "arguments": {"b": 10}}]', ("json",))[:2] == (None, 0)
    # a JSON call list inside a list is no call list to BFCL nor any use as text, as ``[[calc(...)]]`` is not
    assert _scan('[[{"name": "calc_area", "arguments": {"b": 10}}]]', ("json",))[:2] == (None, 0)
    assert _scan('[\n [{"name": "calc_area", "arguments": {}}]\n]', ("json",))[:2] == (None, 0)
    assert _scan('[[1, 2], [3, 4]]', ("json",))[:2] == (None, None)
    # a function's definition written out is not a call
    assert _scan('{"name": "calc_area", "description": "Area."}', ("json",))[:2] == (None, None)


def test_a_reply_that_may_still_open_as_such_a_call_is_held_back() -> None:
    scanner = OpenerScanner(("pythonic",), NAMES)
    for text in ("[", "[calc_area", "```py", "```python\n[", "fibonacci", "  ", "[calc_area(width=5", "sin(45)"):
        scanner.feed(text)
        assert scanner.unknown_call(text) is None and scanner.safe_end(text) == 0, text
        assert scanner.opens_unknown(text) is (text != "fibonacci")  # a bare call counts from its "("
    assert not OpenerScanner(("pythonic",), NAMES, calls=False).feed("[get_weather(")  # calls off: no call
    assert scanner.opens_unknown("fibonacci(")
    for text in ("The", "The area", "[1,", "['James"):
        scanner = OpenerScanner(("pythonic",), NAMES)
        scanner.feed(text)
        scanner.unknown_call(text)
        assert scanner.safe_end(text) > 0 or text == "The", text
        assert not scanner.opens_unknown(text + " ")


_TOKENS = _Pieces({**_VOCAB.pieces, 20: "calc", 21: "[calc", 22: " ", 23: "_area", 24: "[[", 25: "The",
                   26: " area", 27: " is", 28: " 25", 29: " [", 30: "[1", 31: "width=5", 32: ")]", 33: ")]]",
                   34: ")"})
_MADE_UP = [(4, {4: 0.6, 21: 0.1, 22: 0.1, 25: 0.1, 30: 0.1}), (20, {20: 1.0}), (23, {23: 1.0}), (6, {6: 1.0}),
            (31, {31: 1.0}), (32, {32: 1.0})]  # [calc_area(width=5)]
_ANSWER = [(25, {25: 0.9}), (26, {26: 0.9}), (27, {27: 0.9}), (28, {28: 0.9})]


def test_the_opening_is_declined_and_the_reply_generated_again_without_any_token_that_opens_one() -> None:
    run = _ScriptedGeneration([_MADE_UP, _ANSWER], bar=0.5)
    (whole, call_text, fmt), shown = run.run(_TOKENS, names=NAMES)
    assert (whole, call_text, fmt) == ("The area is 25", "", None) and shown == whole
    # banned at the reply's first token: the "[" taken, "[calc" and the whitespace; "[1" (a literal list)
    # and "The" stay allowed
    assert run.calls == [([100, 101], ()), ([100, 101], (4, 21, 22))]
    assert run.gen.unknown_calls == 1 and run.gen.declined_calls == 0  # (declined_calls: by the bars)
    assert run.gen.budget == 100 - 4  # the declined tokens do not count


def test_a_reply_that_ends_as_a_bare_call_of_no_tool_is_declined_then() -> None:
    bare = [(20, {20: 1.0}), (23, {23: 1.0}), (6, {6: 1.0}), (31, {31: 1.0}), (34, {34: 1.0})]  # calc_area(width=5)
    run = _ScriptedGeneration([bare, _ANSWER], bar=0.5)
    (whole, _, _), shown = run.run(_TOKENS, names=NAMES)
    assert whole == shown == "The area is 25" and run.gen.unknown_calls == 1
    assert run.calls[1] == ([100, 101], (20,)) and run.gen.budget == 100 - 4


def test_declines_are_bounded_and_then_the_reply_stays_text() -> None:
    again = [(24, {24: 1.0}), (20, {20: 1.0}), (6, {6: 1.0}), (33, {33: 1.0})]  # "[[calc()]]"
    bare = [(20, {20: 1.0}), (6, {6: 1.0}), (34, {34: 1.0})]  # "calc()"
    run = _ScriptedGeneration([_MADE_UP, again, bare, _MADE_UP], bar=0.5)
    (whole, call_text, fmt), shown = run.run(_TOKENS, names=NAMES)
    assert (whole, call_text, fmt) == ("[calc_area(width=5)]", "", None) and shown == whole
    # the bans at the reply's first token add up over the declines there
    assert run.gen.unknown_calls == 3 and [ban for _, ban in run.calls] == [(), (4, 21, 22), (4, 21, 22, 24),
                                                                            (4, 20, 21, 22, 24)]


def test_without_greedy_decoding_nothing_is_declined() -> None:
    run = _ScriptedGeneration([_MADE_UP], bar=0.5)
    run.gen.opts["temperature"] = 0.7  # sampling: the reply is the model's draw, as it is
    (whole, _, _), shown = run.run(_TOKENS, names=NAMES)
    assert whole == shown == "[calc_area(width=5)]" and run.gen.unknown_calls == 0


def test_the_option_turns_it_off() -> None:
    run = _ScriptedGeneration([_MADE_UP], bar=0.5)
    run.gen.model.decline_unknown_calls = False
    (whole, _, _), shown = run.run(_TOKENS, names=NAMES)
    assert whole == shown == "[calc_area(width=5)]" and run.gen.unknown_calls == 0


def test_with_the_bars_off_the_candidates_are_still_read_for_the_ban() -> None:
    # the json dialect has no bars (0): the tokens that would open the made-up call again are banned all the same
    run = _ScriptedGeneration([_MADE_UP, _ANSWER], bar=0.0)
    (whole, _, _), _ = run.run(_TOKENS, names=NAMES)
    assert whole == "The area is 25" and run.calls[1] == ([100, 101], (4, 21, 22))
    assert run.gen.call_probability is None


def test_the_tokens_of_an_unknown_call_stay_banned_at_their_place_after_a_declined_call() -> None:
    # the model wrote [calc_area( (declined), then a bound call the value check declined, then [calc_area( again:
    # the second restart at the reply's start bans the first one's tokens as well as its own
    sure_call = [(4, {4: 0.95}), (5, {5: 1.0}), (6, {6: 1.0})]
    atlantis = ('[get_weather(city="Atlantis")]', [(0, 13, 1.0), (13, 23, 0.1), (23, 30, 1.0)], 3)
    run = _ScriptedGeneration([_MADE_UP, sure_call, _ANSWER], bar=0.5, value_bar=0.5, calls=[atlantis])
    (whole, _, _), _ = run.run(_TOKENS, names=NAMES)
    assert whole == "The area is 25" and run.gen.made_up_values == ['city="Atlantis"']
    assert run.calls[2][1] == (4, 21, 22)  # the value decline's own ban ([) and the unknown call's


def test_where_a_call_of_no_tool_was_declined_every_earlier_ban_there_stays() -> None:
    # review 23: a bar declines [get_weather( (bans "[" there), the model then writes [[calc()]] (declined), and
    # the next stream must not open with "[" again
    unsure = [(4, {4: 0.3, 25: 0.7}), (5, {5: 1.0}), (6, {6: 1.0})]
    again = [(24, {24: 1.0}), (20, {20: 1.0}), (6, {6: 1.0}), (33, {33: 1.0})]
    run = _ScriptedGeneration([unsure, again, _ANSWER], bar=0.5)
    (whole, _, _), _ = run.run(_TOKENS, names=NAMES)
    assert whole == "The area is 25" and [ban for _, ban in run.calls] == [(), (4,), (4, 24)]
    assert (run.gen.declined_calls, run.gen.unknown_calls) == (1, 1)


def test_after_three_declines_the_text_streams_as_it_comes() -> None:
    # review 23: with calls off, a line that opened like a bound call no longer holds the rest back
    unsure = [(4, {4: 0.3, 7: 0.7}), (5, {5: 1.0}), (6, {6: 1.0})]
    tail = [(1, {1: 1.0}), (3, {3: 1.0}), (4, {4: 1.0}), (5, {5: 1.0}), (6, {6: 1.0}), (3, {3: 1.0}),
            (7, {7: 1.0}), (8, {8: 1.0}), (9, {9: 1.0})]  # Sure\n[get_weather(\nIt is sunny
    run = _ScriptedGeneration([unsure, unsure, unsure, tail], bar=0.5)
    chunks = []
    free = run.gen._free(_TOKENS, [100, 101], OpenerScanner(("pythonic",), NAMES), _spec(), [])
    while True:
        try:
            chunks.append(next(free).content)
        except StopIteration:
            break
    assert "".join(chunks) == "Sure\n[get_weather(\nIt is sunny" and len(chunks) > 2


def _spec():
    from toolwire.models._call_checks import CallSpec

    return CallSpec((), True, True, {})


def test_with_calls_off_a_call_of_a_bound_tool_is_declined_too() -> None:
    """``tool_choice="none"`` scans with ``calls=False`` (review 29): a call list of a bound tool is not the answer."""
    from toolwire.models._call_checks import CallSpec

    bound = [(4, {4: 0.9, 25: 0.1}), (5, {5: 1.0}), (6, {6: 1.0}), (31, {31: 1.0}), (32, {32: 1.0})]
    run = _ScriptedGeneration([bound, _ANSWER], bar=0.5)
    free = run.gen._free(_TOKENS, [100, 101], OpenerScanner(("pythonic",), NAMES, calls=False),
                         CallSpec((), True, True, {}), [])
    shown = []
    while True:
        try:
            shown.append(next(free).content)
        except StopIteration as stop:
            whole, call_text, fmt = stop.value
            break
    assert (whole, call_text, fmt) == ("The area is 25", "", None) and "".join(shown) == whole
    assert run.gen.unknown_calls == 1 and run.calls[1][1] == (4,)


# -- a reply that is only a list of values (decline_value_lists) --------------------------------------------------

_VALUES = _Pieces({**_TOKENS.pieces, 40: "['", 41: "BR", 42: "CA1", 43: "']", 44: "'BR", 45: "]"})


@pytest.mark.parametrize(("text", "where"), [
    ("['BRCA1']", 1), ("[1494]\n", 1), ("[ 'a', 'b' ]", 2), ("[(10 * 5) / 2]", 1), ("```python\n[1494]\n```", 11),
    ("`[-3.5]`", 2),
])
def test_a_reply_that_is_only_a_list_of_values_is_found_where_its_first_value_opens(text: str, where: int) -> None:
    scanner = OpenerScanner(("pythonic",), NAMES, values=True)
    assert scanner.feed(text) is None
    assert scanner.unknown_call(text) is None and scanner.safe_end(text) == 0  # held back until the reply ends
    assert scanner.unknown_call(text, final=True) == where and scanner.found == "values"


@pytest.mark.parametrize("text", [
    "['BRCA1'] is the gene you asked about.",  # more than the list: text
    "[]", "[x for x in xs]", "[True]",  # no value opens the list (an empty list, a name)
    "The values are [1, 2].", "[1, 2",  # not at the start; never closed
])
def test_other_replies_are_not_lists_of_values(text: str) -> None:
    scanner = OpenerScanner(("pythonic",), NAMES, values=True)
    scanner.feed(text)
    assert scanner.unknown_call(text, final=True) is None, text


def test_lists_of_values_are_found_only_when_asked_for_and_only_in_the_pythonic_format() -> None:
    assert OpenerScanner(("pythonic",), NAMES).unknown_call("['BRCA1']", final=True) is None
    assert OpenerScanner(("json",), NAMES, values=True).unknown_call("['BRCA1']", final=True) is None


def test_after_a_list_of_values_only_what_opens_a_value_is_banned_and_the_bracket_stays() -> None:
    scanner = OpenerScanner(("pythonic",), NAMES, values=True)
    assert scanner.unknown_call("['BRCA1']", final=True) == 1
    assert [scanner.opens_unknown(t) for t in ("['", "[1", "[(", "[", "[get", "[calc_area", "The")] == [
        True, True, True, False, False, False, False]
    # after a call of no tool, the other way round: "[" may open one again, "['" may not
    other = OpenerScanner(("pythonic",), NAMES, values=True)
    assert other.unknown_call("[calc_area(width=5)]", final=True) == 0 and other.found == "pythonic"
    assert other.opens_unknown("[") and not other.opens_unknown("['")


def _free_values(streams, messages=()) -> tuple[tuple[str, str, str | None], _ScriptedGeneration]:
    run = _ScriptedGeneration(streams, bar=0.0, messages=messages)
    free = run.gen._free(_VALUES, [100, 101], OpenerScanner(("pythonic",), NAMES, values=True), _spec(), [])
    while True:
        try:
            next(free)
        except StopIteration as stop:
            return stop.value, run


def test_a_list_of_values_is_declined_from_its_first_value_and_the_model_goes_on_with_a_call() -> None:
    values = [(40, {40: 0.6, 4: 0.3, 25: 0.1}), (41, {41: 1.0}), (42, {42: 1.0}), (43, {43: 1.0})]  # ['BRCA1']
    call = [(4, {4: 0.9}), (5, {5: 1.0}), (6, {6: 1.0})]  # [get_weather(
    (head, call_text, fmt), run = _free_values([values, call])
    assert (head, call_text, fmt) == ("", "[get_weather(", "pythonic")
    assert run.calls[1] == ([100, 101], (40,))  # "['" banned at the first token; "[" and "The" allowed
    assert run.gen.unknown_calls == 1 and run.gen.budget == 100 - 3  # the declined tokens do not count


def test_where_the_bracket_is_a_token_of_its_own_the_ban_comes_after_it() -> None:
    values = [(4, {4: 0.9}), (44, {44: 0.7, 28: 0.1, 30: 0.1, 5: 0.1}), (42, {42: 1.0}), (43, {43: 1.0})]  # ['BRCA1']
    answer = [(25, {25: 0.9}), (26, {26: 0.9})]
    (head, call_text, fmt), run = _free_values([values, answer])
    # generation goes on after the "[" kept, with "'BR" and " 25" (tokens that open a value there) banned; "[1"
    # (a list in the list) and "get_weather" stay allowed
    assert run.calls[1] == ([100, 101, 4], (28, 44))
    assert (head, call_text, fmt) == ("[The area", "", None)


def test_declining_lists_of_values_waits_for_the_newest_user_message_to_have_no_results() -> None:
    from toolwire import AIMessage, HumanMessage, ToolMessage
    from toolwire.models._answered import results_since_user

    call = AIMessage("", tool_calls=[{"name": "calculate", "args": {}, "id": "c1", "type": "tool_call"}])
    assert not results_since_user([HumanMessage("Which gene?")])
    assert results_since_user([HumanMessage("Which gene?"), call, ToolMessage("BRCA1", tool_call_id="c1")])
    assert not results_since_user([HumanMessage("q"), call, ToolMessage("r", tool_call_id="c1"), HumanMessage("q2")])
    assert not results_since_user([])


def test_a_reply_cut_by_max_tokens_while_a_call_opens_is_a_cut_call_not_text() -> None:
    # review 73: '[{"name": "get_weather' (json) and '[get_weather' (pythonic), cut by max_tokens while the opening
    # was still being written, came back as the reply's text; now they go on as a call, which the reply reads as cut
    for formats, stream in ((("pythonic",), [(4, {4: 1.0}), (5, {5: 1.0})]),  # [get_weather
                            (("pythonic",), [(1, {1: 1.0}), (3, {3: 1.0}), (10, {10: 1.0})])):  # Sure\n[get
        run = _ScriptedGeneration([stream], bar=0.0, max_tokens=len(stream))
        run.gen.finish = "length"  # as _texts sets it when the budget runs out
        free = run.gen._free(_TOKENS, [100, 101], OpenerScanner(formats, NAMES), _spec(), [])
        shown = []
        while True:
            try:
                shown.append(next(free).content)
            except StopIteration as stop:
                head, call_text, fmt = stop.value
                break
        assert fmt == "pythonic" and call_text.startswith("[get") and head.strip() in ("", "Sure")
        assert "".join(shown) == head.strip()  # the opening is never shown as text
    # text that only might have opened a call stays text when the reply ended normally
    run = _ScriptedGeneration([[(4, {4: 1.0}), (5, {5: 1.0})]], bar=0.0)
    free = run.gen._free(_TOKENS, [100, 101], OpenerScanner(("pythonic",), NAMES), _spec(), [])
    with pytest.raises(StopIteration) as stop:
        while True:
            next(free)
    assert stop.value.value == ("[get_weather", "", None)


# -- with the call bar on, a list of values is declined only where a call was about as likely (review 87) ----------

def test_the_call_probability_where_a_list_of_values_opened() -> None:
    from toolwire.models._value_lists import value_list_call_probability

    scanner = OpenerScanner(("pythonic",), NAMES, values=True)
    assert scanner.unknown_call("['BRCA1']", final=True) == 1
    # at the list's first token: "['" (a value) 0.5, "[" 0.4 (then get_weather 0.75 or "'BR" 0.25), "[get" 0.06
    # (then "_weather"... taken as 0.0 here: followed, but nothing after it opens), "The" 0.04
    after = {4: {5: 0.75, 44: 0.25}, 10: {25: 1.0}}
    probability = value_list_call_probability(_VALUES, scanner, "", {40: 0.5, 4: 0.4, 10: 0.06, 25: 0.04},
                                              lambda token: after.get(token))
    assert probability == pytest.approx(0.4 * 0.75)  # the quote after "[" may open either: it is not counted
    assert value_list_call_probability(_VALUES, scanner, "", {40: 0.5, 4: 0.4}, lambda token: None) == 0.0


@pytest.mark.parametrize(("after_bracket", "declined"), [({5: 0.9, 44: 0.1}, True), ({5: 0.3, 44: 0.7}, False)])
def test_with_the_call_bar_a_list_of_values_is_declined_only_where_a_call_was_likely(
        monkeypatch: pytest.MonkeyPatch, after_bracket: dict[int, float], declined: bool) -> None:
    from toolwire.models import _generation

    monkeypatch.setattr(_generation, "follower", lambda loaded, prefix: lambda token: after_bracket)
    values = [(40, {40: 0.55, 4: 0.45}), (41, {41: 1.0}), (42, {42: 1.0}), (43, {43: 1.0})]  # ['BRCA1']
    call = [(4, {4: 0.9}), (5, {5: 1.0}), (6, {6: 1.0})]  # [get_weather(
    run = _ScriptedGeneration([values, call], bar=0.25)
    free = run.gen._free(_VALUES, [100, 101], OpenerScanner(("pythonic",), NAMES, values=True), _spec(), [])
    while True:
        try:
            next(free)
        except StopIteration as stop:
            head, call_text, fmt = stop.value
            break
    if declined:  # 0.45 * 0.9 = 0.405 >= 0.25: the call the model nearly wrote
        assert (call_text, run.gen.unknown_calls, run.gen.value_lists_kept) == ("[get_weather(", 1, 0)
    else:  # 0.45 * 0.3 = 0.135 < 0.25: the list stays, as text (was: declined however unlikely a call was)
        assert (head, call_text, fmt) == ("['BRCA1']", "", None)
        assert (run.gen.unknown_calls, run.gen.value_lists_kept) == (0, 1)
