"""Schema fixes from review 6: ``title`` only dropped where it is a keyword, JSON-pointer ``$ref``s, no dangling
``discriminator`` after inlining, ``self``/``cls`` in plain functions, validation message paths, descriptions
from ``Keyword Args``, nested ``Annotated`` and ``__call__``, and a ``$defs`` key in a default."""

from __future__ import annotations

import datetime
import json
from typing import Annotated, Any, Literal, Optional, Union

import pytest
from pydantic import BaseModel, Field

import toolwire.schema as schema_mod
from toolwire import tool
from toolwire.errors import SchemaError, ToolValidationError
from toolwire.interop import tool_from_schema
from toolwire.schema import function_schema, inline_refs


def general_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make function_schema take pydantic's general path (the fast path refuses everything)."""

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise schema_mod.Unsupported

    monkeypatch.setattr(schema_mod, "fast_function_schema", refuse)


# -- finding 2: "title" is dropped only where it is a schema keyword ---------------------------------------


def test_inline_refs_keeps_title_keys_inside_data() -> None:
    schema = {
        "title": "Args", "type": "object",
        "$defs": {"Sort": {"title": "Sort", "enum": [{"title": "asc"}, {"title": "desc"}]}},
        "properties": {
            "sort": {"$ref": "#/$defs/Sort", "default": {"title": "asc"}},
            "mode": {"title": "Mode", "const": {"title": "x"}, "examples": [{"title": "shown"}]},
            "title": {"title": "Title", "type": "string", "x-extra": {"title": "vendor data"}},
        },
    }
    out = inline_refs(schema)
    assert out == {"type": "object", "properties": {
        "sort": {"enum": [{"title": "asc"}, {"title": "desc"}], "default": {"title": "asc"}},
        "mode": {"const": {"title": "x"}, "examples": [{"title": "shown"}]},
        "title": {"type": "string", "x-extra": {"title": "vendor data"}},
    }}
    out["properties"]["sort"]["enum"][0]["title"] = "changed"  # a copy: the input is not changed
    assert schema["$defs"]["Sort"]["enum"][0] == {"title": "asc"}


def test_enum_of_objects_with_title_still_validates() -> None:
    t = tool_from_schema({"name": "g", "description": "G.", "parameters": {
        "type": "object", "properties": {"sort": {"enum": [{"title": "asc"}, {"title": "desc"}]}},
        "required": ["sort"]}}, lambda **k: k)
    assert t.parameters["properties"]["sort"]["enum"] == [{"title": "asc"}, {"title": "desc"}]
    assert t.invoke({"sort": {"title": "asc"}}) == {"sort": {"title": "asc"}}
    with pytest.raises(ToolValidationError):
        t.invoke({"sort": {}})


class Doc(BaseModel):
    title: str = "Untitled"
    meta: dict[str, str] = {"title": "T"}
    tags: list[str] = Field(default=[], examples=[["a"]], description="tags")


class Shown(BaseModel):
    x: int = Field(examples=[{"title": "shown", "b": 1, "a": 2}], description="an x")


def _doc_tool(doc: Doc, shown: Shown) -> str:
    """Doc."""
    return doc.title


@pytest.mark.parametrize("path", ["fast", "general"])
def test_titles_in_model_defaults_and_examples_are_kept(path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if path == "general":
        general_only(monkeypatch)
    else:
        used = []
        real = schema_mod.fast_function_schema
        monkeypatch.setattr(schema_mod, "fast_function_schema", lambda *a: used.append(1) or real(*a))
    props = function_schema(_doc_tool, "doc_tool").parameters["properties"]
    assert props["doc"]["properties"]["meta"]["default"] == {"title": "T"}
    assert "title" in props["doc"]["properties"]  # the field named title
    assert "title" not in props["doc"]["properties"]["title"]  # its "title" keyword
    assert props["shown"]["properties"]["x"]["examples"] == [{"a": 2, "b": 1, "title": "shown"}]  # sorted as pydantic
    if path == "fast":
        assert used


def test_title_in_field_examples_of_a_parameter_is_kept() -> None:
    def f(ex: str = Field("a", examples=[{"title": "shown"}])) -> str:
        """F."""
        return ex

    assert function_schema(f, "f").parameters["properties"]["ex"]["examples"] == [{"title": "shown"}]


def test_fast_and_general_paths_agree_on_data_with_titles(monkeypatch: pytest.MonkeyPatch) -> None:
    def f(doc: Doc, shown: Shown, meta: dict[str, Any] | None = None) -> None:
        """F."""

    fast = function_schema(f, "f").parameters
    general_only(monkeypatch)
    assert json.dumps(function_schema(f, "f").parameters) == json.dumps(fast)


# -- finding 9: a $ref is a JSON pointer ---------------------------------------------------------------------


def test_ref_into_a_definition_and_escaped_names_are_resolved() -> None:
    schema = {
        "type": "object",
        "$defs": {"Outer": {"type": "object", "properties": {"inner": {"type": "string", "enum": ["a", "b"]}}},
                  "a/b": {"type": "integer"}, "c~d": {"type": "boolean"}, "e f": {"type": "number"},
                  "Pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]}},
        "properties": {
            "o": {"$ref": "#/$defs/Outer"},
            "i": {"$ref": "#/$defs/Outer/properties/inner", "description": "the inner one"},
            "slash": {"$ref": "#/$defs/a~1b"}, "tilde": {"$ref": "#/$defs/c~0d"}, "space": {"$ref": "#/$defs/e%20f"},
            "second": {"$ref": "#/$defs/Pair/prefixItems/1"},
        },
    }
    props = inline_refs(schema)["properties"]
    assert props["i"] == {"type": "string", "enum": ["a", "b"], "description": "the inner one"}
    assert props["slash"] == {"type": "integer"}
    assert props["tilde"] == {"type": "boolean"}
    assert props["space"] == {"type": "number"}
    assert props["second"] == {"type": "integer"}
    t = tool_from_schema({"name": "s", "description": "S.", "parameters": schema}, lambda **k: k)
    assert t.parameters["properties"]["i"]["enum"] == ["a", "b"]


def test_recursion_through_a_pointer_into_a_definition_is_refused() -> None:
    schema = {"type": "object",
              "$defs": {"Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node/properties/next"}}}},
              "properties": {"n": {"$ref": "#/$defs/Node"}}}
    with pytest.raises(SchemaError, match="refers to itself"):
        inline_refs(schema)


def test_a_ref_to_a_missing_path_says_what_to_fix() -> None:
    with pytest.raises(SchemaError, match=r"'#/\$defs/Outer/properties/nope', which it does not define"):
        inline_refs({"type": "object", "$defs": {"Outer": {"type": "object", "properties": {}}},
                     "properties": {"a": {"$ref": "#/$defs/Outer/properties/nope"}}})


# -- finding 4 (part): no discriminator mapping into inlined $defs -------------------------------------------


class Cat(BaseModel):
    kind: Literal["cat"] = "cat"
    meow: int


class Dog(BaseModel):
    kind: Literal["dog"] = "dog"
    bark: int


def test_discriminator_pointing_into_inlined_defs_is_dropped() -> None:
    @tool
    def pet(p: Annotated[Union[Cat, Dog], Field(discriminator="kind")]) -> str:  # noqa: UP007
        """Pet."""
        return type(p).__name__

    text = json.dumps(pet.parameters)
    assert "discriminator" not in text and "#/$defs" not in text
    branches = pet.parameters["properties"]["p"]["oneOf"]
    assert [b["properties"]["kind"]["const"] for b in branches] == ["cat", "dog"]
    assert pet.invoke({"p": {"kind": "dog", "bark": 1}}) == "Dog"


def test_discriminator_without_a_mapping_into_defs_is_kept() -> None:
    disc = {"propertyName": "kind"}
    schema = {"type": "object", "properties": {"p": {"oneOf": [{"type": "object"}], "discriminator": disc}}}
    assert inline_refs(schema)["properties"]["p"]["discriminator"] == disc


# -- finding 10: self/cls are left out only for functions written in a class body ------------------------------


def test_a_plain_function_keeps_a_first_parameter_named_cls_or_self() -> None:
    @tool
    def label(cls: str, text: str) -> str:
        """Label text with a class."""
        return f"{cls}:{text}"

    @tool
    def who(self: str) -> str:
        """Who am I."""
        return self

    assert label.parameters["required"] == ["cls", "text"]
    assert label.invoke({"cls": "spam", "text": "hi"}) == "spam:hi"
    assert list(who.parameters["properties"]) == ["self"]
    assert who.invoke({"self": "me"}) == "me"


def test_methods_still_leave_out_self_and_cls() -> None:
    class Svc:
        def __init__(self, base: int) -> None:
            self.base = base

        @tool
        def add(self, x: int) -> int:
            """Add to base."""
            return self.base + x

        @classmethod
        def make(cls, cls_name: str) -> str:
            """Name it."""
            return cls.__name__ + cls_name

    assert list(Svc.add.parameters["properties"]) == ["x"]
    assert Svc(10).add.invoke({"x": 1}) == 11
    assert list(function_schema(Svc.__dict__["make"].__func__, "make").parameters["properties"]) == ["cls_name"]
    assert list(function_schema(Svc.make, "make").parameters["properties"]) == ["cls_name"]


def test_a_callable_object_keeps_a_first_parameter_named_cls() -> None:
    class Classifier:
        def __call__(self, cls: str, limit: int = 1) -> str:
            """Classify."""
            return cls

    assert list(function_schema(Classifier(), "classify").parameters["properties"]) == ["cls", "limit"]


# -- finding 11: validation messages show paths the model can write -------------------------------------------


def _message(func: Any, args: dict[str, Any]) -> str:
    with pytest.raises(ToolValidationError) as info:
        function_schema(func, func.__name__).validate(args)
    return str(info.value)


def test_union_member_names_are_not_shown_in_paths() -> None:
    def pet(p: Cat | Dog, u: int | datetime.date = 1, many: list[Cat | Dog] | None = None) -> None:
        """Pet."""

    text = _message(pet, {"p": {"kind": "cat"}, "u": [1], "many": [{"meow": "z"}]})
    # (the tag "cat" picks Cat, whose errors alone are given: review 242 #2)
    assert "with kind \"cat\": 'p.meow' is required but missing" in text and "p.bark" not in text, text
    assert "'u': Input should be a valid integer, or input should be a valid date (got [1])" in text
    assert "'many.0.meow': Input should be a valid integer" in text
    for tag in ("Cat", "Dog", ".int", ".date", "list["):
        assert tag not in text, text


def test_discriminated_union_tag_is_not_shown_in_paths() -> None:
    def pick(p: Annotated[Union[Cat, Dog], Field(discriminator="kind")]) -> None:  # noqa: UP007
        """Pick."""

    text = _message(pick, {"p": {"kind": "cat", "meow": "loud"}})
    assert text == ("Invalid arguments for tool 'pick': 'p.meow': Input should be a valid integer, unable to parse "
                    "string as an integer (got 'loud').")


def test_dict_keys_that_look_like_union_members_are_kept() -> None:
    def f(d: dict[str, int], v: dict[str, int] | list[int] | None = None) -> None:
        """F."""

    text = _message(f, {"d": {"int": "x"}, "v": {"a": "y"}})
    assert "'d.int': Input should be a valid integer" in text
    assert "'v.a': Input should be a valid integer" in text
    assert "'v': Input should be a valid list (got {'a': 'y'})" in text


def test_unknown_argument_message_lists_the_aliases_the_model_sees() -> None:
    def route(from_: Annotated[str, Field(alias="from")], to: str) -> str:
        """Route."""
        return from_ + to

    text = _message(route, {"from_": "A", "to": "B"})
    assert text == ("Invalid arguments for tool 'route': 'from' is required but missing; 'from_' is not a parameter "
                    "of this tool (got 'A'). Its parameters are: from, to.")

    class Args(BaseModel):
        """Route args."""

        from_: str = Field(alias="from")
        to: str

    @tool(args_schema=Args)
    def route2(from_: str, to: str) -> str:
        """Route."""
        return from_ + to

    with pytest.raises(ToolValidationError, match=r"Its parameters are: from, to\.$"):
        route2.invoke({"from": "A", "to": "B", "via": "C"})


# -- finding 12: descriptions from Keyword Args, Annotated inside a union, and __call__ ------------------------


def _descriptions(func: Any) -> dict[str, str | None]:
    return {name: prop.get("description") for name, prop in function_schema(func, "f").parameters["properties"].items()}


def test_google_keyword_args_sections_describe_parameters() -> None:
    def search(query: str, *, limit: int = 10, lang: str = "en") -> str:
        """Search the web.

        Args:
            query: What to search for.

        Keyword Args:
            limit: How many results.
            lang: Result language.
        """
        return query

    def search2(query: str, *, limit: int = 10) -> str:
        """Search the web.

        - a bullet line, which makes every docstring style be tried

        Keyword Arguments:
            query: What to search for.
            limit: How many results.
        """
        return query

    assert _descriptions(search) == {"query": "What to search for.", "limit": "How many results.",
                                     "lang": "Result language."}
    assert function_schema(search, "search").description == "Search the web."
    assert _descriptions(search2) == {"query": "What to search for.", "limit": "How many results."}
    assert "Keyword" not in function_schema(search2, "search2").description


def test_annotated_inside_a_union_describes_the_parameter() -> None:
    def f(a: Optional[Annotated[int, "the a"]] = None,  # noqa: UP045
          b: Annotated[int, Field(description="the b", ge=0)] | None = None,
          c: Annotated[Optional[int], "the c"] = None,  # noqa: UP045
          d: Annotated[Optional[Annotated[int, "inner"]], "outer"] = None) -> None:  # noqa: UP045
        """F."""

    props = function_schema(f, "f").parameters["properties"]
    assert {name: prop.get("description") for name, prop in props.items()} == {
        "a": "the a", "b": "the b", "c": "the c", "d": "outer"}
    assert props["b"]["anyOf"] == [{"minimum": 0, "type": "integer"}, {"type": "null"}]  # not inside the branch
    with pytest.raises(ToolValidationError, match="greater than or equal to 0"):
        function_schema(f, "f").validate({"b": -1})


def test_a_callable_objects_call_docstring_describes_its_parameters() -> None:
    class Search:
        """Search the index."""

        def __call__(self, q: str, k: int = 2, lang: str = "en") -> str:
            """Run a search.

            Args:
                q: the query
                k: how many hits
            """
            return q

    class Documented:
        """Search the index.

        Args:
            q: the query, from the class
        """

        def __call__(self, q: str, k: int = 2) -> str:
            """Run.

            Args:
                q: the query, from __call__
                k: how many hits
            """
            return q

    class Undocumented:
        def __call__(self, q: str) -> str:
            """Run a search.

            Args:
                q: the query
            """
            return q

    schema = function_schema(Search(), "search")
    assert schema.description == "Search the index."
    assert _descriptions(Search()) == {"q": "the query", "k": "how many hits", "lang": None}
    assert _descriptions(Documented()) == {"q": "the query, from the class", "k": "how many hits"}
    assert function_schema(Undocumented(), "search").description == "Run a search."
    assert _descriptions(Undocumented()) == {"q": "the query"}


# -- finding 13b: "$ref"/"$defs" keys in defaults ---------------------------------------------------------------


class WithRefDefault(BaseModel):
    cfg: dict[str, Any] = {"$defs": 1, "$ref": "#/$defs/X"}


class OddExamples(BaseModel):
    x: int = Field(1, examples=[{"$defs": 1}])


def _ref_default_tool(m: WithRefDefault, other: dict[str, Any] = {"$ref": "x"}) -> str:  # noqa: B006
    """Defaults holding $ref/$defs keys."""
    return repr(m)


@pytest.mark.parametrize("path", ["fast", "general"])
def test_defaults_holding_ref_and_defs_keys_are_data(path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    used = []
    if path == "general":
        general_only(monkeypatch)
    else:
        real = schema_mod.fast_function_schema
        monkeypatch.setattr(schema_mod, "fast_function_schema", lambda *a: used.append(1) or real(*a))
    schema = function_schema(_ref_default_tool, "f")
    props = schema.parameters["properties"]
    assert props["m"]["properties"]["cfg"]["default"] == {"$defs": 1, "$ref": "#/$defs/X"}
    assert props["other"]["default"] == {"$ref": "x"}
    assert schema.validate({"m": {}})["m"].cfg == {"$defs": 1, "$ref": "#/$defs/X"}
    assert bool(used) == (path == "fast")


def test_a_field_default_holding_a_defs_key() -> None:
    def f(cfg: dict[str, Any] = Field(default={"$defs": None}, description="c")) -> str:  # noqa: B008
        """F."""
        return repr(cfg)

    schema = function_schema(f, "f")
    assert schema.parameters["properties"]["cfg"] == {"additionalProperties": True, "description": "c",
                                                      "type": "object", "default": {"$defs": None}}
    assert schema.validate({}) == {"cfg": {"$defs": None}}


def test_args_schema_model_with_a_defs_key_in_a_default() -> None:
    schema = schema_mod.model_schema(WithRefDefault, "f")
    assert schema.parameters["properties"]["cfg"]["default"] == {"$defs": 1, "$ref": "#/$defs/X"}


def test_a_defs_key_pydantic_cannot_write_is_a_schema_error() -> None:
    def f(o: OddExamples, s: set[int] = set()) -> None:  # noqa: B006  (a set: pydantic's general path)
        """F."""

    with pytest.raises(SchemaError, match=r'pydantic read a "\$ref" or "\$defs" key .* so rename that key\.$'):
        function_schema(f, "f")
