"""Review 266 (cost at scale), each kept fixed by a test here; no model is loaded, and no test reads a clock: each
counts the steps the code takes.

#2: ``ToolExecutor.execute`` (sync, which the Agent uses) of one reply with N parallel calls rebuilt the list of
finished answers, kept for a Ctrl-C, each time a call finished: N callbacks each scanning the N calls, O(N^2) (41 s
at 8,000 trivial calls). The answers are now listed only when a Ctrl-C asks for them.

#4: a tool made from a raw JSON Schema ran jsonschema's meta-schema check (about 2 ms per property) twice, three
times for a schema with an older ``$schema``: it now runs once, and a second time only for a schema whose ``$ref``s
bring in parts the first check did not cover.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import toolwire.execution as execution
import toolwire.interop.openai_tools as openai_tools
from toolwire import AIMessage, StructuredTool, ToolExecutor, tool
from toolwire._concurrency import run_coroutine_sync
from toolwire.errors import SchemaError, ToolValidationError


@tool
def echo(x: int) -> int:
    """Return x."""
    return x


@tool
async def aecho(x: int) -> int:
    """Return x."""
    return x


def _reply(name: str, n: int) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": name, "args": {"x": i}, "id": f"call_{i}", "type": "tool_call"}
                                     for i in range(n)])


# -- #2: parallel calls on the sync executor ------------------------------------------------------------------


@pytest.mark.parametrize("name", ["echo", "aecho"])
def test_sync_execute_of_many_parallel_calls_looks_at_each_call_a_bounded_number_of_times(
        monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    looked = [0]
    real = execution._answered

    def counted(task: Any) -> bool:
        looked[0] += 1
        return real(task)

    monkeypatch.setattr(execution, "_answered", counted)
    executor = ToolExecutor([echo, aecho])
    counts = []
    for n in (150, 300):
        looked[0] = 0
        out = executor.execute(_reply(name, n))
        assert [(m.tool_call_id, m.text) for m in out] == [(f"call_{i}", str(i)) for i in range(n)]
        counts.append(looked[0])
    # was 150 * 150 and 300 * 300 looks (each finished call's callback scanned every call)
    assert counts[0] <= 2 * 150 and counts[1] <= 2 * 300, counts


def test_a_ctrl_c_after_the_calls_carries_every_answer_in_call_order_though_they_finished_in_reverse() -> None:
    n = 6
    finished: list[int] = []

    @tool
    async def step(i: int) -> str:
        """Finish after every call with a higher number."""
        for _ in range(10_000):
            if len(finished) >= n - 1 - i:
                break
            await asyncio.sleep(0)
        finished.append(i)
        return f"step {i}"

    executor = ToolExecutor([step])
    calls = [{"name": "step", "args": {"i": i}, "id": f"s{i}", "type": "tool_call"} for i in range(n)]

    async def run() -> None:
        await executor.acall(calls)
        raise KeyboardInterrupt  # (a Ctrl-C in the sync call's own task, once its calls are answered)

    with pytest.raises(KeyboardInterrupt) as caught:
        run_coroutine_sync(run())
    assert finished == list(reversed(range(n)))
    kept = caught.value.tool_messages  # type: ignore[attr-defined]
    assert [(m.tool_call_id, m.text) for m in kept] == [(f"s{i}", f"step {i}") for i in range(n)]


def test_the_async_path_keeps_no_answers_for_a_ctrl_c() -> None:
    executor = ToolExecutor([aecho])
    out = asyncio.run(executor.aexecute(_reply("aecho", 3)))
    assert [m.text for m in out] == ["0", "1", "2"]


# -- #4: a tool from a wide JSON Schema --------------------------------------------------------------------------


def _wide(n: int, **more: Any) -> dict[str, Any]:
    return {**more, "type": "object", "properties": {f"f{i}": {"type": "string", "description": f"field {i}"}
                                                    for i in range(n)}, "required": [f"f{i}" for i in range(n)]}


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    seen: list[Any] = []
    real = openai_tools.check_schema

    def counted(cls: Any, schema: Any) -> None:
        seen.append(schema)
        real(cls, schema)

    monkeypatch.setattr(openai_tools, "check_schema", counted)
    return seen


@pytest.mark.parametrize("dialect", [None, "https://json-schema.org/draft/2020-12/schema",
                                     "http://json-schema.org/draft-07/schema#", "http://json-schema.org/draft-04/schema#"])
def test_a_tool_from_a_wide_json_schema_checks_it_against_the_meta_schema_once(
        checks: list[Any], dialect: str | None) -> None:
    schema = _wide(40, **({"$schema": dialect} if dialect else {}))
    made = StructuredTool.from_function(lambda **kw: "ok", name="big", description="d", args_schema=schema)
    assert len(checks) == 1  # was 2 (3 with a $schema)
    args = {f"f{i}": "v" for i in range(40)}
    assert made.invoke(args) == "ok"
    with pytest.raises(ToolValidationError, match="'f3'"):
        made.invoke({**args, "f3": 3})
    with pytest.raises(ToolValidationError, match=r"'f39' is (a )?required"):
        made.invoke({k: v for k, v in args.items() if k != "f39"})


@pytest.mark.parametrize(("dialect", "where"), [(None, "$defs"), (None, "definitions"),
                                               ("http://json-schema.org/draft-07/schema#", "definitions")])
def test_a_tool_from_a_schema_with_plain_refs_to_its_definitions_checks_it_once(
        checks: list[Any], dialect: str | None, where: str) -> None:
    schema = {**({"$schema": dialect} if dialect else {}), "type": "object",
              where: {"Name": {"type": "string", "minLength": 2}},
              "properties": {"a": {"$ref": f"#/{where}/Name"}, "b": {"$ref": f"#/{where}/Name"}}}
    made = StructuredTool.from_function(lambda **kw: "ok", name="refs", description="d", args_schema=schema)
    assert len(checks) == 1
    assert made.invoke({"a": "xy", "b": "zw"}) == "ok"
    with pytest.raises(ToolValidationError, match="'b'"):
        made.invoke({"a": "xy", "b": "z"})


@pytest.mark.parametrize("schema", [
    # a draft-07 schema's $defs (not a draft-07 keyword, so not checked) reached through "#/definitions/..."
    {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "$defs": {"A": {"type": 5}},
     "properties": {"a": {"$ref": "#/definitions/A"}}},
    # a $ref into data (an enum value), which the check of the schema as written reads as data
    {"type": "object", "$defs": {"A": {"enum": [{"type": 5}]}}, "properties": {"a": {"$ref": "#/$defs/A/enum/0"}}},
])
def test_a_ref_that_brings_in_an_unchecked_part_is_still_checked_once_inlined(
        checks: list[Any], schema: dict[str, Any]) -> None:
    with pytest.raises(SchemaError, match="not valid JSON Schema: 5 is not valid"):
        StructuredTool.from_function(lambda **kw: "ok", name="t", description="d", args_schema=schema)
    assert len(checks) == 2


def test_an_invalid_wide_schema_is_refused_after_one_check(checks: list[Any]) -> None:
    schema = _wide(30)
    schema["properties"]["f7"] = {"type": "strnig"}
    with pytest.raises(SchemaError, match="not valid JSON Schema"):
        StructuredTool.from_function(lambda **kw: "ok", name="bad", description="d", args_schema=schema)
    assert len(checks) == 1


def test_schema_validator_on_its_own_still_checks_the_schema(checks: list[Any]) -> None:
    with pytest.raises(SchemaError, match="not valid JSON Schema"):
        openai_tools.schema_validator({"type": "object", "properties": {"a": {"type": "strnig"}}}, "t")
    validate = openai_tools.schema_validator({"type": "object", "properties": {"a": {"type": "integer"}}}, "t")
    assert validate({"a": 2.0}) == {"a": 2}  # (a whole float made an int, as the schema promises)
    assert len(checks) == 2
