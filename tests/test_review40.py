"""Review 40: a porting user's pass (LangChain ``@tool(parse_docstring=True)``, Pydantic AI, OpenAI Agents SDK
``function_tool``) over ``@tool``'s schema generation, docstring parsing and argument validation.

Probed: Literal (mixed), Enum/IntEnum/StrEnum/IntFlag, Optional/unions with and without defaults, Annotated with
Field constraints, date/time/UUID/Decimal/Path/bytes/set/tuple/NamedTuple, nested models, dataclasses, TypedDicts,
recursive and generic models, Any and missing hints, future annotations, positional-only and keyword-only
parameters, methods, functools.partial, callable objects, async and wrapped functions, Google/NumPy/Sphinx/Epydoc
docstrings, coercion, JSON-encoded nested values, null handling, unknown keys. Every generated schema was checked
with ``Draft202012Validator.check_schema``, ``json.dumps`` and for dangling ``$ref``.

Faults (each test asserts the correct behaviour and failed before its fix; fixed in the eighteenth session: 1, 2,
4, 8, 9, 10, 11, 12; in the nineteenth: 3, 5, 6, 7):

1. Positional-only parameters with defaults: ``def f(a=1, b=2, /)`` called with ``{"b": 5}`` runs ``f(5)``, so the
   function gets ``a=5, b=2``: the value lands in the wrong parameter, silently.
2. ``def f(rid: str = Field(default_factory=...))``: the factory is called once, when the tool is defined; every call
   gets that same value (one request id, one ``datetime.now`` for all calls), and the schema advertises it as the
   default. pydantic (and ``validate_call``) call the factory for each validation.
3. ``Literal[Kind.CAT]`` of a plain ``Enum`` member (the usual tag of a discriminated union): the schema says
   ``{"const": "cat"}`` but validation refuses ``"cat"`` ("Input should be <Kind.CAT: 'cat'>"), so no model can
   ever call the tool; in a discriminated union the tag lookup fails the same way.
4. NumPy docstrings: ``x, y : float`` (numpydoc's documented form for parameters sharing a type and description)
   gives neither parameter a description, and the ToolDefinitionWarning contradicts itself: "describes 'x, y',
   which the function does not take (its parameters: x, y)".
5. The top-level parameters schema never says ``additionalProperties: false``, although unknown keys are refused
   (README: "unknown keys are an error"); the JSON Schema the model gets allows what validation refuses (nested
   objects do say it, "so the model knows").
6. For the same reason an ``args_schema`` with ``extra="allow"`` loses its openness at the top level: OpenAI strict
   mode is sent ``additionalProperties: false`` instead of falling back to non-strict with a
   ``StrictSchemaWarning`` as documented for "an object with extra='allow'" (a nested one does fall back).
7. Google docstrings: a paragraph written after the ``Args:`` section (at the left margin, so not part of it) is
   dropped: it is neither in the tool description nor anywhere else (the same for reST after ``:param:`` fields).
8. ``args_schema`` model docstring in Google style with an ``Attributes:`` section: the raw section
   (``"Attributes:\\n    query: ..."``) becomes part of the tool description, while the fields it describes get
   no description.
9. ``functools.partial(func, value)`` (a value bound by position, e.g. a client or db): a ToolDefinitionWarning says
   the docstring describes a parameter the function does not take and to "fix the name"; a value bound by keyword
   gets no such warning.
10. Unknown key in an object that is a union of models (``q: Cat | Dog``): the message says a field that *is* a field
    of the intended model is "not an allowed field" (``{"meow": false, "zzz": 1}`` -> "'q.meow' is not an allowed
    field of 'q'"), so a model that follows it drops the value it meant to send.
11. A parameter whose type accepts null but not through a plain ``Optional`` (``MaybeInt = TypeAliasType(...,
    Optional[int])``, ``object``) and has a default: the schema says null is accepted, yet a null sent is dropped
    and the function gets the default instead of ``None``.
12. ``Annotated[T, "description"]`` (README: supported) on the fields of a TypedDict parameter: the descriptions are
    lost (only the parameter level reads them).
"""

from __future__ import annotations

import enum
import functools
import itertools
import json
import warnings
from typing import Annotated, Literal, TypedDict

import pytest
from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import TypeAliasType

from toolwire import tool
from toolwire.errors import ToolDefinitionWarning, ToolValidationError

# ----------------------------------------------------------------------------------------- 1. positional-only


def test_positional_only_parameters_with_defaults_get_their_own_values() -> None:
    @tool
    def spread(a: int = 1, b: int = 2, /, c: int = 3) -> str:
        """Spread."""
        return f"a={a} b={b} c={c}"

    assert spread.invoke({"b": 5}) == "a=1 b=5 c=3"
    message = spread.invoke({"name": "spread", "args": {"b": 5}, "id": "c1", "type": "tool_call"})
    assert message.content == "a=1 b=5 c=3"


# ----------------------------------------------------------------------------------------- 2. default_factory


def test_a_field_default_factory_runs_for_each_call() -> None:
    counter = itertools.count()

    @tool
    def log_event(text: str, seq: int = Field(default_factory=lambda: next(counter))) -> int:
        """Log an event."""
        return seq

    first = log_event.invoke({"text": "a"})
    second = log_event.invoke({"text": "b"})
    assert first != second  # as pydantic (and validate_call) would: a fresh value per call


# ----------------------------------------------------------------------------------------- 3. Literal[Enum.member]


class Kind(enum.Enum):
    CAT = "cat"
    DOG = "dog"


class Cat(BaseModel):
    kind: Literal[Kind.CAT]
    meow: bool = True


class Dog(BaseModel):
    kind: Literal[Kind.DOG]
    bark: int = 1


def test_a_literal_enum_member_accepts_the_value_its_schema_shows() -> None:
    @tool
    def adopt(pet: Annotated[Cat | Dog, Field(discriminator="kind")], only_cat: Cat | None = None) -> str:
        """Adopt a pet."""
        return repr(pet)

    assert adopt.parameters["properties"]["only_cat"]["anyOf"][0]["properties"]["kind"]["const"] == "cat"
    args = adopt.validate_args({"pet": {"kind": "dog"}, "only_cat": {"kind": "cat"}})  # what the schema says to send
    assert args["pet"].kind is Kind.DOG and args["only_cat"].kind is Kind.CAT
    assert adopt.validate_args({"pet": Cat(kind=Kind.CAT)})["pet"].kind is Kind.CAT  # a member still does
    with pytest.raises(ToolValidationError, match=r"'only_cat.kind': Input should be 'cat' \(got 'dog'\)"):
        adopt.validate_args({"pet": {"kind": "dog"}, "only_cat": {"kind": "dog"}})
    with pytest.raises(ToolValidationError, match="does not match any of the expected tags"):
        adopt.validate_args({"pet": {"kind": "cow"}})


# ----------------------------------------------------------------------------------------- 4. NumPy "x, y : float"


def test_numpy_parameters_documented_together_get_the_description() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ToolDefinitionWarning)

        @tool
        def distance(x: float, y: float) -> float:
            """Distance of a point from the origin.

            Parameters
            ----------
            x, y : float
                Coordinates of the point.
            """
            return (x * x + y * y) ** 0.5

    props = distance.parameters["properties"]
    assert props["x"].get("description") == "Coordinates of the point."
    assert props["y"].get("description") == "Coordinates of the point."
    assert not [w for w in caught if issubclass(w.category, ToolDefinitionWarning)]


# ----------------------------------------------------------------------------------------- 5./6. top-level extra keys


def test_the_top_level_schema_says_unknown_keys_are_refused() -> None:
    from jsonschema import Draft202012Validator

    @tool
    def get_weather(city: str) -> str:
        """Get the weather."""
        return city

    args = {"city": "Paris", "units": "c"}
    with pytest.raises(ToolValidationError, match="'units' is not a parameter"):
        get_weather.validate_args(args)
    assert not Draft202012Validator(get_weather.parameters).is_valid(args)
    assert get_weather.parameters.get("additionalProperties") is False


@pytest.mark.parametrize("name", ["json", "template"])
def test_a_local_models_prompt_leaves_the_closed_top_level_out(name: str) -> None:
    # the grammar and validation refuse unknown keys already: the words would only cost prompt tokens
    from test_dialects import QWEN_TEMPLATE
    from toolwire.messages import HumanMessage
    from toolwire.models.dialects import get_dialect

    @tool
    def get_weather(city: str) -> str:
        """Get the weather."""
        return city

    assert get_weather.parameters["additionalProperties"] is False
    chat = get_dialect(name, QWEN_TEMPLATE if name == "template" else None).render(
        [HumanMessage("Weather in Paris?")], [get_weather])
    shown = json.dumps(chat.messages) + json.dumps(chat.tools)
    assert "city" in shown and "additionalProperties" not in shown
    assert get_weather.parameters["additionalProperties"] is False  # the tool's own schema is left alone


class LooseArgs(BaseModel):
    """Search with free-form filters."""

    model_config = ConfigDict(extra="allow")
    q: str


def loose_search(q: str, **filters: str) -> str:
    return repr((q, filters))


def test_an_open_args_schema_is_not_closed_in_strict_mode() -> None:
    from toolwire.models.lowering.openai import StrictSchemaWarning, convert_to_openai_tool

    t = tool(loose_search, args_schema=LooseArgs)
    assert t.validate_args({"q": "x", "color": "red"}) == {"q": "x", "color": "red"}  # extra keys are taken
    with pytest.warns(StrictSchemaWarning):
        lowered = convert_to_openai_tool(t, strict=True)
    assert lowered["function"].get("strict") is not True
    assert lowered["function"]["parameters"].get("additionalProperties") is not False


# ----------------------------------------------------------------------------------------- 7. text after Args


def test_a_paragraph_after_the_args_section_is_kept() -> None:
    @tool
    def search(q: str) -> str:
        """Search the catalogue.

        Args:
            q: The query.

        This tool is slow: prefer the cache for repeated queries.
        """
        return q

    assert search.parameters["properties"]["q"]["description"] == "The query."
    assert search.description == "Search the catalogue.\n\nThis tool is slow: prefer the cache for repeated queries."


def test_a_paragraph_after_rest_fields_is_description_not_the_last_fields_text() -> None:
    @tool
    def search(q: str, n: int = 5) -> str:
        """Search the catalogue.

        :param q: The query.
        :param n: How many results,
            at most.

        This tool is slow.

        :returns: the hits.
        """
        return q

    props = search.parameters["properties"]
    assert props["q"]["description"] == "The query."
    assert props["n"]["description"] == "How many results,\nat most."
    assert search.description == "Search the catalogue.\n\nThis tool is slow."


def test_a_section_written_without_indentation_is_left_to_the_parser() -> None:
    @tool
    def search(q: str) -> str:
        """Search the catalogue.

        Returns:
        the hits.

        Args:
            q: The query.
        """
        return q

    assert search.parameters["properties"]["q"]["description"] == "The query."
    assert "the hits" not in search.description


# ----------------------------------------------------------------------------------------- 8. args_schema docstring


class SearchArgs(BaseModel):
    """Search the catalogue.

    Attributes:
        query: the text to find.
        limit: the most results to return.
    """

    query: str
    limit: int = 10


def catalogue_search(query: str, limit: int = 10) -> str:
    return f"{query}:{limit}"


def test_an_args_schema_docstring_is_parsed_like_a_function_docstring() -> None:
    t = tool(catalogue_search, args_schema=SearchArgs)
    assert t.description == "Search the catalogue."
    assert t.parameters["properties"]["query"].get("description") == "the text to find."
    assert t.parameters["properties"]["limit"].get("description") == "the most results to return."


# ----------------------------------------------------------------------------------------- 9. partial by position


def _lookup(db: dict, key: str) -> str:
    """Look a key up.

    Args:
        db: the store.
        key: the key to find.
    """
    return str(db.get(key))


def test_a_partial_binding_a_value_by_position_gives_no_docstring_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", ToolDefinitionWarning)
        by_keyword = tool(functools.partial(_lookup, db={"a": 1}), name="by_keyword")  # no warning
        by_position = tool(functools.partial(_lookup, {"a": 1}), name="by_position")
    assert list(by_keyword.args) == list(by_position.args) == ["key"]
    assert by_position.invoke({"key": "a"}) == "1"


# ----------------------------------------------------------------------------------------- 10. union error text


class Cat2(BaseModel):
    meow: bool = True


class Dog2(BaseModel):
    bark: int = 1


def test_an_unknown_key_in_a_union_of_models_does_not_blame_a_real_field() -> None:
    @tool
    def pet(q: Cat2 | Dog2) -> str:
        """Pet an animal."""
        return repr(q)

    with pytest.raises(ToolValidationError) as info:
        pet.validate_args({"q": {"meow": False, "zzz": 1}})
    text = str(info.value)
    assert "'q.zzz'" in text
    assert "'q.meow' is not an allowed field" not in text, text


# ----------------------------------------------------------------------------------------- 11. nullable aliases


MaybeInt = TypeAliasType("MaybeInt", int | None)


def test_a_null_for_a_nullable_alias_reaches_the_function() -> None:
    @tool
    def pick(m: MaybeInt = 3, anything: object = 5) -> str:
        """Pick."""
        return repr((m, anything))

    assert {"type": "null"} in pick.parameters["properties"]["m"]["anyOf"]
    assert pick.invoke({"m": None, "anything": None}) == "(None, None)"


# ----------------------------------------------------------------------------------------- 12. Annotated in TypedDict


class Filter(TypedDict):
    """A filter on one field."""

    field: Annotated[str, "the field name"]
    value: Annotated[int, "the value to match"]


def test_annotated_string_descriptions_of_typeddict_fields_are_kept() -> None:
    @tool
    def query(where: Filter) -> str:
        """Query rows."""
        return json.dumps(where)

    props = query.parameters["properties"]["where"]["properties"]
    assert props["field"].get("description") == "the field name"
    assert props["value"].get("description") == "the value to match"
