"""Differential check of toolwire.schema's fast path against pydantic's general path.

``function_schema`` builds the arguments' JSON Schema and validator itself for common parameter types
(``src/toolwire/_schema_fast.py``) and asks pydantic's TypeAdapter for everything else.
This script builds thousands of random signatures from a pool of types (scalars, containers, unions,
literals, nested pydantic models with descriptions, defaults, default factories, extra settings, and
types the fast path must refuse) and checks, for each, that the fast result equals the general one:

* the JSON Schema, compared as JSON text (so key order counts too);
* the core schema of every parameter, against the one pydantic generates;
* validation: the same kwargs, or the same error message, for a pool of good and bad argument values.

Run: ``python benchmarks/check_schema_fastpath.py [--n 3000] [--seed 1]``; exits 1 on any difference.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import typing
from typing import Annotated, Any, Literal, Optional, Union

import typing_extensions
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, with_config

from toolwire import _schema_fast as fast_mod
from toolwire import _signature as signature_mod
from toolwire import schema as schema_mod
from toolwire.errors import SchemaError, ToolValidationError


class Plain(BaseModel):
    city: str
    zip_code: str = ""


class Documented(BaseModel):
    """A postal address.

    Used for shipping.
    """

    street: str = Field(description="street and number")
    city: str
    zip: str | None = None
    tags: list[str] = []
    extra_info: dict[str, int] = Field(default_factory=dict)


class Forbid(BaseModel):
    model_config = ConfigDict(extra="forbid")
    a: int
    b: Literal["x", "y"] = "x"


class Allow(BaseModel):
    model_config = ConfigDict(extra="allow", str_strip_whitespace=True)
    name: str


class Outer(BaseModel):
    """Two addresses and a plain one."""

    ship_to: Documented
    bill_to: Documented | None = None
    plain: Plain = Field(description="a plain one")
    many: list[Plain] = []


class Weird(BaseModel):
    default: int = 1
    properties: dict[str, str] = {}
    title: str = "t"


class Defaults(BaseModel):
    pair: list[int] = (1, 2)  # type: ignore[assignment]
    nested: list[Any] = [(1, 2), {"title": "x"}]
    mapping: dict[str, Any] = {"k": (1,)}


class NonFinite(BaseModel):  # refused: pydantic writes inf as null
    ratio: float = float("inf")


class WithExamples(BaseModel):
    x: int = Field(examples=[1, 2], description="an x")


class Constrained(BaseModel):  # the fast path must refuse this one (a constraint on a field)
    n: int = Field(gt=0)


class Aliased(BaseModel):  # ... and this one (an alias)
    n: int = Field(alias="N")


class Extra(BaseModel):  # ... and this one (json_schema_extra)
    model_config = ConfigDict(json_schema_extra={"examples": [{"n": 1}]})
    n: int


class Node(BaseModel):  # ... and this one (recursive: the general path raises SchemaError)
    value: int
    children: list[Node] = []


Node.model_rebuild()

TYPES: list[Any] = [
    str, int, float, bool, Any, None, list, dict, list[int], list[str], list[list[float]], dict[str, int],
    dict[str, list[str]], dict[str, Any], typing.List[int], typing.Dict[str, bool],  # noqa: UP006
    Optional[int], int | None, Union[int, str], int | str | None, Optional[list[str]],  # noqa: UP007, UP045
    Literal["a"], Literal["a", "b"], Literal[1, 2], Literal[1, "b"], Literal[True], Literal["a", "b"] | None,
    Union[int, list[int]], Union[list[int], typing.List[int]],  # noqa: UP006, UP007
    Plain, Documented, Forbid, Allow, Outer, Defaults, NonFinite, Weird, WithExamples,
    Optional[Plain], list[Documented],  # noqa: UP045
    dict[str, Plain], Plain | Documented, Plain | None | Forbid,
    # refused by the fast path: checked to fall back and still agree
    Constrained, Aliased, Extra, Node, tuple[int, str], set[str], Annotated[int, Field(gt=1)], bytes,
    Literal[None], dict[int, str],
]
VALUES: list[Any] = [
    "x", "", 0, 1, -3, 2.5, True, False, None, [], [1, 2], ["a"], [[1.0]], {}, {"a": 1}, {"a": "b"},
    {"city": "Paris"}, {"city": "Paris", "zip_code": 75}, {"street": "s", "city": "c"},
    {"street": "s", "city": "c", "zip": None, "tags": ["t"], "extra_info": {"k": 1}},
    {"a": 1, "b": "y"}, {"a": 1, "c": 2}, {"name": "  n  ", "other": 1}, {"x": "3"},
    {"ship_to": {"street": "s", "city": "c"}, "plain": {"city": "p"}}, [{"city": "a"}], "1", "a", "b",
]
DEFAULTS: list[Any] = [None, 0, 1.5, "d", True, [], [1, "a"], (1, 2), {"k": [1]}, {"title": "kept?"},
                       float("inf"), {1: "a"}, [float("nan")], ((1, 2), [3])]


def general_only(func: Any, name: str) -> schema_mod.FunctionSchema:
    saved = schema_mod.fast_function_schema

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise schema_mod.Unsupported

    schema_mod.fast_function_schema = refuse  # type: ignore[assignment]
    try:
        return schema_mod.function_schema(func, name)
    finally:
        schema_mod.fast_function_schema = saved  # type: ignore[assignment]


def outcome(schema: schema_mod.FunctionSchema, args: dict[str, Any]) -> str:
    try:
        return "ok " + repr(schema.validate(args))
    except ToolValidationError as exc:
        return "error " + str(exc)


def make_function(rng: random.Random, index: int) -> tuple[Any, list[Any]]:
    count = rng.randint(1, 5)
    annotations: dict[str, Any] = {}
    defaults: list[Any] = []
    lines = []
    chosen = []
    for i in range(count):
        tp = rng.choice(TYPES)
        chosen.append(tp)
        name = rng.choice(["p", "default", "properties", "title", "q"])
        if name in annotations or rng.random() < 0.5:
            name += str(i)
        if rng.random() < 0.3:
            tp = Annotated[tp, f"annotated description {i}"]
        annotations[name] = tp
        if rng.random() < 0.3:
            lines.append(f"        {name}: docstring description of {name}.")
    names = list(annotations)
    n_defaults = rng.randint(0, count)
    for _ in range(n_defaults):
        defaults.append(rng.choice(DEFAULTS))
    params = ", ".join(names)
    doc = "Do a thing.\n\n    Args:\n" + "\n".join(lines) if lines else "Do a thing."
    namespace: dict[str, Any] = {}
    exec(f'def f{index}({params}):\n    """{doc}\n    """\n', namespace)
    func = namespace[f"f{index}"]
    func.__annotations__ = annotations
    if defaults:
        func.__defaults__ = tuple(defaults)
    return func, chosen


def check_core_schemas(failures: list[str]) -> None:
    """Each fast core schema equals pydantic's for the same annotation inside a TypedDict."""
    for tp in TYPES:
        try:
            fast = fast_mod._fast_core(tp)
        except schema_mod.Unsupported:
            continue
        td = with_config(ConfigDict(extra="forbid"))(typing_extensions.TypedDict("T", {"v": tp}))  # type: ignore
        general = TypeAdapter(td).core_schema["fields"]["v"]["schema"]  # type: ignore[index]
        if fast != general:
            failures.append(f"core schema of {tp!r}: fast {fast!r} != pydantic {general!r}")


def check_defaults(failures: list[str]) -> None:
    """The fast JSON form of a default equals pydantic's (``TypeAdapter(type(v)).dump_python(v, mode="json")``)."""
    for value in [*DEFAULTS, [1, [2, (3,)]], {"a": {"b": (None, True)}}, ("x",), [{"k": 1.5}]]:
        try:
            fast = schema_mod.fast_default(value)
        except schema_mod.Unsupported:
            continue
        general = TypeAdapter(type(value)).dump_python(value, mode="json")
        if repr(fast) != repr(general):
            failures.append(f"default {value!r}: fast {fast!r} != pydantic {general!r}")


DOCSTRINGS = [
    "One line.",
    "Summary.\n\nArgs:\n    a: the a.\n    b (int): the b.\n\nReturns:\n    something.",
    "Summary.\n\nMore text here.\n\nArgs:\n    a: the a\n        continued.\n\nRaises:\n    ValueError: bad.",
    "Summary.\n\nParameters\n----------\na : int\n    The a.\n",
    "Summary.\n\n:param a: the a.\n:type a: int\n:returns: x",
    "Summary.\n\n@param a: the a.\n@return: x",
    "Summary.\n\nArgs:\n    a: the a.\n\n:param b: the b.",
    "Summary.\n\nArgs:\n    a: x\n\n.. deprecated:: 1.0\n",
    "Summary.\n\nReturns:\n    only a return.",
    "Summary.\n\nExample:\n    >>> f(1)\n    - a list item",
    "Summary\nwith: a colon\nArgs:\n    a: b",
    "Summary.\n\nArguments:\n    x: y\nAttributes:\n    z: w",
    "",
]


def check_docstrings(failures: list[str]) -> None:
    """The docstring reader's shortcut gives what docstring_parser's style detection gives."""
    import docstring_parser

    def summary(parsed: Any) -> Any:
        return (parsed.style, parsed.short_description, parsed.long_description,
                [(type(m).__name__, m.args, m.description) for m in parsed.meta])

    for doc in DOCSTRINGS:
        try:
            general: Any = summary(docstring_parser.parse(doc))
        except docstring_parser.ParseError as exc:
            general = ("error", str(exc))
        try:
            fast: Any = summary(schema_mod._parse_docstring_fields(doc))
        except docstring_parser.ParseError as exc:
            fast = ("error", str(exc))
        if fast != general:
            failures.append(f"docstring {doc!r}: fast {fast!r} != docstring_parser {general!r}")


def _kinds(a: int, /, b: str = "x", *args: int, c: Plain, d: list[Plain] | None = None, **kw: Any) -> None:
    """Every kind of parameter, with string annotations (this module uses postponed annotations)."""


def _posonly_defaults(a: int = 1, b: int = 2, /, c: int = 3) -> None:
    """Positional-only parameters with defaults."""


def _no_hints(a, b=None, *, c):  # type: ignore[no-untyped-def]
    """No annotations at all."""


def _string_forms(a: Literal["x"], b: Optional[int], c: list["Plain"], d: Annotated[int, "n"],  # noqa: UP037, UP045
                  e: dict[str, int | None], f: typing.List[int], g: None = None) -> None:  # noqa: UP006
    """String annotations typing must resolve further (nested strings, typing forms)."""


def _undefined(a: Missing) -> None:  # type: ignore[name-defined]  # noqa: F821
    """An annotation naming nothing."""


def check_signatures(failures: list[str], functions: list[Any]) -> None:
    """The signature and type-hint readers give what inspect.signature and typing.get_type_hints give."""
    import functools
    import inspect

    special = [_kinds, _posonly_defaults, _no_hints, _string_forms, _undefined, functools.partial(_kinds, 1),
               Plain, print]
    for func in [*functions, *special]:
        try:
            expected: Any = [(p.name, p.kind, p.default) for p in inspect.signature(func).parameters.values()]
        except (TypeError, ValueError) as exc:
            expected = repr(exc)
        try:
            got: Any = signature_mod.signature_params(func)
        except (TypeError, ValueError) as exc:
            got = repr(exc)
        if got != expected:
            failures.append(f"signature of {func!r}: {got!r} != {expected!r}")
        target = signature_mod.hint_target(func)
        try:
            expected = typing.get_type_hints(target, include_extras=True)
        except Exception as exc:
            expected = repr(exc)
        try:
            got = signature_mod.type_hints(target)
        except Exception as exc:
            got = repr(exc)
        if got != expected:
            failures.append(f"type hints of {func!r}: {got!r} != {expected!r}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=3000, help="random signatures to check")
    parser.add_argument("--seed", type=int, default=1)
    opts = parser.parse_args()
    rng = random.Random(opts.seed)
    failures: list[str] = []
    check_core_schemas(failures)
    check_defaults(failures)
    check_docstrings(failures)
    fast_count = 0
    functions = []
    for index in range(opts.n):
        func, chosen = make_function(rng, index)
        functions.append(func)
        try:
            general = general_only(func, f"f{index}")
        except SchemaError as exc:
            try:
                schema_mod.function_schema(func, f"f{index}")
            except SchemaError as exc2:
                if str(exc) != str(exc2):
                    failures.append(f"{chosen}: errors differ: {exc} / {exc2}")
            else:
                failures.append(f"{chosen}: general path raised {exc}, fast path did not")
            continue
        try:
            schema_mod.fast_function_schema(
                [(n, schema_mod._annotation_description(a)[0], None, True) for n, a in func.__annotations__.items()],
                "X")
            fast_count += 1
        except schema_mod.Unsupported:
            pass
        fast = schema_mod.function_schema(func, f"f{index}")
        a, b = json.dumps(general.parameters), json.dumps(fast.parameters)
        if a != b or repr(general.parameters) != repr(fast.parameters):  # repr: a tuple is not a list
            failures.append(f"{chosen}: JSON Schema differs:\n  general {a}\n  fast    {b}")
            continue
        if (general.defaulted_non_nullable, general.null_plan, general.positional_only) != (
                fast.defaulted_non_nullable, fast.null_plan, fast.positional_only):
            failures.append(f"{chosen}: null plan differs")
        names = list(fast.parameters["properties"])
        for _ in range(12):
            args = {n: rng.choice(VALUES) for n in names if rng.random() < 0.85}
            if rng.random() < 0.1:
                args["unknown"] = 1
            if outcome(general, args) != outcome(fast, args):
                failures.append(f"{chosen}: {args!r}: {outcome(general, args)} / {outcome(fast, args)}")
    check_signatures(failures, functions)
    for failure in failures[:20]:
        print("DIFFERENCE", failure)
    print(f"{opts.n} signatures ({fast_count} on the fast path), {len(failures)} differences")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
