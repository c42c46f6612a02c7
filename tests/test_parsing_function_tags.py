"""Tool calls as ``<function=NAME>`` tags: Qwen3-Coder's XML parameters (typed by the tool's schema) and
Llama 3.1's JSON body, alone, inside ``<tool_call>`` blocks, through every entry point that reads text."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolwire import tool
from toolwire.models._text_calls import TextCallStream, read_text_calls
from toolwire.parsing import DIALECTS, parse_function_tags, parse_tool_calls
from toolwire.parsing.hermes import parse_hermes


@tool
def plan_trip(city: str, days: int, budget: float | None = None, flexible: bool = False,
              stops: list[str] | None = None, prefs: dict[str, int] | None = None, zip_code: str = "") -> str:
    """Plan a trip.

    Args:
        city: where to go.
        days: how many days.
        budget: the most to spend.
        flexible: whether the dates can move.
        stops: places on the way.
        prefs: weights of preferences.
        zip_code: the postal code.
    """
    return city


@tool
def get_time() -> str:
    """The time now."""
    return "12:00"


SCHEMAS = {t.name: t.parameters for t in (plan_trip, get_time)}


def qwen3_coder(name: str, args: dict[str, Any]) -> str:
    """A call as Qwen3-Coder's chat template writes it: strings as they are, other values as JSON."""
    params = "".join(f"<parameter={k}>\n{v if isinstance(v, str) else json.dumps(v)}\n</parameter>\n"
                     for k, v in args.items())
    return f"<tool_call>\n<function={name}>\n{params}</function>\n</tool_call>"


def calls(reply: Any) -> list[tuple[str, dict[str, Any]]]:
    return [(c["name"], c["args"]) for c in reply.tool_calls]


def test_raw_values_are_typed_by_the_schema() -> None:
    args = {"city": "Lisbon", "days": 3, "budget": 1200.5, "flexible": True, "stops": ["Porto", "Sintra"],
            "prefs": {"food": 2}, "zip_code": "02134"}
    reply = parse_tool_calls("I'll plan it.\n" + qwen3_coder("plan_trip", args), SCHEMAS)
    assert calls(reply) == [("plan_trip", args)] and reply.content == "I'll plan it."
    assert reply.invalid_tool_calls == []
    # a string parameter keeps digits as text; Python spellings of the other values are read too
    text = ("<function=plan_trip>\n<parameter=city>\n42\n</parameter>\n<parameter=days>\n 7 \n</parameter>\n"
            "<parameter=flexible>\nTrue\n</parameter>\n<parameter=budget>\nNone\n</parameter>\n"
            "<parameter=stops>\n['Porto', 'Faro']\n</parameter>\n</function>")
    assert calls(parse_function_tags(text, SCHEMAS)) == [
        ("plan_trip", {"city": "42", "days": 7, "flexible": True, "budget": None, "stops": ["Porto", "Faro"]})]


def test_a_value_of_the_wrong_type_stays_text_for_validation_to_report() -> None:
    text = "<function=plan_trip><parameter=city>Rome</parameter><parameter=days>three</parameter></function>"
    reply = parse_function_tags(text, SCHEMAS)
    assert calls(reply) == [("plan_trip", {"city": "Rome", "days": "three"})]
    message = plan_trip.invoke(reply.tool_calls[0])
    assert message.status == "error" and "days" in message.content


def test_with_names_only_every_value_is_text_and_runs_after_validation() -> None:
    text = qwen3_coder("plan_trip", {"city": "Oslo", "days": 2, "flexible": False})
    reply = parse_tool_calls(text, ["plan_trip"])
    assert calls(reply) == [("plan_trip", {"city": "Oslo", "days": "2", "flexible": "false"})]
    assert plan_trip.invoke(reply.tool_calls[0]).status == "success"  # pydantic reads "2" and "false"


def test_text_keeps_its_newlines_and_markup_but_one_newline_each_side() -> None:
    value = "\nline one\n  <b>two</b> {\"x\": 1}\n"
    reply = parse_function_tags(qwen3_coder("plan_trip", {"city": value, "days": 1}), SCHEMAS)
    assert calls(reply) == [("plan_trip", {"city": value, "days": 1})]


def test_several_calls_in_one_block_or_in_several() -> None:
    one_block = ("<tool_call>\n<function=get_time>\n</function>\n<function=plan_trip>\n<parameter=city>\nNice\n"
                 "</parameter>\n<parameter=days>\n2\n</parameter>\n</function>\n</tool_call>")
    blocks = qwen3_coder("get_time", {}) + "\n" + qwen3_coder("plan_trip", {"city": "Nice", "days": 2})
    expected = [("get_time", {}), ("plan_trip", {"city": "Nice", "days": 2})]
    for text in (one_block, blocks):
        for reply in (parse_tool_calls(text, SCHEMAS), parse_hermes(text, SCHEMAS),
                      parse_tool_calls(text, SCHEMAS, "function_tag")):
            assert calls(reply) == expected and reply.content == "" and reply.invalid_tool_calls == []
            assert len({c["id"] for c in reply.tool_calls}) == 2


def test_llama_3_1_json_body() -> None:
    text = 'Checking.<function=plan_trip>{"city": "Kyoto", "days": 4}</function> Done.'
    reply = parse_tool_calls(text, SCHEMAS)
    assert calls(reply) == [("plan_trip", {"city": "Kyoto", "days": 4})]
    assert reply.content == "Checking. Done."
    # a closing tag inside a string value is read as text, by JSON boundaries
    tricky = '<function=plan_trip>{"city": "<function=x></function>", "days": 1}</function>'
    assert calls(parse_function_tags(tricky, SCHEMAS)) == [("plan_trip", {"city": "<function=x></function>",
                                                                          "days": 1})]


def test_unknown_tool_cut_off_and_repeated_values_are_invalid_calls_with_their_text() -> None:
    unknown = parse_function_tags("<function=book_hotel>\n<parameter=city>\nOslo\n</parameter>\n</function>",
                                  SCHEMAS)
    assert unknown.tool_calls == [] and unknown.content == ""
    [bad] = unknown.invalid_tool_calls
    assert bad["name"] == "book_hotel" and "plan_trip" in bad["error"] and "Oslo" in bad["args"]
    cut = parse_function_tags("<tool_call>\n<function=plan_trip>\n<parameter=city>\nOs", SCHEMAS)
    [bad] = cut.invalid_tool_calls
    assert cut.tool_calls == [] and bad["name"] == "plan_trip" and "cut off" in bad["error"]
    assert bad["args"].endswith("Os")
    twice = parse_function_tags("<function=plan_trip><parameter=city>A</parameter><parameter=city>B</parameter>"
                                "</function>", SCHEMAS)
    [bad] = twice.invalid_tool_calls
    assert twice.tool_calls == [] and "given twice" in bad["error"]
    broken_json = parse_function_tags('<function=plan_trip>{"city": "Oslo", </function>', SCHEMAS)
    assert broken_json.tool_calls == [] and broken_json.invalid_tool_calls[0]["name"] == "plan_trip"
    # inside a <tool_call> block any body is a call; outside one, a body of words stays text
    words = "<function=plan_trip>\nsome words\n</function>"
    block = parse_function_tags(f"<tool_call>{words}</tool_call>", SCHEMAS)
    assert block.tool_calls == [] and "neither" in block.invalid_tool_calls[0]["error"] and block.content == ""
    prose = parse_function_tags(f"The syntax is {words} in Llama 3.1.", SCHEMAS)
    assert prose.tool_calls == prose.invalid_tool_calls == [] and prose.content.startswith("The syntax")


def test_missing_closing_tags_are_tolerated_where_the_call_is_complete() -> None:
    no_param_close = "<function=plan_trip>\n<parameter=city>\nRome\n<parameter=days>\n3\n</function>"
    params = "<function=plan_trip>\n<parameter=city>\nRome\n</parameter>\n<parameter=days>\n3\n</parameter>\n"
    for text in (no_param_close, f"<tool_call>\n{params}</tool_call>\nThen I wait.",
                 f"{params}<function=get_time>\n</function>"):
        reply = parse_function_tags(text, SCHEMAS)
        assert calls(reply)[0] == ("plan_trip", {"city": "Rome", "days": 3}) and reply.invalid_tool_calls == []
        assert reply.content in ("", "Then I wait.")


def test_a_call_the_text_ends_inside_is_cut_off_never_a_call_with_arguments_missing() -> None:
    whole = qwen3_coder("plan_trip", {"city": "Rome", "days": 3})
    head = "<tool_call>\n<function=plan_trip>\n"
    for cut in range(len(head), len(whole) - len("</function>\n</tool_call>")):
        for parse in (parse_tool_calls, parse_hermes, parse_function_tags):
            reply = parse(whole[:cut], SCHEMAS)
            assert reply.tool_calls == [] and len(reply.invalid_tool_calls) == 1, (cut, whole[:cut])
            bad = reply.invalid_tool_calls[0]
            assert bad["name"] == "plan_trip" and "cut off" in bad["error"] and reply.content == ""
    # cut inside the closing tags, from the "</" of </function> on: the call is whole
    for cut in range(len(whole) - len("</function>\n</tool_call>") + 2, len(whole) + 1):
        assert calls(parse_tool_calls(whole[:cut], SCHEMAS)) == [("plan_trip", {"city": "Rome", "days": 3})], cut


def test_an_unclosed_call_ends_at_its_block_and_the_text_after_it_stays() -> None:
    one = "<tool_call>\n<function=get_time>\n<parameter=x>\n1\n</parameter>\n</tool_call>"
    two = qwen3_coder("plan_trip", {"city": "Lima", "days": 2})
    for parse in (parse_tool_calls, parse_hermes, parse_function_tags):
        reply = parse(f"A\n{one}\nB\n{two}\nC", SCHEMAS)
        assert calls(reply) == [("get_time", {"x": "1"}), ("plan_trip", {"city": "Lima", "days": 2})]
        assert reply.content.split() == ["A", "B", "C"]


def test_markup_inside_a_value_stays_in_it_and_stray_text_makes_the_call_invalid() -> None:
    for value in ("<a>x</parameter>tail</a>", "Use <parameter=KEY> tags", "end with </function> tag"):
        reply = parse_function_tags(qwen3_coder("plan_trip", {"city": value, "days": 1}), SCHEMAS)
        assert calls(reply) == [("plan_trip", {"city": value, "days": 1})] and reply.content == "", value
    stray = ("<function=plan_trip>\n<parameter=city>\nRome\n</parameter>\na note\n<parameter=days>\n2\n"
             "</parameter>\n</function>")
    reply = parse_function_tags(stray, SCHEMAS)
    assert reply.tool_calls == [] and "Text stands between" in reply.invalid_tool_calls[0]["error"]
    assert "a note" in reply.invalid_tool_calls[0]["args"] and reply.content == ""


def test_names_crlf_and_typing_edges() -> None:
    odd = {name: {"type": "object", "properties": {"n": {"type": "integer"}}}
           for name in ("3d_render", "server:tool", "ns/tool")}
    for name in odd:
        reply = parse_function_tags(f"<function={name}>\n<parameter=n>\n3.0\n</parameter>\n</function>", odd)
        assert calls(reply) == [(name, {"n": 3})]
    crlf = "<function=plan_trip>\r\n<parameter=city>\r\nOslo\r\n</parameter>\r\n</function>"
    assert calls(parse_function_tags(crlf, SCHEMAS)) == [("plan_trip", {"city": "Oslo"})]
    schema = {"f": {"type": "object", "properties": {
        "note": {"anyOf": [{"type": "string"}, {"type": "null"}]}, "level": {"enum": [1, "a"]},
        "big": {"type": "integer"}}}}
    text = ("<function=f><parameter=note>null</parameter><parameter=level>1</parameter>"
            f"<parameter=big>{'1' * 5000}</parameter></function>")
    [call] = parse_function_tags(text, schema).tool_calls
    assert call["args"]["note"] is None and call["args"]["level"] == 1 and call["args"]["big"] == "1" * 5000


def test_cut_off_messages_name_the_tool() -> None:
    for text in ("<tool_call>\n<function=plan_trip>\n", "<tool_call>\n<function=plan_trip>\n<parameter=da",
                 "<function=plan_trip>\n<parame"):
        for parse in (parse_tool_calls, parse_hermes if "<tool_call>" in text else parse_function_tags):
            [bad] = parse(text, SCHEMAS).invalid_tool_calls
            assert bad["name"] == "plan_trip" and bad["error"] == (
                "The tool call was cut off before its closing tag; send the whole call again."), (text, parse)


def test_the_format_named_in_prose_stays_text() -> None:
    for text in ("Qwen3-Coder writes <function=NAME> tags, then its parameters.",
                 "<function=> is empty", "a <function=plan_trip> tag and more words"):
        reply = parse_tool_calls(text, SCHEMAS)
        assert reply.tool_calls == [] and reply.invalid_tool_calls == [] and reply.content == text.strip()


def test_a_server_reply_left_as_text_is_read_and_typed_in_invoke_and_stream() -> None:
    text = "Sure.\n" + qwen3_coder("plan_trip", {"city": "Quito", "days": 5})
    content, found, invalid = read_text_calls(text, SCHEMAS)  # type: ignore[misc]
    assert content == "Sure." and invalid == []
    assert [(c["name"], c["args"]) for c in found] == [("plan_trip", {"city": "Quito", "days": 5})]
    bare = read_text_calls('<function=plan_trip>{"city": "Quito", "days": 5}</function>', SCHEMAS)
    assert bare is not None and [(c["name"], c["args"]) for c in bare[1]] == [("plan_trip", {"city": "Quito",
                                                                                          "days": 5})]
    from toolwire import AIMessageChunk, merge_chunks

    reader = TextCallStream(SCHEMAS)
    pieces = [text[i:i + 4] for i in range(0, len(text), 4)]
    out = [c for p in pieces for c in reader.feed(AIMessageChunk(p))] + list(reader.finish())
    merged = merge_chunks(out, as_chunk=False)
    assert calls(merged) == [("plan_trip", {"city": "Quito", "days": 5})] and merged.content == "Sure."


def test_the_dialect_is_listed() -> None:
    assert "function_tag" in DIALECTS


texts = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30).filter(lambda s: "<" not in s)


@settings(derandomize=True, max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(city=texts, days=st.integers(-10**9, 10**9), budget=st.none() | st.floats(allow_nan=False, allow_infinity=False),
       flexible=st.booleans(), stops=st.none() | st.lists(texts, max_size=3),
       prefs=st.none() | st.dictionaries(texts, st.integers(), max_size=3), cut=st.integers(min_value=0))
def test_hypothesis_qwen3_coder_calls_round_trip_and_cut_ones_fail_cleanly(city, days, budget, flexible, stops,
                                                                          prefs, cut) -> None:
    args = {"city": city, "days": days, "budget": budget, "flexible": flexible, "stops": stops, "prefs": prefs}
    text = qwen3_coder("plan_trip", args)
    assert calls(parse_tool_calls(text, SCHEMAS)) == [("plan_trip", args)]
    part = text[: cut % (len(text) + 1)]
    reply = parse_tool_calls(part, SCHEMAS)
    assert len(reply.tool_calls) + len(reply.invalid_tool_calls) <= 1
    json.dumps([reply.tool_calls, reply.invalid_tool_calls], allow_nan=False)


@pytest.mark.parametrize("text", ["<function=plan_trip>", "<function=plan_trip>\n<parameter=", "<function=",
                                  "<tool_call>\n<function=get_time>\n</function", "<parameter=city>x</parameter>"])
def test_fragments_never_raise(text: str) -> None:
    for dialect in (None, "function_tag", "hermes"):
        parse_tool_calls(text, SCHEMAS, dialect)
