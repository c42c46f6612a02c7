"""Cases S1-S5 and E1-E2 of shared/cases/tool-calling-cases.md, each with its right value and neighbours.

Each row is a fault users of other tool-calling libraries reported; the tests pin the kind of fault,
not only the one input.
"""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest
from pydantic import BaseModel

from toolwire import (
    Agent,
    AIMessage,
    MaxStepsExceeded,
    SchemaError,
    Tool,
    ToolExecutor,
    ToolMessage,
    ToolValidationError,
    convert_to_openai_tool,
    tool,
)
from toolwire.messages import invalid_tool_call, tool_call
from toolwire.models.lowering.gemini import convert_to_gemini_tool
from toolwire.models.lowering.openai import StrictSchemaWarning
from toolwire.testing import ScriptedChatModel


class Addr(BaseModel):
    city: str


class Library:
    def find(self, term: str, *args: Any, **kwargs: Any) -> str:
        """Find a book.

        Args:
            term: text
        """
        return f"found {term}"

    @classmethod
    def find_cls(cls, term: str, *rest: str, **options: Any) -> str:
        """Find a book.

        Args:
            term: text
        """
        return f"found {term}"

    @staticmethod
    def find_static(term: str, **options: Any) -> str:
        """Find a book.

        Args:
            term: text
        """
        return f"found {term}"


# -- S1: self, cls, *args, **kwargs are left out ---------------------------------------------------

S1_SCHEMA = {"type": "object", "properties": {"term": {"type": "string", "description": "text"}},
             "required": ["term"], "additionalProperties": False}


@pytest.mark.parametrize("method", [Library.find, Library().find, Library.find_cls, Library.find_static],
                         ids=["unbound", "bound", "classmethod", "staticmethod"])
def test_s1_method_signature_leaves_out_self_cls_args_kwargs(method: Any) -> None:
    made = Tool.from_function(method, name="find")
    assert made.parameters == S1_SCHEMA
    assert made.args == {"term": {"type": "string", "description": "text"}}


def test_s1_bound_method_runs_with_only_its_own_argument() -> None:
    made = Tool.from_function(Library().find, name="find")
    assert made.invoke({"term": "Dune"}) == "found Dune"
    with pytest.raises(ToolValidationError, match="'args' is not a parameter of this tool"):
        made.invoke({"term": "Dune", "args": [1]})


# -- S2: the description is summary + body; Args/Returns never leak --------------------------------

GOOGLE = '''Look up documents.

    The index is rebuilt nightly.

    Args:
        q: the query text.
        k: how many results.

    Returns:
        A list of titles.
    '''
NUMPY = '''Look up documents.

    The index is rebuilt nightly.

    Parameters
    ----------
    q : str
        the query text.
    k : int
        how many results.

    Returns
    -------
    list of str
        A list of titles.
    '''
SPHINX = '''Look up documents.

    The index is rebuilt nightly.

    :param q: the query text.
    :param k: how many results.
    :return: A list of titles.
    :rtype: list
    '''


@pytest.mark.parametrize("doc", [GOOGLE, NUMPY, SPHINX], ids=["google", "numpy", "sphinx"])
def test_s2_docstring_styles(doc: str) -> None:
    def lookup(q: str, k: int = 5) -> list[str]:
        return [q] * k

    lookup.__doc__ = doc
    made = tool(lookup)
    assert made.description == "Look up documents.\n\nThe index is rebuilt nightly."
    assert made.parameters == {
        "type": "object",
        "properties": {"q": {"type": "string", "description": "the query text."},
                       "k": {"type": "integer", "description": "how many results.", "default": 5}},
        "required": ["q"],
        "additionalProperties": False,
    }
    for leak in ("Args", "Returns", "Parameters", ":param", "A list of titles", "----"):
        assert leak not in made.description


def test_s2_raises_and_examples_sections_do_not_leak_either() -> None:
    @tool
    def fetch(url: str) -> str:
        """Fetch a page.

        Raises:
            TimeoutError: when the site is slow.

        Example:
            fetch("https://example.org")
        """
        return url

    assert fetch.description == "Fetch a page."


# -- S3: nested object, Gemini form, zero-parameter tool -------------------------------------------


def ship(to: Addr, express: bool = False) -> str:
    """Ship a parcel."""
    return f"{to.city}:{express}"


def reset() -> str:
    """Reset the device."""
    return "ok"


def test_s3_openai_form_keeps_the_nested_object() -> None:
    assert convert_to_openai_tool(ship) == {"type": "function", "function": {
        "name": "ship",
        "description": "Ship a parcel.",
        "parameters": {
            "type": "object",
            "properties": {
                "to": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"],
                       "additionalProperties": False},
                "express": {"type": "boolean", "default": False},
            },
            "required": ["to"],
            "additionalProperties": False,
        },
    }}
    assert tool(ship).invoke({"to": {"city": "Oslo"}}) == "Oslo:False"


def test_s3_gemini_form_has_only_the_subset() -> None:
    def ship_later(to: Addr, when: str | None = None, back: Addr | None = None) -> str:
        """Ship a parcel later."""
        return ""

    out = convert_to_gemini_tool(ship_later)
    address = {"type": "OBJECT", "properties": {"city": {"type": "STRING"}}, "required": ["city"]}
    assert out == {"name": "ship_later", "description": "Ship a parcel later.", "parameters": {
        "type": "OBJECT",
        "properties": {"to": address, "when": {"type": "STRING", "nullable": True},
                       "back": {**address, "nullable": True}},
        "required": ["to"],
    }}
    text = json.dumps(out)
    for banned in ("$defs", "$ref", "default", "title", "additionalProperties", "anyOf", '"null"'):
        assert banned not in text


def test_s3_zero_parameter_tool() -> None:
    made = tool(reset)
    assert made.parameters == {"type": "object", "properties": {}, "additionalProperties": False}
    assert made.invoke({}) == "ok" and made.invoke(None) == "ok"
    assert convert_to_openai_tool(reset)["function"]["parameters"] == {"type": "object", "properties": {},
                                                                    "additionalProperties": False}
    assert convert_to_openai_tool(reset, strict=True)["function"]["parameters"] == {
        "type": "object", "properties": {}, "required": [], "additionalProperties": False}
    assert convert_to_gemini_tool(reset) == {"name": "reset", "description": "Reset the device."}


# -- S4: strict mode, nullable defaults, null replaced by the default ----------------------------


def latest(major: int | None = None, channel: str = "stable") -> str:
    """Find the latest release."""
    return f"{major}/{channel}"


def test_s4_strict_schema() -> None:
    assert convert_to_openai_tool(latest, strict=True) == {"type": "function", "function": {
        "name": "latest",
        "description": "Find the latest release.",
        "parameters": {
            "type": "object",
            "properties": {"major": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
                           "channel": {"type": ["string", "null"], "description": 'Default: "stable".'}},
            "required": ["major", "channel"],
            "additionalProperties": False,
        },
        "strict": True,
    }}


def test_s4_null_for_a_defaulted_parameter_gets_the_python_default() -> None:
    made = tool(latest)
    assert made.invoke({"major": None, "channel": None}) == "None/stable"
    assert made.invoke({"major": 3, "channel": None}) == "3/stable"
    message = made.invoke(tool_call("latest", {"major": None, "channel": None}, "s4"))
    assert message == ToolMessage("None/stable", "s4", name="latest")
    executed = ToolExecutor([made]).execute(AIMessage("", tool_calls=[tool_call("latest", {"major": 1,
                                                                                          "channel": None}, "e")]))
    assert executed[0].content == "1/stable"


def test_s4_neighbour_nested_defaults_and_required_non_nullable() -> None:
    class Options(BaseModel):
        retries: int = 2
        label: str | None = "x"

    def deploy(app: str, options: Options) -> str:
        """Deploy an app."""
        return f"{app}:{options.retries}:{options.label}"

    deploy.__annotations__["options"] = Options
    made = tool(deploy)
    strict = convert_to_openai_tool(made, strict=True)["function"]["parameters"]
    assert strict["properties"]["options"]["required"] == ["retries", "label"]
    assert strict["properties"]["options"]["properties"]["retries"] == {"type": ["integer", "null"],
                                                                        "description": "Default: 2."}
    # a strict model sends null for the nested default: it is replaced too; a real None stays None
    assert made.invoke({"app": "web", "options": {"retries": None, "label": None}}) == "web:2:None"
    # a null for a required, non-nullable parameter is still an error, not silently dropped
    with pytest.raises(ToolValidationError, match="'app': Input should be a valid string"):
        made.invoke({"app": None, "options": {}})


# -- S5: a free-form dict is never sent as a strict object that admits only {} --------------------


def tag(labels: dict[str, str]) -> str:
    """Tag a resource."""
    return ",".join(f"{k}={v}" for k, v in sorted(labels.items()))


def test_s5_free_form_dict_switches_to_non_strict_with_a_warning() -> None:
    with pytest.warns(StrictSchemaWarning, match="Tool 'tag' cannot use OpenAI strict mode"):
        out = convert_to_openai_tool(tag, strict=True)
    assert out == {"type": "function", "function": {
        "name": "tag",
        "description": "Tag a resource.",
        "parameters": {
            "type": "object",
            "properties": {"labels": {"type": "object", "additionalProperties": {"type": "string"}}},
            "required": ["labels"],
            "additionalProperties": False,
        },
    }}
    assert tool(tag).invoke({"labels": {"b": "2", "a": "1"}}) == "a=1,b=2"


@pytest.mark.parametrize("annotation", [dict[str, int], dict, dict[str, Any], list[dict[str, str]],
                                        dict[str, str] | None, Any])
def test_s5_neighbours_never_admit_only_an_empty_object(annotation: Any) -> None:
    def f(value) -> str:
        """F."""
        return ""

    f.__annotations__["value"] = annotation
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = convert_to_openai_tool(f, strict=True)["function"]
    assert "strict" not in out
    assert [w.category for w in caught] == [StrictSchemaWarning]

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            assert not (node.get("type") == "object" and not node.get("properties")
                        and node.get("additionalProperties") is False), node
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(out["parameters"])


# -- E1: an exception becomes an error result; re-raising is opt-in ------------------------------


@tool
def explode(x: int) -> str:
    """Explode."""
    raise ValueError("boom")


@tool
def get_time() -> str:
    """Get the current time."""
    return "12:00"


def test_e1_exception_becomes_an_error_tool_message_for_its_call() -> None:
    expected = ToolMessage("Error: tool 'explode' raised ValueError: boom", "c9", status="error", name="explode")
    assert explode.invoke(tool_call("explode", {"x": 1}, "c9")) == expected
    assert ToolExecutor([explode]).execute(AIMessage("", tool_calls=[tool_call("explode", {"x": 1}, "c9")])) == \
        [expected]


def test_e1_the_loop_goes_on_and_re_raising_is_opt_in() -> None:
    model = ScriptedChatModel([AIMessage("", tool_calls=[tool_call("explode", {"x": 1}, "c9")]), "It failed."])
    result = Agent(model, [explode]).invoke("go")
    assert result.output == "It failed."
    assert result.messages[2].status == "error" and result.messages[2].tool_call_id == "c9"
    assert "boom" in model.requests[1].messages[-1].content
    with pytest.raises(ValueError, match=r"^boom$"):
        ToolExecutor([explode], handle_errors=False).execute(
            AIMessage("", tool_calls=[tool_call("explode", {"x": 1}, "c9")]))
    with pytest.raises(ValueError, match=r"^boom\n") as info:  # the tool's own error, with a note on resuming
        Agent(ScriptedChatModel([AIMessage("", tool_calls=[tool_call("explode", {"x": 1}, "c9")])]), [explode],
              handle_errors=False).invoke("go")
    assert str(info.value) == "boom"
    assert [type(m).__name__ for m in info.value.messages] == ["HumanMessage", "AIMessage"]


def test_e1_neighbour_exceptions_without_message_or_of_other_types() -> None:
    @tool
    def silent() -> str:
        """Silent."""
        raise KeyError

    @tool
    def custom() -> str:
        """Custom."""
        class QuotaError(Exception):
            pass
        raise QuotaError("over quota")

    results = ToolExecutor([silent, custom]).execute(AIMessage("", tool_calls=[
        tool_call("silent", {}, "a"), tool_call("custom", {}, "b")]))
    assert [r.content for r in results] == ["Error: tool 'silent' raised KeyError.",
                                            "Error: tool 'custom' raised QuotaError: over quota"]


# -- E2: unknown tool, arguments that are not an object; bounded by max_steps -------------------


def test_e2_unknown_tool_names_the_available_tools() -> None:
    [result] = ToolExecutor([get_time]).execute(AIMessage("", tool_calls=[tool_call("get_date", {}, "u1")]))
    assert result == ToolMessage(
        "Error: There is no tool named 'get_date'. Available tools: get_time. Call one of them by its exact name.",
        "u1", status="error", name="get_date")


def test_e2_array_arguments_are_a_validation_error_in_every_form() -> None:
    executor = ToolExecutor([get_time])
    as_invalid = AIMessage("", invalid_tool_calls=[invalid_tool_call("get_time", "[1, 2]", "v1",
                                                                     "The arguments must be a JSON object.")])
    as_text = AIMessage("", tool_calls=[{"name": "get_time", "args": "[1, 2]", "id": "v2",  # type: ignore[list-item]
                                         "type": "tool_call"}])
    as_list = AIMessage("", tool_calls=[{"name": "get_time", "args": [1, 2], "id": "v3",  # type: ignore[list-item]
                                         "type": "tool_call"}])
    [first] = executor.execute(as_invalid)
    [second] = executor.execute(as_text)
    [third] = executor.execute(as_list)
    assert first.content == ("Error: the call to 'get_time' was not valid: the arguments must be a JSON object. "
                             "The arguments received were: [1, 2]. Send the call again with the arguments as a "
                             "JSON object.")
    # arguments that are no object in tool_calls make an invalid call, as a provider's reply does (review 77)
    assert as_text.invalid_tool_calls[0]["args"] == as_list.invalid_tool_calls[0]["args"] == "[1, 2]"
    assert second.status == "error" and "got a JSON array" in second.content
    assert third.status == "error" and "got a Python list" in third.content
    assert [first.tool_call_id, second.tool_call_id, third.tool_call_id] == ["v1", "v2", "v3"]


def test_e2_nothing_crashes_and_the_loop_is_bounded_by_max_steps() -> None:
    wrong = AIMessage("", tool_calls=[tool_call("get_date", {}, "w")])
    model = ScriptedChatModel([wrong], cycle=True)
    with pytest.raises(MaxStepsExceeded) as info:
        Agent(model, [get_time], max_steps=3).invoke("What is the date?")
    assert info.value.steps == 3
    assert len(model.requests) == 3
    assert sum(isinstance(m, ToolMessage) and m.status == "error" for m in info.value.messages) == 3


def test_schema_errors_are_raised_at_definition_time_not_per_call() -> None:
    class Node(BaseModel):
        children: list[Node]

    def walk(tree: Node) -> None:
        """Walk."""

    walk.__annotations__["tree"] = Node
    Node.model_rebuild(_types_namespace={"Node": Node})
    with pytest.raises(SchemaError, match="refers to itself"):
        tool(walk)
