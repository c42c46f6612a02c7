"""Review 109 (a smolagents user porting three programs): what changed in code."""

from __future__ import annotations

import base64
import collections
import logging
import re
import types
from typing import ClassVar

import pytest

from toolwire import Agent, Tool, ToolExecutor, tool
from toolwire.errors import UserError
from toolwire.messages import AIMessage, HumanMessage, SystemMessage
from toolwire.models import ChatLlamaCpp
from toolwire.results import image_mime, result_to_content
from toolwire.testing import ScriptedChatModel

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAA"
                       "AABJRU5ErkJggg==")  # a 1x1 PNG


def _call(name: str, call_id: str = "c1") -> dict:
    return {"name": name, "args": {"metric": "sales"}, "id": call_id, "type": "tool_call"}


# -- #1: bytes a tool returns ----------------------------------------------------------------------


def test_image_bytes_a_tool_returns_become_an_image_block() -> None:
    @tool
    def render_chart(metric: str) -> bytes:
        """Draw a chart of a metric."""
        return PNG

    answer = render_chart.invoke(_call("render_chart"))
    assert answer.status == "success"
    assert answer.content == [{"type": "image", "base64": base64.b64encode(PNG).decode(), "mime_type": "image/png"}]


@pytest.mark.parametrize(("head", "mime"), [
    (b"\x89PNG\r\n\x1a\n", "image/png"), (b"\xff\xd8\xff\xe0", "image/jpeg"), (b"GIF89a", "image/gif"),
    (b"GIF87a", "image/gif"), (b"RIFF\x10\x00\x00\x00WEBPVP8 ", "image/webp"),
    (b"RIFF\x10\x00\x00\x00WAVEfmt ", None), (b"%PDF-1.7", None), (b"\x00\xff", None), (b"", None),
])
def test_image_mime_reads_the_formats_signatures(head: bytes, mime: str | None) -> None:
    assert image_mime(head + b"\x00" * 8) == mime


def test_bytes_that_cannot_be_sent_are_kept_as_the_artifact_and_the_developer_is_told_once(
        caplog: pytest.LogCaptureFixture) -> None:
    @tool
    def dump_blob(metric: str) -> dict:
        """Return a record holding raw bytes."""
        return {"metric": metric, "data": b"\x00\xff\xfe"}

    with caplog.at_level(logging.WARNING, logger="toolwire.tools"):
        by_tool = dump_blob.invoke(_call("dump_blob"))
        reply = AIMessage("", tool_calls=[_call("dump_blob", "c2"), _call("dump_blob", "c3")])
        by_executor = ToolExecutor([dump_blob]).call(reply)
    assert by_tool.status == "error" and "ran, but its result could not be sent back" in by_tool.content
    assert by_tool.artifact == {"metric": "sales", "data": b"\x00\xff\xfe"}  # (it was None: the data was lost)
    assert [m.artifact for m in by_executor] == [by_tool.artifact] * 2
    told = [r for r in caplog.records if "dump_blob" in r.getMessage()]
    assert len(told) == 1 and "content blocks such as" in told[0].getMessage()


def test_a_content_and_artifact_tool_keeps_its_artifact_when_its_content_cannot_be_sent() -> None:
    @tool(response_format="content_and_artifact")
    def fetch(metric: str) -> tuple:
        """Fetch a metric."""
        return b"\xff\xfe\x00", {"rows": 3}

    answer = fetch.invoke(_call("fetch"))
    assert answer.status == "error"
    assert answer.artifact == (b"\xff\xfe\x00", {"rows": 3})


def test_a_big_result_that_cannot_be_sent_keeps_the_whole_value_too() -> None:
    @tool
    def big(metric: str) -> list:
        """A big list."""
        return [b"\xff"] + [{"i": i} for i in range(6000)]  # (encoding stops past the limit: the bytes come first)

    answer, = ToolExecutor([big]).call(AIMessage("", tool_calls=[_call("big")]))
    assert answer.status == "error" and len(answer.artifact) == 6001 and answer.artifact[0] == b"\xff"


# -- #6: dict views, ranges and other containers ---------------------------------------------------


def test_dict_views_ranges_and_mapping_types_are_json_arrays_and_objects() -> None:
    prices = {"apple": 1, "pear": 2}
    assert result_to_content(prices.keys()) == '["apple", "pear"]'
    assert result_to_content(prices.values()) == "[1, 2]"
    assert result_to_content(prices.items()) == '[["apple", 1], ["pear", 2]]'
    assert result_to_content(range(1, 4)) == "[1, 2, 3]"
    assert result_to_content({"found": prices.keys()}) == '{"found": ["apple", "pear"]}'
    assert result_to_content(types.MappingProxyType(prices)) == '{"apple": 1, "pear": 2}'
    assert result_to_content(collections.ChainMap(prices)) == '{"apple": 1, "pear": 2}'
    assert result_to_content(collections.UserList([1, 2])) == "[1, 2]"


def test_a_huge_range_stays_its_text_rather_than_filling_the_memory() -> None:
    assert result_to_content(range(10**20)) == '"range(0, 100000000000000000000)"'


# -- #4: smolagents habits -------------------------------------------------------------------------


@pytest.mark.parametrize(("option", "advice"), [
    ("step_callbacks", "agent.stream(question)"), ("verbosity_level", "agent.stream(question)"),
    ("add_base_tools", "pass every tool"),
])
def test_smolagents_agent_options_get_what_to_do_instead(option: str, advice: str) -> None:
    with pytest.raises(UserError, match=f"Unknown Agent option '{option}'") as caught:
        Agent(ScriptedChatModel(["a"]), [], **{option: None})
    assert advice in str(caught.value)


@pytest.mark.parametrize(("option", "advice"), [
    ("reset", "invoke(result.messages + [question])"), ("additional_args", "put them in the question"),
])
def test_smolagents_run_options_get_what_to_do_instead(option: str, advice: str) -> None:
    with pytest.raises(UserError, match=f"not {option}=") as caught:
        Agent(ScriptedChatModel(["a"]), []).invoke("q", **{option: None})
    assert advice in str(caught.value)


def test_a_smolagents_style_tool_subclass_is_refused_at_the_class_statement() -> None:
    with pytest.raises(UserError, match="decorate it with @tool"):
        class LookupTool(Tool):  # (smolagents' Tool subclass, as its docs write one)
            name = "lookup"
            description = "Look a word up."
            inputs: ClassVar = {"word": {"type": "string", "description": "the word"}}
            output_type = "string"

            def forward(self, word: str) -> str:
                return word


# -- #8: a hub-style model name --------------------------------------------------------------------


def test_a_hub_style_local_model_name_is_refused_at_construction_naming_the_registry_name() -> None:
    with pytest.raises(UserError, match=re.escape("did you mean the registry name 'qwen2.5-coder-0.5b'")):
        ChatLlamaCpp("Qwen/qwen2.5-coder-0.5b")
    with pytest.raises(UserError, match=re.escape("did you mean the registry name 'qwen2.5-coder-0.5b'")):
        ChatLlamaCpp("Qwen2.5-Coder-0.5B")


def test_a_model_file_named_without_gguf_keeps_its_whole_name(tmp_path) -> None:
    (tmp_path / "my-0.5b").write_bytes(b"GGUF")
    (tmp_path / "other.gguf").write_bytes(b"GGUF")
    assert ChatLlamaCpp(tmp_path / "my-0.5b").model_name == "my-0.5b"  # (it was 'my-0')
    assert ChatLlamaCpp(tmp_path / "other.gguf").model_name == "other"


# -- #3: a changing system prompt beside the caller's own system message ---------------------------


def test_a_changed_prompt_replaces_the_old_one_beside_the_callers_system_message() -> None:
    model = ScriptedChatModel(["a1", "a2", "a3"])
    conversation: list = [SystemMessage("The user's name is Ada.", id="app"), HumanMessage("hi")]
    for day in ("Monday", "Tuesday", "Wednesday"):
        result = Agent(model, [], system_prompt=f"Today is {day}.").invoke(conversation)
        conversation = [*result.messages, HumanMessage("again")]
    systems = [(m.content, m.id) for m in result.messages if m.type == "system"]
    assert systems == [("Today is Wednesday.", "toolwire:system_prompt"), ("The user's name is Ada.", "app")]
    sent = [(m.content, m.id) for m in model.requests[-1].messages if m.type == "system"]
    assert sent == [("Today is Wednesday.\n\nThe user's name is Ada.", "app")]  # one system message, as before


def test_the_structured_call_gets_the_merged_system_message_too() -> None:
    from pydantic import BaseModel

    class Answer(BaseModel):
        text: str

    model = ScriptedChatModel(["plain", AIMessage("", tool_calls=[
        {"name": "Answer", "args": {"text": "x"}, "id": "s1", "type": "tool_call"}])])
    result = Agent(model, [], system_prompt="Be brief.", response_format=Answer).invoke(
        [SystemMessage("Mine."), HumanMessage("q")])
    assert result.structured_response == Answer(text="x")
    assert [m.content for m in model.requests[-1].messages if m.type == "system"] == ["Be brief.\n\nMine."]


# -- #5: a forced tool_choice kept on every call, and a model that repeats its calls -------------------


def _calls(*specs: tuple[str, dict, str]) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": n, "args": a, "id": i, "type": "tool_call"} for n, a, i in specs])


@tool
def get_population(city: str) -> int:
    """The population of a city, in millions."""
    return {"Paris": 2, "Rome": 3}[city]


@tool(return_direct=True)
def final_answer(answer: str) -> str:
    """Give the final answer."""
    return answer


@pytest.mark.filterwarnings("ignore::toolwire.errors.RepeatedCallWarning")
def test_a_forced_run_of_repeats_forces_its_one_return_direct_tool_next() -> None:
    asked = _calls(("get_population", {"city": "Paris"}, "a"), ("get_population", {"city": "Rome"}, "b"))
    again = _calls(("get_population", {"city": "Paris"}, "c"), ("get_population", {"city": "Rome"}, "d"))
    model = ScriptedChatModel([asked, again, _calls(("final_answer", {"answer": "Rome"}, "e"))])
    result = Agent(model, [get_population, final_answer], tool_choice="required", reset_tool_choice=False,
                   max_steps=5).invoke("Which is bigger?")
    assert (result.output, result.stop_reason) == ("Rome", "return_direct")
    assert [r.tool_choice for r in model.requests] == ["required", "required", "final_answer"]


@pytest.mark.filterwarnings("ignore::toolwire.errors.RepeatedCallWarning")
def test_reset_tool_choice_false_without_a_forced_choice_keeps_the_tools_off_answer() -> None:
    asked = _calls(("get_population", {"city": "Paris"}, "a"))
    model = ScriptedChatModel([asked, _calls(("get_population", {"city": "Paris"}, "b")), "Paris has 2 million."])
    result = Agent(model, [get_population], reset_tool_choice=False).invoke("How many in Paris?")
    assert result.output == "Paris has 2 million."
    assert [r.tool_choice for r in model.requests] == ["auto", "auto", "none"]


# -- #2: all a declined call left is "[]" ---------------------------------------------------------------


def _declined_then(tail: list) -> tuple[tuple[str, str, str | None], str, object]:
    from test_dialects import _Pieces, _ScriptedGeneration

    pieces = _Pieces({4: "[", 5: "get_weather", 6: "(", 10: "[get", 40: "]", 41: "[]", 42: " ", 43: "[1", 44: ", 2]",
                      45: "None", 46: " fits"})
    unsure = [(4, {4: 0.3, 10: 0.1, 45: 0.6}), (5, {5: 1.0}), (6, {6: 1.0})]  # a call that opens with 0.4
    run = _ScriptedGeneration([unsure, tail], bar=0.5)
    result, shown = run.run(pieces)
    return result, shown, run.gen


@pytest.mark.parametrize("tail", [[(41, {41: 0.9})], [(4, {4: 0.9}), (40, {40: 0.9})],
                                  [(42, {42: 0.9}), (41, {41: 0.9}), (42, {42: 0.9})]])
def test_the_empty_list_a_declined_call_leaves_is_no_answer(tail: list) -> None:
    (whole, call_text, fmt), shown, gen = _declined_then(tail)
    assert gen.declined_calls == 1
    assert (whole, call_text, fmt, shown) == ("", "", None, "")  # (it was "[]": the Agent's answer)


def test_text_after_a_declined_call_that_only_starts_like_an_empty_list_is_kept_whole() -> None:
    (whole, _, _), shown, _ = _declined_then([(43, {43: 0.9}), (44, {44: 0.9})])
    assert whole == shown == "[1, 2]"
    (whole, _, _), shown, _ = _declined_then([(45, {45: 0.9}), (46, {46: 0.9})])
    assert whole == shown == "None fits"


def test_an_empty_answer_after_a_declined_call_is_warned_about_with_the_values_it_made_up(
        caplog: pytest.LogCaptureFixture) -> None:
    reply = AIMessage("", response_metadata={"declined_calls": 1, "made_up_values": ["max_price=100000"]})
    with caplog.at_level(logging.WARNING, logger="toolwire"):
        result = Agent(ScriptedChatModel([reply]), [get_population]).invoke("Cheapest flight to Paris?")
    assert result.output == ""
    told = [r.getMessage() for r in caplog.records if "gave no answer" in r.getMessage()]
    assert len(told) == 1 and "max_price=100000" in told[0] and "min_value_probability" in told[0]


# -- #7: a parameter an Args: section leaves out -----------------------------------------------------------


def test_a_parameter_the_args_section_leaves_out_is_warned_about() -> None:
    from toolwire.errors import ToolDefinitionWarning

    with pytest.warns(ToolDefinitionWarning, match="describes some parameters but not 'days'"):
        @tool
        def forecast(city: str, days: int = 3) -> str:
            """The weather forecast.

            Args:
                city: the city's name.
            """
            return city
    assert "description" not in forecast.parameters["properties"]["days"]


def test_no_warning_when_every_parameter_has_a_description_or_no_section_exists(recwarn) -> None:
    from typing import Annotated

    @tool
    def described(city: str, days: Annotated[int, "how many days"] = 3) -> str:
        """The weather forecast.

        Args:
            city: the city's name.
        """
        return city

    @tool
    def undocumented(city: str, days: int = 3) -> str:
        """The weather forecast, with no section on its parameters."""
        return city

    assert not [w for w in recwarn if "describes some parameters" in str(w.message)]
