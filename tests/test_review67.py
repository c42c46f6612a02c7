"""Review 67: date formats under the grammar, typing_extensions TypedDicts for structured output, a dict of tools.
Each test failed on the code before its fix; none loads a model (llama.cpp parses the grammars with a vocabulary
only, as ``tests/test_grammar.py`` does).

A. The call grammar wrote a string of JSON Schema ``format`` ``date``, ``date-time``, ``time`` or ``uuid`` in that
   form, in every call format. Review 126 #2 changed the rule for the dates (held to their ISO form, a model's
   ``"15 May 2026"`` became ``1520-05-01`` with no error) and review 128 #7 for ``uuid`` (an order id ``"ORD-1001"``
   became a made-up UUID): such a string is now any text (``"tomorrow"`` included) and the tool's validation refuses
   what is not in the form; the forms still pass. ``enum`` and ``const`` win over a format.
B. ``with_structured_output`` takes a ``typing_extensions.TypedDict`` (what pydantic asks for before Python 3.12),
   not only a ``typing.TypedDict``.
C. ``Agent(model, {"plain": plain})`` (and ``bind_tools``, ``ToolExecutor``) say a dict was passed and to pass a
   list of its values, not "a single tool".
"""

from __future__ import annotations

import datetime as dt
import typing
import uuid

import pytest
import typing_extensions
from hypothesis import given, settings
from hypothesis import strategies as st

from test_grammar import Gbnf
from toolwire import Agent, SchemaError, ToolExecutor, UserError, tool
from toolwire.errors import ToolValidationError
from toolwire.messages import AIMessage, tool_call
from toolwire.models.base import to_tool_spec
from toolwire.models.dialects import format_calls, parse_reply
from toolwire.models.grammar import FORMATS, Rules, call_grammar, value_rule
from toolwire.models.structured import output_tool
from toolwire.testing import ScriptedChatModel
from toolwire.tools import ToolSpec

# -- A: string formats -------------------------------------------------------------------------------------------


@tool
def book_meeting(title: str, day: dt.date, at: dt.datetime, start: dt.time, ref: uuid.UUID,
                 until: dt.date | None = None) -> str:
    """Book a meeting.

    Args:
        title: meeting title
        day: the day
        at: when the invitation goes out
        start: the starting time
        ref: the booking reference
        until: the last day of a series
    """
    return f"{title} {day} {at} {start} {ref} {until}"


BOOK = to_tool_spec(book_meeting)
GOOD = {"title": "Standup", "day": "2025-05-01", "at": "2025-05-01T09:30", "start": "09:30",
        "ref": "123e4567-e89b-12d3-a456-426614174000"}
_GRAMMARS = {fmt: Gbnf(call_grammar([BOOK], fmt)) for fmt in FORMATS}


def _spec(name: str, props: dict) -> ToolSpec:
    """A tool of these properties, every one required."""
    return ToolSpec(name, "", {"type": "object", "properties": props, "required": list(props)})


def _string_rule(schema: dict, style: str = "json") -> Gbnf:
    """The grammar of one value of ``schema`` (JSON, or with ``style="py"`` Python literals)."""
    rules = Rules(style)
    return Gbnf(rules.text(value_rule(schema, rules)))


_FORMATS = {fmt: _string_rule({"type": "string", "format": fmt}) for fmt in ("date", "date-time", "time", "uuid")}


def _text(fmt: str, **changes: object) -> str:
    args = {**GOOD, **changes}
    return format_calls([tool_call("book_meeting", {k: v for k, v in args.items() if v is not ...}, "c1")], fmt,
                        [BOOK])


def test_the_schema_has_the_formats() -> None:
    props = BOOK.parameters["properties"]
    assert [props[k].get("format") for k in ("day", "at", "start", "ref")] == ["date", "date-time", "time", "uuid"]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("changes", [
    {},
    {"day": "0001-01-01", "at": "9999-12-31T23:59:59.999999Z", "start": "00:00:00.5"},
    {"at": "2025-05-01T09:30:00+05:30", "start": "23:59:59"},
    {"at": "2025-05-01T09:30-08:00", "ref": "123E4567-E89B-12D3-A456-426614174000"},
    {"until": "2025-05-31"},
    {"until": None},
])
def test_a_date_time_or_uuid_in_its_form_is_written_parsed_back_and_valid(fmt: str, changes: dict) -> None:
    text = _text(fmt, **changes)
    assert _GRAMMARS[fmt].accepts(text), text
    (call,) = parse_reply(text, [BOOK], fmt).tool_calls
    assert call["args"] == {**GOOD, **changes}
    book_meeting.call_args(call["args"])  # pydantic takes it


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("changes", [
    {"ref": "123e4567e89b12d3a456426614174000"}, {"ref": "123e4567-e89b-12d3-a456-42661417400g"}, {"ref": "x"},
    {"ref": "ORD-1001"}, {"ref": "1001"},
])
def test_other_uuid_text_passes_the_grammar_as_written_and_validation_judges_it(fmt: str, changes: dict) -> None:
    """Review 128 #7 (the grammar refused these before, so a model meaning ``"ORD-1001"`` wrote some UUID): the
    text reaches the tool unchanged; pydantic takes its own hyphenless form and refuses the rest with its message."""
    text = _text(fmt, **changes)
    assert _GRAMMARS[fmt].accepts(text), changes
    (call,) = parse_reply(text, [BOOK], fmt).tool_calls
    assert call["args"] == {**GOOD, **changes}
    if changes["ref"] == "123e4567e89b12d3a456426614174000":
        assert book_meeting.call_args(call["args"])["ref"] == uuid.UUID(GOOD["ref"])
    else:
        with pytest.raises(ToolValidationError, match="'ref':"):
            book_meeting.call_args(call["args"])


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("changes", [
    {"day": "tomorrow"}, {"day": ""}, {"day": "2025-5-1"}, {"day": "25-05-01"}, {"day": "2025-13-01"},
    {"day": "2025-00-10"}, {"day": "2025-05-32"}, {"day": "2025-05-00"}, {"day": "0000-05-01"},
    {"day": "2025-05-01T09:30"}, {"day": "2025/05/01"}, {"day": "２０２５-05-01"},
    {"at": "2025-05-01"}, {"at": "2025-05-01 09:30"}, {"at": "2025-05-01t09:30"}, {"at": "2025-05-01T24:00"},
    {"at": "2025-05-01T09:60"}, {"at": "2025-05-01T09:30:60"}, {"at": "2025-05-01T09:30+24:00"},
    {"at": "2025-05-01T09:30:00.1234567"}, {"at": "2025-05-01T09:30+0530"}, {"at": "next Monday 9am"},
    {"start": "9:30"}, {"start": "09:30:00Z"}, {"start": "noon"}, {"start": "09h30"},
    {"until": "someday"}, {"day": "15 May 2026"},
])
def test_other_date_text_passes_the_grammar_as_written_and_validation_judges_it(fmt: str, changes: dict) -> None:
    """Review 126 #2 (this test refused them before): the text reaches the tool unchanged, and pydantic takes it
    (``2025-05-01 09:30``, a time with ``Z``) or refuses it with its message."""
    text = _text(fmt, **changes)
    assert _GRAMMARS[fmt].accepts(text), changes
    (call,) = parse_reply(text, [BOOK], fmt).tool_calls
    assert call["args"] == {**GOOD, **changes}
    key, value = next(iter(changes.items()))
    try:
        book_meeting.call_args(call["args"])
    except ToolValidationError as error:
        assert f"'{key}':" in str(error), error
    else:
        assert value not in ("tomorrow", "", "noon", "someday", "15 May 2026"), value


def test_the_repro_tool_of_the_review_takes_a_date_only() -> None:
    """/tmp/review67: ``get_weather(city, date: Optional[date])``, the embedded model wrote ``date='tomorrow'``."""
    @tool
    def get_weather(city: str, date: dt.date | None = None) -> str:
        """Get the weather.

        Args:
            city: city name
            date: day of the forecast
        """
        return city

    spec = to_tool_spec(get_weather)
    pythonic, json_ = Gbnf(call_grammar([spec], "pythonic")), Gbnf(call_grammar([spec], "json"))
    assert pythonic.accepts('[get_weather(city="Oslo", date="2025-05-02")]')
    assert pythonic.accepts('[get_weather(city="Oslo", date=None)]') and pythonic.accepts('[get_weather(city="Oslo")]')
    assert json_.accepts('{"name": "get_weather", "arguments": {"city": "Oslo", "date": "2025-05-02"}}')
    # review 126 #2: "tomorrow" is written as meant, and the tool's validation refuses it with its message
    assert pythonic.accepts('[get_weather(city="Oslo", date="tomorrow")]')
    assert json_.accepts('{"name": "get_weather", "arguments": {"city": "Oslo", "date": "tomorrow"}}')
    result = get_weather.invoke(tool_call("get_weather", {"city": "Oslo", "date": "tomorrow"}, "c1"))
    assert result.status == "error" and "valid date" in result.content


def test_enum_and_const_win_and_a_pattern_or_format_is_any_string() -> None:
    enum = _string_rule({"type": "string", "format": "date", "enum": ["today", "2025-05-01"]})
    assert enum.accepts('"today"') and enum.accepts('"2025-05-01"') and not enum.accepts('"2025-05-02"')
    const = _string_rule({"type": "string", "format": "date", "const": "today"})
    assert const.accepts('"today"') and not const.accepts('"2025-05-01"')
    pattern = _string_rule({"type": "string", "format": "date", "pattern": "^[0-9]{8}$"})  # review 128 #7: not held
    assert pattern.accepts('"20250501"') and pattern.accepts('"2025-05-01"') and pattern.accepts('"tomorrow"')
    assert not pattern.accepts("20250501")  # still a string
    assert _string_rule({"type": "string", "format": "email"}).accepts('"anything"')  # other formats: as before
    assert _string_rule({"format": "date"}).accepts("12")  # no type: any value, as before
    either = _string_rule({"type": ["string", "null"], "format": "uuid"}, "py")
    ref = '"123e4567-e89b-12d3-a456-426614174000"'
    assert either.accepts(ref) and either.accepts("None") and either.accepts('"soon"') and not either.accepts("1")
    enum = _string_rule({"type": "string", "format": "uuid", "enum": ["none"]})  # enum over a format
    assert enum.accepts('"none"') and not enum.accepts(ref)
    dated = _string_rule({"type": ["string", "null"], "format": "date"}, "py")  # review 126 #2: any text
    assert dated.accepts('"2025-05-01"') and dated.accepts("None") and dated.accepts('"soon"')


def test_function_tag_writes_a_format_raw_and_only_for_a_string_schema() -> None:
    assert "<parameter=day>\n2025-05-01\n</parameter>" in _text("function_tag")
    anything = _spec("f", {"when": {"type": ["string", "integer"], "format": "date"}})
    grammar = Gbnf(call_grammar([anything], "function_tag"))  # raw text, as before: the parser types it back
    assert grammar.accepts("<tool_call>\n<function=f>\n<parameter=when>\nsoon\n</parameter>\n</function>\n"
                           "</tool_call>")


def test_the_grammar_text_is_deterministic_and_has_no_format_rules() -> None:
    other = _spec("remind", {"day": {"type": "string", "format": "uuid"},
                                 "later": {"anyOf": [{"type": "string", "format": "uuid"}, {"type": "null"}]}})
    for fmt in FORMATS:
        text = call_grammar([BOOK, other], fmt)
        assert text == call_grammar([BOOK, other], fmt)
        names = [line.split(" ::= ")[0] for line in text.splitlines()]
        assert len(names) == len(set(names))
        assert not any(n.startswith("fmt-") for n in names), fmt  # reviews 126 #2 and 128 #7: any string


_PYDANTIC = {"date": dt.date, "date-time": dt.datetime, "time": dt.time}


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 10000), st.integers(0, 13), st.integers(0, 32), st.sampled_from(["-", "/", ""]))
def test_every_date_text_passes_the_grammar_and_pydantic_alone_judges_it(
        year: int, month: int, day: int, sep: str) -> None:
    """Review 126 #2: the grammar once passed only ``YYYY-MM-DD`` with its ranges; now every text, valid or not, is
    written as meant (pydantic refuses ``2025-13-01`` and takes ``20250501`` as a Unix timestamp, not the grammar)."""
    text = f"{year:04d}{sep}{month:02d}{sep}{day:02d}"
    assert _FORMATS["date"].accepts(f'"{text}"'), text


@settings(max_examples=200, deadline=None)
@given(st.datetimes(timezones=st.none() | st.builds(dt.timezone, st.integers(-23 * 60 + 1, 23 * 60 - 1).map(
    lambda m: dt.timedelta(minutes=m)))), st.sampled_from(["auto", "minutes", "seconds", "milliseconds"]))
def test_python_s_own_iso_forms_pass_and_read_back(moment: dt.datetime, spec: str) -> None:
    from pydantic import TypeAdapter

    for fmt, value in (("date", moment.date()), ("date-time", moment), ("time", moment.time())):
        text = value.isoformat() if fmt == "date" else value.isoformat(timespec=spec)
        assert _FORMATS[fmt].accepts(f'"{text}"'), text
        assert TypeAdapter(_PYDANTIC[fmt]).validate_python(text) == value.replace(
            **({} if fmt == "date" or spec == "auto" else _cut(value, spec)))


def _cut(value: dt.datetime | dt.time, spec: str) -> dict:
    if spec == "minutes":
        return {"second": 0, "microsecond": 0}
    if spec == "seconds":
        return {"microsecond": 0}
    return {"microsecond": value.microsecond // 1000 * 1000}


@settings(max_examples=50, deadline=None)
@given(st.uuids())
def test_uuids_pass(value: uuid.UUID) -> None:
    assert _FORMATS["uuid"].accepts(f'"{value}"') and _FORMATS["uuid"].accepts(f'"{str(value).upper()}"')




@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("parallel", [True, False])
def test_llama_cpp_parses_the_format_grammars(vocab, fmt: str, parallel: bool) -> None:
    llama_cpp, llm = vocab
    text = call_grammar([BOOK, _spec("remind", {"day": {"type": "string", "format": "date"}})], fmt,
                        parallel=parallel)
    assert "fmt-" not in text  # reviews 126 #2 and 128 #7: a date or a uuid is any string
    grammar = llama_cpp.LlamaGrammar.from_string(text, verbose=False)
    sampler = llama_cpp.llama_sampler_init_grammar(llm._model.vocab, grammar._grammar.encode(), b"root")
    assert sampler, text
    llama_cpp.llama_sampler_free(sampler)


@pytest.mark.parametrize("fmt", ["pythonic", "json"])
def test_llama_cpp_s_own_grammar_engine_takes_any_date_or_uuid_text(vocab, fmt: str) -> None:
    """The tokens of a call, fed to llama.cpp's grammar sampler one by one (no weights: vocabulary only)."""
    from toolwire.models._decoding import GrammarSampler

    llama_cpp, llm = vocab
    sampler = GrammarSampler(llama_cpp, llm._model.vocab, call_grammar([BOOK], fmt))
    try:
        for changes, taken in (({}, True), ({"day": "tomorrow"}, True), ({"at": "2025-05-01T9:30"}, True),
                               ({"day": "15 May 2026"}, True), ({"ref": "order 7"}, True), ({"day": 20250501}, False),
                               ({"at": "2025-05-01T09:30:00.123+02:00", "until": "2025-12-31"}, True)):
            tokens = llm.tokenize(_text(fmt, **changes).encode(), add_bos=False, special=False)
            assert sampler.accepts(tokens) is taken, changes
    finally:
        sampler.close()


# -- B: typing_extensions.TypedDict --------------------------------------------------------------------------------


class Movie(typing_extensions.TypedDict):
    """A movie."""

    title: str
    year: int


class Song(typing.TypedDict):
    title: str


def test_a_typing_extensions_typeddict_is_taken_for_structured_output() -> None:
    spec, read = output_tool(Movie)
    assert spec.name == "Movie" and spec.description == "A movie."
    assert spec.parameters["required"] == ["title", "year"]
    assert read({"title": "Alien", "year": 1979}) == {"title": "Alien", "year": 1979}
    structured = ScriptedChatModel([AIMessage("", tool_calls=[tool_call("Movie", {"title": "Alien", "year": 1979},
                                                                        "c1")])]).with_structured_output(Movie)
    assert structured.invoke("a film") == {"title": "Alien", "year": 1979}
    assert output_tool(Song)[0].name == "Song"  # typing's, as before
    with pytest.raises(SchemaError, match="Structured output takes"):
        output_tool(int)


# -- C: a dict of tools ------------------------------------------------------------------------------------------


def plain(x: int) -> int:
    """Return x.

    Args:
        x: a number
    """
    return x


def test_a_dict_of_tools_is_told_as_a_dict() -> None:
    with pytest.raises(UserError, match=r"not a dict: got a dict of tools \(keys 'plain'\); pass a list of its "
                                        r"values, such as Agent\(model, list\(d.values\(\)\)\)") as caught:
        Agent(ScriptedChatModel(["hi"]), {"plain": plain})
    assert "single tool" not in str(caught.value)
    with pytest.raises(UserError, match=r"model\.bind_tools\(list\(d\.values\(\)\)\)"):
        ScriptedChatModel(["hi"]).bind_tools({"plain": plain, "more": tool(plain)})
    with pytest.raises(UserError, match=r"ToolExecutor\(list\(d\.values\(\)\)\)"):
        ToolExecutor({"plain": {"name": "plain", "parameters": {"type": "object"}}})
    assert Agent(ScriptedChatModel(["hi"]), list({"plain": plain}.values())).invoke("x")


@pytest.mark.parametrize("one", [
    {"type": "function", "function": {"name": "plain", "parameters": {"type": "object"}}},
    {"name": "plain", "description": "", "parameters": {"type": "object"}},
    {"google_search": {}},
])
def test_one_tool_dict_is_still_one_tool(one: dict) -> None:
    with pytest.raises(UserError, match="not a single tool"):
        Agent(ScriptedChatModel(["hi"]), one)


@pytest.mark.parametrize("fmt", ["pythonic", "json"])
def test_the_prompt_s_example_calls_are_calls_the_format_grammar_accepts(fmt: str) -> None:
    """The example calls of the tools prompt are written in the dialect's call format; a date shown as ``"value"``
    was an example the grammar refuses (review 67)."""
    from toolwire.models._tool_text import _example_call, _python_call, _python_names, example_strings

    for variant in (0, 1):
        call = _example_call(BOOK, variant)
        assert call["args"]["day"] == f"2025-01-0{variant + 1}"
        text = ("[" + _python_call(call, _python_names([BOOK])) + "]" if fmt == "pythonic"
                else format_calls([call], "json", [BOOK]))
        assert _GRAMMARS[fmt].accepts(text), text
        book_meeting.invoke(call["args"])  # and valid for the tool
    assert "2025-01-01" in example_strings([BOOK])["book_meeting"]  # a call copying it is judged a copy
