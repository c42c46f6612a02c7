"""toolwire.schema: function signature + docstring -> JSON Schema of the arguments, and its validator.

Written from issue [1]: types through pydantic, descriptions through a real docstring parser, $ref
inlined, recursive types refused, self/cls/*args/**kwargs left out, unknown keys refused.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import keyword
import typing
from typing import Annotated, Any, Literal, Optional, Union

import pytest
import typing_extensions
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field

from toolwire import SchemaError, Tool, ToolValidationError, tool
from toolwire.schema import drop_defaulted_nulls, function_schema, inline_refs, model_schema, null_plan

# -- types defined at module level, so string annotations resolve ------------------------------------


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Priority(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Address(BaseModel):
    city: str
    zip_code: str = ""


class Order(BaseModel):
    ship_to: Address
    bill_to: Address | None = None


class Node(BaseModel):
    value: int
    children: list[Node] = []


Node.model_rebuild()


class KindA(BaseModel):
    kind: Literal["a"]
    x: int = 1


class KindB(BaseModel):
    kind: Literal["b"]
    y: str = "q"


class Zed(BaseModel):
    z: int = 3


@dataclasses.dataclass
class Point:
    x: int
    y: int = 0


class MovieTD(typing.TypedDict):
    title: typing.Required[str]
    year: typing.NotRequired[int]


class PartialTD(typing.TypedDict, total=False):
    title: typing.Required[str]
    rating: float


class ExtTD(typing_extensions.TypedDict):
    name: str
    tags: typing_extensions.NotRequired[list[str]]


def params(func: Any) -> dict[str, Any]:
    return function_schema(func, func.__name__).parameters


# -- the shape of the schema ----------------------------------------------------------------------


def test_scalar_types_map_to_json_schema_types() -> None:
    def f(s: str, i: int, x: float, b: bool) -> None:
        """F."""

    assert params(f) == {
        "type": "object",
        "properties": {
            "s": {"type": "string"},
            "i": {"type": "integer"},
            "x": {"type": "number"},
            "b": {"type": "boolean"},
        },
        "required": ["s", "i", "x", "b"],
        "additionalProperties": False,  # unknown keys are refused (review 40 #5)
    }


def test_generic_containers() -> None:
    def f(a: list[int], d: dict[str, int], t: tuple[int, str], s: set[str]) -> None:
        """F."""

    props = params(f)["properties"]
    assert props["a"] == {"type": "array", "items": {"type": "integer"}}
    assert props["d"] == {"type": "object", "additionalProperties": {"type": "integer"}}
    assert props["t"] == {
        "type": "array",
        "prefixItems": [{"type": "integer"}, {"type": "string"}],
        "minItems": 2,
        "maxItems": 2,
    }
    assert props["s"] == {"type": "array", "items": {"type": "string"}, "uniqueItems": True}


def test_optional_union_and_pipe_none() -> None:
    def f(a: Optional[int], b: int | None, c: Union[int, str], d: str | None = None) -> None:  # noqa: UP007, UP045
        """F."""

    schema = params(f)
    nullable_int = {"anyOf": [{"type": "integer"}, {"type": "null"}]}
    assert schema["properties"]["a"] == nullable_int
    assert schema["properties"]["b"] == nullable_int
    assert schema["properties"]["c"] == {"anyOf": [{"type": "integer"}, {"type": "string"}]}
    assert schema["properties"]["d"] == {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None}
    # Optional without a default is still required: the model must say null explicitly
    assert schema["required"] == ["a", "b", "c"]


def test_literal_and_enums() -> None:
    def f(mode: Literal["fast", "slow"], color: Color, level: Priority, n: Literal[1, 2] = 1) -> None:
        """F."""

    props = params(f)["properties"]
    assert props["mode"] == {"type": "string", "enum": ["fast", "slow"]}
    assert props["color"] == {"type": "string", "enum": ["red", "blue"]}
    assert props["level"] == {"type": "integer", "enum": [1, 2]}
    assert props["n"] == {"type": "integer", "enum": [1, 2], "default": 1}


def test_nested_pydantic_model_is_inlined_without_refs_or_titles() -> None:
    def f(order: Order) -> None:
        """F."""

    schema = params(f)
    address = {
        "type": "object",
        "properties": {"city": {"type": "string"}, "zip_code": {"type": "string", "default": ""}},
        "required": ["city"],
        "additionalProperties": False,
    }
    assert schema["properties"]["order"] == {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "ship_to": address,
            "bill_to": {"anyOf": [address, {"type": "null"}], "default": None},
        },
        "required": ["ship_to"],
    }
    text = repr(schema)
    assert "$ref" not in text and "$defs" not in text and "'title'" not in text


def test_a_property_named_title_is_kept() -> None:
    def f(title: str, ref: str = "x") -> None:
        """F."""

    assert list(params(f)["properties"]) == ["title", "ref"]


def test_dataclass_parameter() -> None:
    def f(p: Point) -> str:
        """F."""
        return f"{p.x},{p.y}"

    schema = dict(params(f)["properties"]["p"])
    # pydantic >= 2.14 writes the tool's extra="forbid" into nested dataclasses' schemas, older ones
    # do not; a dataclass refuses unknown keys either way (asserted below)
    assert schema.pop("additionalProperties", False) is False
    assert schema == {
        "type": "object",
        "properties": {"x": {"type": "integer"}, "y": {"type": "integer", "default": 0}},
        "required": ["x"],
    }
    t = tool(f)
    assert t.invoke({"p": {"x": "3"}}) == "3,0"
    with pytest.raises(ToolValidationError, match=r"'p\.z'"):
        t.invoke({"p": {"x": 1, "z": 2}})


def test_typing_typeddict_with_required_and_not_required_works_on_311() -> None:
    def f(movie: MovieTD, part: PartialTD, ext: ExtTD) -> dict:
        """F."""
        return {"movie": movie, "part": part, "ext": ext}

    props = params(f)["properties"]
    assert props["movie"]["properties"] == {"title": {"type": "string"}, "year": {"type": "integer"}}
    assert props["movie"]["required"] == ["title"]
    assert props["part"]["properties"] == {"title": {"type": "string"}, "rating": {"type": "number"}}
    assert props["part"]["required"] == ["title"]
    assert props["ext"]["required"] == ["name"]
    result = tool(f).invoke({"movie": {"title": "Up"}, "part": {"title": "X", "rating": 2},
                             "ext": {"name": "n", "tags": ["a"]}})
    assert result == {"movie": {"title": "Up"}, "part": {"title": "X", "rating": 2.0},
                      "ext": {"name": "n", "tags": ["a"]}}


def test_functional_typeddict_keeps_its_required_keys() -> None:
    # built from real types, not strings: __required_keys__ are right and must be kept
    Functional = typing.TypedDict("Functional", {"a": typing.NotRequired[int], "b": str})  # noqa: UP013

    def f(value: Functional) -> dict:  # type: ignore[valid-type]
        """F."""
        return value

    f.__annotations__["value"] = Functional
    assert params(f)["properties"]["value"]["required"] == ["b"]
    assert tool(f).invoke({"value": {"b": "x"}}) == {"b": "x"}


def test_typeddict_missing_required_key_is_a_validation_error() -> None:
    def f(movie: MovieTD) -> None:
        """F."""

    with pytest.raises(ToolValidationError, match=r"'movie\.title' is required but missing"):
        tool(f).invoke({"movie": {"year": 1999}})


def test_annotated_string_and_field_descriptions_and_constraints() -> None:
    def f(
        a: Annotated[int, "how many"],
        b: Annotated[int, Field(description="at least one", ge=1)],
        c: Annotated[str, Field(max_length=3)] = "abc",
    ) -> None:
        """F.

        Args:
            a: docstring text loses to Annotated.
            c: the code.
        """

    props = params(f)["properties"]
    assert props["a"] == {"type": "integer", "description": "how many"}
    assert props["b"] == {"type": "integer", "description": "at least one", "minimum": 1}
    assert props["c"] == {"type": "string", "maxLength": 3, "description": "the code.", "default": "abc"}
    with pytest.raises(ToolValidationError, match="'b'"):
        tool(f).invoke({"a": 1, "b": 0})


def test_defaults_are_advertised_and_not_required() -> None:
    def f(q: str, k: int = 5, tags: list[str] | None = None, color: Color = Color.RED) -> None:
        """F."""

    schema = params(f)
    assert schema["required"] == ["q"]
    assert schema["properties"]["k"]["default"] == 5
    assert schema["properties"]["tags"]["default"] is None
    assert schema["properties"]["color"]["default"] == "red"


def test_a_parameter_without_a_hint_takes_any_value() -> None:
    def f(x, y=3) -> None:
        """F."""

    assert params(f) == {"type": "object", "properties": {"x": {}, "y": {"default": 3}}, "required": ["x"],
                         "additionalProperties": False}


def test_zero_parameters_give_an_empty_object_schema() -> None:
    def reset() -> str:
        """Reset."""
        return "ok"

    assert params(reset) == {"type": "object", "properties": {}, "additionalProperties": False}


# -- left out: self, cls, *args, **kwargs ----------------------------------------------------------


class Finder:
    def find(self, term: str, *args: Any, **kwargs: Any) -> str:
        """Find.

        Args:
            term: text
        """
        return term

    @classmethod
    def make(cls, size: int, **options: Any) -> int:
        """Make."""
        return size


def test_self_cls_args_kwargs_are_left_out() -> None:
    expected = {"type": "object", "properties": {"term": {"type": "string", "description": "text"}},
                "required": ["term"], "additionalProperties": False}
    from toolwire.errors import ToolDefinitionWarning

    with pytest.warns(ToolDefinitionWarning, match="left out of its schema"):
        assert function_schema(Finder.find, "find").parameters == expected
        assert function_schema(Finder().find, "find").parameters == expected
        assert function_schema(Finder.make, "make").parameters == {
            "type": "object", "properties": {"size": {"type": "integer"}}, "required": ["size"],
            "additionalProperties": False}


def test_keyword_only_and_positional_only_parameters() -> None:
    def f(a: int, /, b: int, *, c: int = 1) -> int:
        """F."""
        return a * 100 + b * 10 + c

    schema = params(f)
    assert list(schema["properties"]) == ["a", "b", "c"]
    assert schema["required"] == ["a", "b"]
    assert tool(f).invoke({"a": 1, "b": 2, "c": 3}) == 123


def test_a_partial_describes_the_wrapped_function_and_hides_the_keywords_it_fixes() -> None:
    def search(query: str, limit: int = 10, api: str = "prod") -> str:
        """Search the product catalogue.

        Args:
            query: words to look for.
            limit: the most results.
            api: which backend.
        """
        return f"{query} {limit} {api}"

    bound = Tool.from_function(functools.partial(functools.partial(search, api="test"), limit=3), name="search")
    assert bound.description == "Search the product catalogue."
    assert bound.parameters == {"type": "object", "required": ["query"],
                                "properties": {"query": {"type": "string", "description": "words to look for."}},
                                "additionalProperties": False}
    assert bound.invoke({"query": "pens"}) == "pens 3 test"
    with pytest.raises(ToolValidationError, match="'api' is not a parameter of this tool"):
        bound.invoke({"query": "pens", "api": "prod"})


def test_partial_callable_instance_and_decorated_function() -> None:
    def mul(a: int, b: int) -> int:
        """Multiply two numbers."""
        return a * b

    double = Tool.from_function(functools.partial(mul, b=2), name="double", description="Double a number.")
    assert double.parameters["required"] == ["a"]
    assert double.invoke({"a": "21"}) == 42

    class Counter:
        """Count characters."""

        def __call__(self, text: str) -> int:
            return len(text)

    counter = Tool.from_function(Counter(), name="count")
    assert counter.description == "Count characters."
    assert counter.parameters == {"type": "object", "properties": {"text": {"type": "string"}},
                                  "required": ["text"], "additionalProperties": False}
    assert counter.invoke({"text": "abcd"}) == 4

    def logged(func: Any) -> Any:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            return func(*args, **kwargs)
        return wrapper

    @logged
    def greet(name: str, punct: str = "!") -> str:
        """Greet someone."""
        return "hi " + name + punct

    t = tool(greet)
    assert t.parameters["properties"] == {"name": {"type": "string"}, "punct": {"type": "string", "default": "!"}}
    assert t.invoke({"name": "Ann"}) == "hi Ann!"


# -- docstrings -------------------------------------------------------------------------------------


def test_google_numpy_sphinx_docstrings_give_the_same_descriptions() -> None:
    def google(q: str, k: int = 5) -> list:
        """Search the index.

        Uses BM25 over the titles.

        Args:
            q: the query text.
            k: how many hits to return.

        Returns:
            The hits, best first.

        Raises:
            ValueError: when q is empty.
        """
        return []

    def numpy(q: str, k: int = 5) -> list:
        """Search the index.

        Uses BM25 over the titles.

        Parameters
        ----------
        q : str
            the query text.
        k : int, optional
            how many hits to return.

        Returns
        -------
        list
            The hits, best first.

        Raises
        ------
        ValueError
            when q is empty.
        """
        return []

    def sphinx(q: str, k: int = 5) -> list:
        """Search the index.

        Uses BM25 over the titles.

        :param q: the query text.
        :param k: how many hits to return.
        :returns: The hits, best first.
        :raises ValueError: when q is empty.
        """
        return []

    for func in (google, numpy, sphinx):
        schema = function_schema(func, func.__name__)
        assert schema.description == "Search the index.\n\nUses BM25 over the titles.", func.__name__
        assert schema.parameters == {
            "type": "object",
            "properties": {
                "q": {"type": "string", "description": "the query text."},
                "k": {"type": "integer", "description": "how many hits to return.", "default": 5},
            },
            "required": ["q"],
            "additionalProperties": False,
        }, func.__name__


def test_typed_google_args_and_typed_sphinx_params() -> None:
    def google(q: str, k: int = 2) -> None:
        """Search.

        Args:
            q (str): the query.
            k (int, optional): how many. Defaults to 2.

        Yields:
            hits.
        """

    def sphinx(q: str) -> None:
        """
        Search with a leading newline.

        :param str q: the query.
        :raises KeyError: never.
        """

    first = function_schema(google, "google")
    assert first.description == "Search."
    assert first.parameters["properties"] == {
        "q": {"type": "string", "description": "the query."},
        "k": {"type": "integer", "description": "how many. Defaults to 2.", "default": 2}}
    second = function_schema(sphinx, "sphinx")
    assert second.description == "Search with a leading newline."
    assert second.parameters["properties"] == {"q": {"type": "string", "description": "the query."}}


def test_summary_only_docstring_and_multiline_param_description() -> None:
    def f(path: str) -> None:
        """Read a file.

        Args:
            path: where the file is,
                relative to the project root.
        """

    schema = function_schema(f, "f")
    assert schema.description == "Read a file."
    assert schema.parameters["properties"]["path"]["description"] == \
        "where the file is,\nrelative to the project root."


def test_parse_docstring_false_keeps_only_the_description() -> None:
    def f(q: str) -> None:
        """Search.

        Args:
            q: the query.
        """

    schema = function_schema(f, "f", parse_docstring=False)
    assert schema.parameters["properties"]["q"] == {"type": "string"}
    assert schema.description == "Search."


# -- $ref and recursion -----------------------------------------------------------------------------


def test_recursive_model_is_a_clear_error_at_definition_time() -> None:
    def tree(root: Node) -> None:
        """Walk a tree."""

    with pytest.raises(SchemaError, match="'Node' refers to itself"):
        tool(tree)


def test_inline_refs_replaces_refs_and_keeps_siblings() -> None:
    schema = {
        "$defs": {"A": {"title": "A", "type": "object", "properties": {"v": {"type": "integer"}}}},
        "title": "Top",
        "type": "object",
        "properties": {
            "one": {"$ref": "#/$defs/A", "description": "first"},
            "two": {"type": "array", "items": {"$ref": "#/$defs/A"}},
        },
    }
    before = repr(schema)
    out = inline_refs(schema)
    a = {"type": "object", "properties": {"v": {"type": "integer"}}}
    assert out == {"type": "object", "properties": {"one": {**a, "description": "first"},
                                                    "two": {"type": "array", "items": a}}}
    assert repr(schema) == before  # the input is not changed


def test_inline_refs_undefined_ref_is_an_error() -> None:
    with pytest.raises(SchemaError, match="does not define"):
        inline_refs({"type": "object", "properties": {"a": {"$ref": "#/$defs/Missing"}}})


def test_unresolvable_hint_is_a_schema_error() -> None:
    def f(x: NoSuchType) -> None:  # type: ignore[name-defined]  # noqa: F821
        """F."""

    with pytest.raises(SchemaError, match="Cannot resolve the type hints of 'f'"):
        function_schema(f, "f")


def test_type_without_json_schema_is_a_schema_error() -> None:
    class Opaque:
        pass

    def f(x: Opaque) -> None:
        """F."""

    f.__annotations__["x"] = Opaque
    with pytest.raises(SchemaError, match="Cannot build a JSON Schema for tool 'f'"):
        function_schema(f, "f")


# -- validation -------------------------------------------------------------------------------------


def test_validation_is_lax_and_refuses_unknown_keys() -> None:
    def f(k: int, ratio: float = 0.5) -> tuple:
        """F."""
        return (k, ratio)

    schema = function_schema(f, "f")
    assert schema.validate({"k": "5"}) == {"k": 5}
    assert schema.validate({"k": 5, "ratio": "2"}) == {"k": 5, "ratio": 2.0}
    with pytest.raises(ToolValidationError) as info:
        schema.validate({"k": 1, "kk": 2})
    assert str(info.value) == ("Invalid arguments for tool 'f': 'kk' is not a parameter of this tool (got 2). "
                               "Its parameters are: k, ratio.")


def test_validation_message_names_field_expected_and_received() -> None:
    def f(k: int, mode: Literal["a", "b"]) -> None:
        """F."""

    with pytest.raises(ToolValidationError) as info:
        function_schema(f, "f").validate({"k": "many", "mode": "c"})
    text = str(info.value)
    assert text.startswith("Invalid arguments for tool 'f': ")
    assert "'k': Input should be a valid integer, unable to parse string as an integer (got 'many')" in text
    assert "'mode': Input should be 'a' or 'b' (got 'c')" in text
    assert info.value.tool_name == "f"


def test_model_schema_from_args_schema_class() -> None:
    class SearchArgs(BaseModel):
        """Search the web."""

        query: str = Field(description="what to look for")
        limit: int = 10

    schema = model_schema(SearchArgs, "search")
    assert schema.description == "Search the web."
    assert schema.parameters == {
        "type": "object",
        "properties": {"query": {"type": "string", "description": "what to look for"},
                       "limit": {"type": "integer", "default": 10}},
        "required": ["query"],
        "additionalProperties": False,
    }
    assert schema.validate({"query": "q"}) == {"query": "q", "limit": 10}
    with pytest.raises(ToolValidationError, match="'extra' is not a parameter"):
        schema.validate({"query": "q", "extra": 1})


def test_model_schema_with_extra_allow_passes_the_extra_arguments_on() -> None:
    class Loose(BaseModel):
        """Loose."""

        model_config = {"extra": "allow"}
        a: int

    assert model_schema(Loose, "loose").validate({"a": "1", "b": 2}) == {"a": 1, "b": 2}


# -- nulls for defaulted values ---------------------------------------------------------------------


def test_null_plan_finds_defaulted_non_nullable_values_at_every_level() -> None:
    def f(order: Order, note: str = "", limit: int | None = 3) -> None:
        """F."""

    schema = function_schema(f, "f")
    assert schema.defaulted_non_nullable == frozenset({"note"})
    plan = schema.null_plan
    assert plan == {
        "drop": frozenset({"note"}),
        "props": {"order": {"props": {"ship_to": {"drop": frozenset({"zip_code"})},
                                      "bill_to": {"drop": frozenset({"zip_code"})}}}},
    }
    args = {"order": {"ship_to": {"city": "Oslo", "zip_code": None}, "bill_to": None}, "note": None,
            "limit": None}
    assert drop_defaulted_nulls(args, plan) == {
        "order": {"ship_to": {"city": "Oslo"}, "bill_to": None}, "limit": None}
    assert args["note"] is None  # the input is not changed
    unchanged = {"order": {"ship_to": {"city": "Oslo"}}}
    assert drop_defaulted_nulls(unchanged, plan) is unchanged


def test_null_plan_through_lists_and_dict_values() -> None:
    schema = {"type": "object", "properties": {
        "points": {"type": "array", "items": {"type": "object", "properties": {"y": {"type": "integer"}}}},
        "by_name": {"type": "object", "additionalProperties": {
            "type": "object", "properties": {"y": {"type": "integer"}}}},
    }, "required": ["points", "by_name"]}
    plan = null_plan(schema)
    value = {"points": [{"y": None}, {"y": 1}], "by_name": {"a": {"y": None}}}
    assert drop_defaulted_nulls(value, plan) == {"points": [{}, {"y": 1}], "by_name": {"a": {}}}
    assert null_plan({"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}) is None


def _strict_call(t: Tool, args: dict[str, Any]) -> Any:
    """Invoke ``t`` as a tool call (the way an agent runs a model's call)."""
    return t.invoke({"name": t.name, "args": args, "id": "c1", "type": "tool_call"})


def test_null_plan_drops_nulls_in_the_matching_branch_of_a_union_of_models() -> None:
    # review 3 #3: OpenAI strict mode makes x and y required-and-nullable inside each branch of KindA | KindB
    @tool
    def pick(item: KindA | KindB, items: list[KindA | KindB] | None = None) -> str:
        """Pick."""
        return repr((item, items))

    from toolwire.models.lowering.openai import convert_to_openai_tool

    strict = convert_to_openai_tool(pick, strict=True)["function"]["parameters"]
    assert strict["properties"]["item"]["anyOf"][0]["properties"]["x"] == {"type": ["integer", "null"],
                                                                          "description": "Default: 1."}
    done = _strict_call(pick, {"item": {"kind": "a", "x": None}, "items": None})
    assert done.status == "success" and done.content == repr((KindA(kind="a", x=1), None))
    done = _strict_call(pick, {"item": {"kind": "b", "y": None},
                               "items": [{"kind": "a", "x": None}, {"kind": "b", "y": None}, {"kind": "a", "x": 7}]})
    assert done.status == "success"
    assert done.content == repr((KindB(kind="b", y="q"), [KindA(kind="a", x=1), KindB(kind="b", y="q"),
                                                          KindA(kind="a", x=7)]))
    # a value that is neither branch is left as it is, for validation to name
    bad = _strict_call(pick, {"item": {"kind": "c", "x": None}})
    assert bad.status == "error" and "item" in bad.content


def test_null_plan_union_with_a_discriminator_and_a_nested_optional_union() -> None:
    @tool
    def pick(item: Annotated[KindA | KindB, Field(discriminator="kind")], maybe: KindA | KindB | None = None) -> str:
        """Pick."""
        return repr((item, maybe))

    done = _strict_call(pick, {"item": {"kind": "b", "y": None}, "maybe": {"kind": "a", "x": None}})
    assert done.status == "success" and done.content == repr((KindB(kind="b", y="q"), KindA(kind="a", x=1)))


def test_null_plan_drops_nulls_in_tuple_prefix_items() -> None:
    @tool
    def pair(p: tuple[Zed, int], rest: tuple[int, Zed] = (0, Zed())) -> str:
        """Pair."""
        return repr((p, rest))

    done = _strict_call(pair, {"p": [{"z": None}, 1], "rest": [2, {"z": None}]})
    assert done.status == "success" and done.content == repr(((Zed(z=3), 1), (2, Zed(z=3))))
    plan = null_plan({"type": "array", "prefixItems": [{"type": "integer"}, {"type": "object", "properties": {
        "z": {"type": "integer"}}}], "items": {"type": "object", "properties": {"w": {"type": "integer"}}}})
    assert drop_defaulted_nulls([None, {"z": None, "w": None}, {"z": None, "w": None}], plan) == [
        None, {"w": None}, {"z": None}]


def test_null_plan_union_branch_choice_and_ambiguity() -> None:
    one = {"type": "object", "properties": {"x": {"type": "integer"}, "k": {"type": "string"}}}
    two = {"type": "object", "properties": {"x": {"type": ["integer", "null"]}, "k": {"type": "string"},
                                            "y": {"type": "integer"}}}
    plan = null_plan({"type": "object", "properties": {"v": {"anyOf": [one, two]}}, "required": ["v"]})
    assert plan is not None
    # the keys tell the branches apart: {x, k} is exactly `one`, {x, k, y} exactly `two` (which takes null x)
    assert drop_defaulted_nulls({"v": {"x": None, "k": None}}, plan) == {"v": {}}
    assert drop_defaulted_nulls({"v": {"x": None, "k": "s", "y": None}}, plan) == {"v": {"x": None, "k": "s"}}
    # {x} could be either: a null goes only where both branches would drop it (k, not x)
    assert drop_defaulted_nulls({"v": {"x": None}}, plan) == {"v": {"x": None}}
    value = {"v": {"k": None}}
    assert drop_defaulted_nulls(value, plan) == {"v": {}} and value == {"v": {"k": None}}
    # scalars, lists and unknown shapes in an object union are left alone
    for other in ({"v": 3}, {"v": [None]}, {"v": None}):
        assert drop_defaulted_nulls(other, plan) is other


def test_null_plan_union_keeps_the_outer_object_properties() -> None:
    schema = {"type": "object", "properties": {"speed": {"type": "number"}, "note": {"type": "string"}},
              "required": ["speed"], "oneOf": [
                  {"type": "object", "properties": {"x": {"type": "number"}, "n": {"type": "integer"}},
                   "required": ["x"]},
                  {"type": "object", "properties": {"target": {"type": "string"}}, "required": ["target"]}]}
    plan = null_plan(schema)
    assert drop_defaulted_nulls({"speed": 1, "note": None, "x": 2, "n": None}, plan) == {"speed": 1, "x": 2}
    assert drop_defaulted_nulls({"speed": 1, "note": None, "target": "t"}, plan) == {"speed": 1, "target": "t"}


def test_null_plan_union_without_droppable_nulls_adds_no_plan() -> None:
    def f(a: int | str, b: KindA | Zed | None = None, c: list[int] | dict[str, int] | None = None) -> None:
        """F."""

    def g(a: int | str, c: list[int] | dict[str, int] | None = None) -> None:
        """G."""

    assert function_schema(g, "g").null_plan is None
    assert "union" in function_schema(f, "f").null_plan["props"]["b"]
    assert null_plan({"anyOf": [{"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]},
                                {"type": "string"}]}) is None


# -- once, at definition time -----------------------------------------------------------------------


def test_schema_is_frozen_per_tool_and_not_shared_between_tools() -> None:
    def f(a: int = 1) -> int:
        """F."""
        return a

    one, two = tool(f), tool(f)
    one.parameters["properties"]["a"]["default"] = 99
    assert two.parameters["properties"]["a"]["default"] == 1


# -- property-based: random signatures ---------------------------------------------------------------

_TYPES: dict[str, st.SearchStrategy[Any]] = {
    "str": st.text(max_size=8),
    "int": st.integers(-(10**6), 10**6),
    "float": st.floats(allow_nan=False, allow_infinity=False, width=32),
    "bool": st.booleans(),
    "list[int]": st.lists(st.integers(-100, 100), max_size=4),
    "dict[str, int]": st.dictionaries(st.text(max_size=4), st.integers(-100, 100), max_size=3),
    "Literal['a', 'b', 'c']": st.sampled_from(["a", "b", "c"]),
    "Literal[1, 2]": st.sampled_from([1, 2]),
}
_NAMES = st.from_regex(r"[a-z][a-z0-9_]{0,7}", fullmatch=True).filter(
    lambda n: not keyword.iskeyword(n) and n not in ("self", "cls") and not n.startswith("__"))


@st.composite
def _signatures(draw: st.DrawFn) -> tuple[list[tuple[str, str, bool, Any]], dict[str, Any]]:
    names = draw(st.lists(_NAMES, min_size=0, max_size=6, unique=True))
    spec: list[tuple[str, str, bool, Any]] = []
    seen_default = False
    for name in names:
        type_name = draw(st.sampled_from(sorted(_TYPES)))
        optional = draw(st.booleans())
        values = _TYPES[type_name]
        if optional:
            type_name = f"Optional[{type_name}]"
            values = st.none() | values
        # Python requires defaults after the first defaulted parameter (positional-or-keyword)
        has_default = seen_default or draw(st.booleans())
        seen_default = seen_default or has_default
        default = draw(values) if has_default else None
        spec.append((name, type_name, has_default, default))
    args: dict[str, Any] = {}
    for name, type_name, has_default, _ in spec:
        strategy = _TYPES[type_name.removeprefix("Optional[").removesuffix("]")] \
            if type_name.startswith("Optional[") else _TYPES[type_name]
        if type_name.startswith("Optional["):
            strategy = st.none() | strategy
        if not has_default or draw(st.booleans()):
            args[name] = draw(strategy)
    return spec, args


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_signatures())
def test_random_signatures_give_matching_schema_and_validation(
    generated: tuple[list[tuple[str, str, bool, Any]], dict[str, Any]],
) -> None:
    spec, args = generated
    params_src = ", ".join(
        f"{name}: {type_name}" + (f" = {default!r}" if has_default else "")
        for name, type_name, has_default, default in spec
    )
    names = [name for name, *_ in spec]
    body = "{" + ", ".join(f"{n!r}: {n}" for n in names) + "}"
    source = f'def generated({params_src}):\n    """A generated function."""\n    return {body}\n'
    namespace: dict[str, Any] = {"Optional": Optional, "Literal": Literal}
    exec(source, namespace)  # the test writes this source itself
    generated_tool = tool(namespace["generated"])

    schema = generated_tool.parameters
    assert schema["type"] == "object"
    assert list(schema["properties"]) == names
    assert schema.get("required", []) == [name for name, _, has_default, _ in spec if not has_default]
    for name, _, has_default, default in spec:
        if has_default:
            assert schema["properties"][name]["default"] == default

    expected = {name: default for name, _, has_default, default in spec if has_default}
    expected.update(args)
    assert generated_tool.invoke(args) == expected
    assert generated_tool.invoke(dict(args)) == expected  # the same again: nothing kept between calls


def test_field_as_default_keeps_its_constraint_description_and_default() -> None:
    from pydantic import Field

    def f(n: int = Field(3, ge=0, description="how many"), m: int = Field(description="req"),
          k: list[int] = Field(default_factory=list)) -> str:  # noqa: B008
        """F."""
        return repr((n, m, k))

    t = tool(f)
    assert t.parameters["properties"]["n"] == {"default": 3, "description": "how many", "minimum": 0,
                                               "type": "integer"}
    assert t.parameters["required"] == ["m"]
    assert t.invoke({"m": 1}) == "(3, 1, [])"  # the default, not the FieldInfo object
    with pytest.raises(ToolValidationError, match="greater than or equal to 0"):
        t.invoke({"m": 1, "n": -1})
    first, second = t.invoke({"m": 1}), t.invoke({"m": 1})
    assert first == second  # a mutable default is copied per call


def test_non_finite_defaults_are_not_advertised_and_other_non_finite_numbers_are_refused() -> None:
    import json

    def find_shops(city: str, max_km: float = float("inf"), ratio: float = float("nan"),
                   steps: tuple[float, ...] = (1.0, float("-inf"))) -> str:
        """Find shops."""
        return f"{city} {max_km}"

    shops = tool(find_shops)
    json.dumps(shops.parameters, allow_nan=False)  # what providers need
    assert "default" not in shops.parameters["properties"]["max_km"]
    assert "default" not in shops.parameters["properties"]["steps"]
    assert shops.invoke({"city": "Porto"}) == "Porto inf"

    class Box(BaseModel):
        size: float = Field(float("inf"), json_schema_extra={"maximum": float("inf")})

    with pytest.raises(SchemaError, match="holds inf at /properties/size/maximum, which JSON cannot carry"):
        Tool.from_function(lambda size=1.0: size, name="box", description="Box.", args_schema=Box)
