"""made_up_value: a tool call's value the model was unsure of and did not take from the conversation."""

from __future__ import annotations

import json

from toolwire.models._call_checks import made_up_value


def _spans(text: str, probability: float) -> list[tuple[int, int, float]]:
    """One token per character, each with ``probability``."""
    return [(i, i + 1, probability) for i in range(len(text))]


def test_an_unsure_value_not_in_the_conversation_is_made_up() -> None:
    text = '[find_roots(a=1.5, b=2)]'
    assert made_up_value(text, _spans(text, 0.5), ["What are the roots of bx + c = 0?"], 0.3) == "a=1.5"
    # the same value written in the conversation (a number, however written), or the model sure of it
    assert made_up_value(text, _spans(text, 0.5), ["Roots for a = 1.50 and b = 2"], 0.3) is None
    assert made_up_value(text, _spans(text, 0.99), ["roots?"], 0.3) is None
    assert made_up_value(text, _spans(text, 0.5), ["roots?"], 0.0) is None  # the check off


def test_strings_match_without_letter_case_or_extra_spaces_and_nested_values_count() -> None:
    text = '[search(query="new  York", filters={"tags": ["Museum", 12]}, exact=True)]'
    context = ["Find museums in New York City", "tags: museum"]
    assert made_up_value(text, _spans(text, 0.5), context, 0.3) == 'filters={"tags": ["Museum", 12]}'
    assert made_up_value(text, _spans(text, 0.5), [*context, "at most 12"], 0.3) is None
    # numbers with thousands separators, booleans and None carry no evidence either way
    text = '[pay(amount=1500000, note=None, urgent=False)]'
    assert made_up_value(text, _spans(text, 0.1), ["Pay 1,500,000 now"], 0.3) is None


def test_only_the_values_own_tokens_count_and_offsets_survive_multibyte_text() -> None:
    text = '[get_weather(city="São Paulo", units="metric")]'
    start = text.index('"metric"')
    spans = [(i, i + 1, 0.2 if start <= i < start + 8 else 1.0) for i in range(len(text))]
    assert made_up_value(text, spans, ["Tempo em São Paulo?"], 0.3) == 'units="metric"'
    # tokens of the call that were not generated (a kept opening) may be missing from the spans
    assert made_up_value(text, spans[start:], ["Tempo em São Paulo?"], 0.3) == 'units="metric"'
    assert made_up_value(text, spans[:start], ["Tempo?"], 0.3) is None  # city: sure


def test_text_that_is_not_a_pythonic_call_list_is_never_judged_as_one() -> None:
    for text in ('{"name": "f", "arguments": {"a": 1}}', "[f(a=1", "[1, 2]", "[f(*x)]", ""):
        assert made_up_value(text, _spans(text, 0.01), ["nothing"], 0.5) is None
    fenced = '```python\n[f(a="zz")]\n```'
    assert made_up_value(fenced, _spans(fenced, 0.01), ["nothing"], 0.5) == 'a="zz"'


# -- review 13 ------------------------------------------------------------------------------------------


def test_numbers_are_read_as_written_and_compared_exactly() -> None:
    from decimal import Decimal

    from toolwire.models._call_checks import context_numbers

    assert context_numbers(["mean of 1,2,3,4 at (3,4) and 40.7,-74.0; pay 1,500,000.5 or 1,500"]) >= {
        Decimal(n) for n in ("1", "2", "3", "4", "40.7", "-74.0", "1500000.5", "1500")}
    # thousands grouped by spaces (a no-break space too) or apostrophes, one separator throughout
    assert context_numbers(["pay 1 000 or 1\u00a0500 000 or 2'000'000"]) >= {Decimal(n) for n in (
        "1000", "1500000", "2000000")}
    text = "[book(budget=1500000)]"
    assert made_up_value(text, _spans(text, 0.1), ["My budget is 1 500 000 euros."], 0.3) is None
    text = "[f(numbers=[1, 2, 3, 4], lat=40.7, lon=-74.0)]"
    assert made_up_value(text, _spans(text, 0.1), ["What is the mean of 1,2,3,4 at 40.7,-74.0?"], 0.3) is None
    # a 64-bit id one off from the conversation's is not the conversation's; a huge literal does not crash
    text = "[get_user(user_id=1234567890123456789)]"
    assert made_up_value(text, _spans(text, 0.1), ["user 1234567890123456788"], 0.3) == "user_id=1234567890123456789"
    huge = "[f(a=" + "9" * 400 + ")]"  # past a float's range
    assert made_up_value(huge, _spans(huge, 0.1), ["nothing"], 0.3) == huge[3:-2]
    huge = "[f(a=" + "9" * 5000 + ")]"  # past what Python reads as a literal: not judged
    assert made_up_value(huge, _spans(huge, 0.1), ["nothing"], 0.3) is None


def test_the_conversation_includes_system_messages_and_earlier_call_arguments() -> None:
    from toolwire.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage, tool_call
    from toolwire.models._call_checks import conversation_texts

    messages = [SystemMessage("Customer id: 77310."), HumanMessage("Open my report."),
                AIMessage("", tool_calls=[tool_call("find", {"path": "report-2024-05-01.txt"}, "c1")]),
                ToolMessage("found", "c1")]
    context = conversation_texts(messages)
    for text in ('[open(path="report-2024-05-01.txt")]', "[account(customer_id=77310)]"):
        assert made_up_value(text, _spans(text, 0.1), context, 0.3) is None
    assert made_up_value('[open(path="x.txt")]', _spans('[open(path="x.txt")]', 0.1), context, 0.3) == 'path="x.txt"'


def test_calls_written_over_several_lines_are_judged_too() -> None:
    for text in ('[f(\n    a="Atlantis",\n    b=1,\n)]', '[f(b=1),\n g(a="Atlantis")]', '[f(b=1), g(a="Atlântida")]'):
        found = made_up_value(text, _spans(text, 0.1), ["b is 1"], 0.3)
        assert found is not None and found.startswith('a="Atl'), (text, found)


# -- review 14 ------------------------------------------------------------------------------------------


def _unsure(text: str, context: list[str]) -> str | None:
    return made_up_value(text, _spans(text, 0.1), context, 0.3)


def test_number_forms_written_in_the_conversation_are_found() -> None:
    cases = [("[f(x=1500)]", "If I have 1,500, what is left?"), ("[f(x=0.5)]", "Use a ratio of .5 please"),
             ("[f(x=-5)]", "temperature \u22125 degrees"), ("[get_ticket(ticket_id=4521)]", "Status of T4521?"),
             ("[f(x=42)]", "what about order_42"), ('[f(x="1500")]', "about 1,500 people"),
             ("[f(x=3.14159265358979323846)]", "pi is 3.14159265358979323846"),
             ("[f(x=12)]", "\uff11\uff12 apples")]  # full-width digits
    for text, context in cases:
        assert _unsure(text, [context]) is None, (text, context)
    assert _unsure("[f(x=3.14159265358979323847)]", ["pi is 3.14159265358979323846"]) is not None


def test_strings_are_found_as_whole_words_in_any_unicode_form() -> None:
    assert _unsure('[f(city="Rome")]', ["Ask Jerome"]) == 'city="Rome"'
    assert _unsure('[f(city="Rome")]', ["Rome, Italy"]) is None
    assert _unsure('[f(city="Zu\u0308rich")]', ["Weather in Z\u00fcrich"]) is None  # NFD against NFC
    # from the start of a word: the abbreviations models write for the user's words are the user's
    for text, context in (('[f(unit="in")]', "a radius of 4 inches"), ('[f(c="EUR")]', "200 euros")):
        assert _unsure(text, [context]) is None, text
    assert _unsure('[f(unit="ches")]', ["a radius of 4 inches"]) == 'unit="ches"'
    # words joined by "_", as identifiers and enum values spell them, are the user's words
    for text, context in (('[f(v=["interest_rates", "house_prices"])]', "interest rates and house prices"),
                          ('[f(p="pet_friendly")]', "a pet friendly hotel"), ('[f(p="pet friendly")]', "pet_friendly")):
        assert _unsure(text, [context]) is None, text
    assert _unsure('[f(p="pet_friendly")]', ["a pet hotel, friendly staff"]) == 'p="pet_friendly"'


def test_words_of_the_conversation_put_together_anew_are_found() -> None:
    # review 69: a search query composed from the user's words, one left out, was declined as made up
    question = ["Quem ganhou a Copa do Mundo de 2022? Pesquise na web."]
    for value in ("Copa do Mundo 2022", "2022 Copa do Mundo", "Copa  do Mundo"):
        assert _unsure(f'[f(query="{value}")]', question) is None, value
    # a word the conversation lacks still makes the value made up, as does one word or an identifier
    for value in ("Copa America 2022", "Copa do Mundo 2018", "Copas", "Copa_Mundo_2018"):
        assert _unsure(f'[f(query="{value}")]', question) == f'query="{value}"', value
    assert _unsure('[f(query="Mundo Copa")]', question) is None  # (order is not judged)


def test_tool_results_count_as_the_model_reads_them() -> None:
    from toolwire.messages import AIMessage, HumanMessage, ToolMessage, tool_call
    from toolwire.models._call_checks import conversation_texts

    path = "C:\\Users\\ana\\notes.txt"
    messages = [HumanMessage("Find my notes."),
                AIMessage("", tool_calls=[tool_call("find", {"where": path}, "c1")]),
                ToolMessage('{"file": "D:\\\\backup\\\\n.txt", "size": 1234}', "c1")]
    context = conversation_texts(messages)
    for value in (path, "D:\\backup\\n.txt"):
        text = f"[open(path={value!r})]"
        assert _unsure(text, context) is None, text


def test_a_lone_carriage_return_is_a_line_break_not_a_crash() -> None:
    for text in ('[f(b=1),\r g(a="Atlantis")]', '[f(b=1),\r\n g(a="Atlantis")]'):
        assert _unsure(text, ["b is 1"]) == 'a="Atlantis"'


def test_a_deeply_nested_json_result_does_not_crash_the_context() -> None:
    from toolwire.messages import ToolMessage
    from toolwire.models._call_checks import conversation_texts

    deep = "[" * 900 + '"x"' + "]" * 900
    assert conversation_texts([ToolMessage(deep, "c1")]) == [deep]  # its values too deep to read: none added


def test_a_value_made_up_in_the_replys_own_prose_and_copied_surely_into_the_call_is_made_up() -> None:
    # BFCL irrelevance_145: declined for period="16th century", the model wrote 'I need ... the period "16th
    # century"' and then the same call, now sure of the value it was copying from its own words
    from toolwire.models._call_checks import stream_spans

    said = 'I need to call get_event_year with the period "16th Century". Here:\n```python\n'
    call = '[get_event_year(event="Protestant Reformation", period="16th century")]'
    at = said.index("16th")
    unsure_there = [(i, i + 1, 0.2 if at <= i < at + 12 else 0.99) for i in range(len(said))]
    context = ["Who initiated the Protestant Reformation?"]
    sure = _spans(call, 0.99)
    assert made_up_value(call, sure, context, 0.3, head=(said, unsure_there)) == 'period="16th century"'
    # sure where it was first written, or found in the conversation, or the prose's probabilities unknown
    assert made_up_value(call, sure, context, 0.3, head=(said, _spans(said, 0.99))) is None
    assert made_up_value(call, sure, [*context, "in the 16th century"], 0.3, head=(said, unsure_there)) is None
    assert made_up_value(call, sure, context, 0.3, head=(said, [])) is None
    assert made_up_value(call, sure, context, 0.3) is None
    # the spans of a stream's tokens up to the call, from the reply's length after each token
    assert stream_spans(4, [6, 9, 12], [7, 8, 9], [{7: 0.5}, {8: 0.25, 1: 0.7}, {9: 1.0}], 9) == [
        (4, 6, 0.5), (6, 9, 0.25)]
    assert stream_spans(0, [3], [1], None, 3) == [] and stream_spans(0, [3], [1], [{}], 3) == [(0, 3, 0.0)]


def test_the_prose_check_finds_a_value_as_the_conversation_check_does() -> None:
    # review 15 #4 and #8: a sure value is not judged by an unsure word that merely contains it, and the
    # value's words are found however they are joined
    def words(text: str, unsure: str) -> list[tuple[int, int, float]]:
        out, pos = [], 0
        for i, word in enumerate(text.split(" ")):
            piece = word if i == 0 else " " + word
            out.append((pos, pos + len(piece), 0.1 if word.strip(".,:\n") == unsure else 0.99))
            pos += len(piece)
        return out

    call = '[add_reminder(days=30, unit="in")]'
    sure = _spans(call, 0.99)
    said = "The 2030 summit aside, thinking of it: thirty days.\n"
    for unsure in ("2030", "thinking"):
        assert made_up_value(call, sure, ["Remind me later"], 0.3, head=(said, words(said, unsure))) is None
    said = "I set days to 30 then.\n"
    assert made_up_value(call, sure, ["Remind me later"], 0.3, head=(said, words(said, "30"))) == "days=30"
    said = "The hotel should be pet friendly.\n"
    for value in ("pet friendly", "pet_friendly", "Pet  Friendly"):
        call = f'[book(feature="{value}")]'
        found = made_up_value(call, _spans(call, 0.99), ["Book a hotel"], 0.3, head=(said, words(said, "friendly")))
        assert found == f'feature="{value}"', value


# -- JSON calls -------------------------------------------------------------------------------------------


def test_json_calls_are_judged_in_every_form_the_grammar_allows() -> None:
    context = ["What is the weather in Paris?"]
    forms = [
        '{"name": "get_weather", "arguments": {"city": "Paris", "units": "kelvin"}}',
        '[{"name": "get_weather", "arguments": {"city": "Paris", "units": "kelvin"}}]',
        '```json\n[ {"name":"get_weather","arguments":{"city":"Paris","units":"kelvin"}} ]\n```',
        '{"name": "get_weather", "arguments": {"city": "Paris"}}\n'
        '{"name": "get_weather", "arguments": {"city": "Paris", "units": "kelvin"}}',
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>\n'
        '<tool_call>\n{"name": "get_weather", "arguments": {"units": "kelvin", "city": "Paris"}}\n</tool_call>',
    ]
    for text in forms:
        fmt = "hermes" if text.startswith("<") else "json"
        assert made_up_value(text, _spans(text, 0.2), context, 0.3, fmt=fmt) == 'units="kelvin"', text
        assert made_up_value(text, _spans(text, 0.2), [*context, "in kelvin"], 0.3, fmt=fmt) is None
        assert made_up_value(text, _spans(text, 0.9), context, 0.3, fmt=fmt) is None  # sure of it
    # the span is the value's own: an unsure "units" key next to a sure value does not count
    text = forms[0]
    start = text.index('"kelvin"')
    spans = [(i, i + 1, 1.0 if start <= i < start + 8 else 0.1) for i in range(len(text))]
    assert made_up_value(text, spans, context, 0.3, fmt="json") is None
    spans = [(i, i + 1, 0.1 if start <= i < start + 8 else 1.0) for i in range(len(text))]
    assert made_up_value(text, spans, context, 0.3, fmt="json") == 'units="kelvin"'


def test_json_numbers_are_read_as_written_and_nested_values_count() -> None:
    text = '{"name": "pay", "arguments": {"amount": 1500000.10, "to": {"iban": ["DE89"]}}}'
    assert made_up_value(text, _spans(text, 0.1), ["Pay 1,500,000.1 to DE89"], 0.3, fmt="json") is None
    assert made_up_value(text, _spans(text, 0.1), ["Pay 1,500,000.1 to me"], 0.3, fmt="json") == (
        'to={"iban": ["DE89"]}')
    text = '{"name": "pay", "arguments": {"amount": 1e400}}'  # beyond a float: judged as written
    assert made_up_value(text, _spans(text, 0.1), ["pay 1e400"], 0.3, fmt="json") is None
    assert made_up_value(text, _spans(text, 0.1), ["pay it"], 0.3, fmt="json") == "amount=1e400"


def test_text_that_is_not_json_calls_is_never_judged() -> None:
    for text in ('{"name": "f", "arguments": {"a": "zz"', '[f(a="zz")]', '{"a": "zz"}', '["zz"]', "{}", "",
                 '{"name": "f", "arguments": {"a": "zz",}}', '{"name": "f", "arguments": ["zz"]}', "[" * 5000,
                 "{" * 5000):
        assert made_up_value(text, _spans(text, 0.01), ["nothing"], 0.5, fmt="json") is None, text


def test_example_values_of_the_json_prompt_count_by_the_real_tool_name() -> None:
    from toolwire.models._tool_text import example_strings
    from toolwire.tools import ToolSpec

    spec = ToolSpec("get-weather", "Weather of a city.", {"type": "object", "properties": {"city": {"type": "string"}},
                                                          "required": ["city"]})
    examples = example_strings([spec])
    assert examples["get_weather"] == examples["get-weather"]  # the pythonic spelling and the real name
    assert examples and all(examples.values())
    value = sorted(examples["get-weather"])[0]
    text = json.dumps({"name": "get-weather", "arguments": {"city": value}})
    assert made_up_value(text, _spans(text, 0.99), ["weather?"], 0.3, examples, fmt="json") == f'city="{value}"'
    assert made_up_value(text, _spans(text, 0.99), [f"weather in {value}?"], 0.3, examples, fmt="json") is None


def test_text_the_model_writes_is_not_judged_as_made_up() -> None:
    # review 50: an email's body or a SQL query is unsure word by word however right the call is; the check is for
    # picked values (numbers, names, single words), and still judges those, and copies of the prompt's examples
    from toolwire.models._call_checks import written_text

    assert written_text("The meeting has been moved to 3pm.") and written_text("SELECT COUNT(*) FROM users")
    assert not written_text("New York City, NY") and not written_text("https://example.com/a/very/long/path")
    assert not written_text(42) and not written_text("two words here")  # (14 characters)
    context = ["Email bob@x.com to tell him the meeting moved to 3pm."]
    mail = ('[send_email(to="bob@x.com", subject="Meeting moved to 3pm", '
            'body="The meeting has been moved to 3pm. Please let me know if you have questions.")]')
    assert made_up_value(mail, _spans(mail, 0.5), context, 0.3) is None
    titled = '[send_email(to="bob@x.com", subject="Reschedule", body="The meeting has been moved to 3pm.")]'
    assert made_up_value(titled, _spans(titled, 0.5), context, 0.3) == 'subject="Reschedule"'
    example = '[send_email(to="bob@x.com", subject="value", body="value value value and more value")]'
    assert made_up_value(example, _spans(example, 0.99), context, 0.3,
                         {"send_email": ["value value value and more value"]}) is not None


def test_an_arithmetic_expression_the_model_writes_is_not_judged_as_made_up() -> None:
    # review 67: "Calculate 15% of 80." had its calculator call declined (the model unsure of "15 * 80 / 100", whose
    # 100 the request does not hold), and the model then answered from memory
    from toolwire.models._call_checks import is_formula

    assert is_formula("15 * 80 / 100") and is_formula("(3.5 + 4.25) * 2") and is_formula("10 - 3")
    for value in ("2023-09-15", "-5", "1.5", "10-3", "42.195 km * 1000", "50%", "Paris"):
        assert not is_formula(value), value
    call = '[calculator(expression="15 * 80 / 100")]'
    assert made_up_value(call, _spans(call, 0.5), ["Calculate 15% of 80."], 0.3) is None
    date = '[book(day="2023-04-01")]'  # a date is still a picked value
    assert made_up_value(date, _spans(date, 0.5), ["Book it tomorrow."], 0.3) == 'day="2023-04-01"'
