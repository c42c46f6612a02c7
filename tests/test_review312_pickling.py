"""Review 312: pickling tools for other processes.

#1 a tool written in the main script or as a closure reaches the workers of a by-value pickler (cloudpickle: joblib's
loky, Ray, Dask), while the standard pickle says what to do in one sentence (and a ``__main__`` tool still runs in a
spawn process pool); #2 options set on a module-level tool after it was made reach a spawn worker; #4 an
``args_schema`` class pickle cannot find and an MCP tool are refused in one sentence saying what to do, and
``copy.deepcopy`` of an ``MCPToolList`` shares its client; #5 a tool made from another tool's function pickles.
"""

from __future__ import annotations

import concurrent.futures
import copy
import io
import json
import multiprocessing
import os
import pickle
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, create_model

from toolwire import Tool, tool
from toolwire.mcp._listing import build_tools
from toolwire.mcp.client import MCPClient
from toolwire.mcp.loading import MCPToolList


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool(timeout=3.0)
def boom(x: int) -> int:
    """Fail with a message."""
    raise ValueError(f"secret {x}")


add_with_timeout = tool(add.func, name="add_with_timeout", timeout=5)  # (review 312 #5)


def search(q: str, k: int = 3) -> str:
    """Search for something."""
    return f"{q}:{k}"


OtherNamedArgs = create_model("SearchArgsDynamic", q=(str, ...), k=(int, 3))  # found under another name


def _options(made: Tool) -> tuple[Any, ...]:
    return made.name, made.return_direct, made.timeout, made.response_format, made.handle_errors, \
        made.hide_error_details


def _run_in_worker(made: Tool, args: dict[str, Any]) -> tuple[Any, ...]:
    message = made.invoke({"name": made.name, "args": args, "id": "c1", "type": "tool_call"})
    return (*_options(made), message.status, message.content)


# --- #1: the main script's tools and closures ---------------------------------------------------------------------

SAVED: dict[int, Any] = {}  # the functions the by-value pickler below kept


class ByValuePickler(pickle.Pickler):
    """Stands for cloudpickle (``cloudpickle.Pickler``, which joblib, Ray and Dask use): it saves the functions of
    ``__main__`` and local functions itself, by value (here: kept in :data:`SAVED`), not by name."""

    __module__ = "fake.cloudpickle"  # (how toolwire tells such a pickler: cloudpickle's vendored copies too)

    def persistent_id(self, obj: Any) -> Any:
        if isinstance(obj, types.FunctionType) and (obj.__module__ == "__main__" or "<locals>" in obj.__qualname__):
            SAVED[id(obj)] = obj
            return id(obj)
        return None

    def dump(self, obj: Any) -> None:  # (cloudpickle's dump is Python code too)
        super().dump(obj)


class ByValueUnpickler(pickle.Unpickler):
    def persistent_load(self, pid: Any) -> Any:
        return SAVED[pid]


def by_value_roundtrip(obj: Any) -> Any:
    buffer = io.BytesIO()
    ByValuePickler(buffer).dump(obj)
    return ByValueUnpickler(io.BytesIO(buffer.getvalue())).load()


def _closure_tool(factor: int) -> Tool:
    @tool
    def scaled(a: int) -> int:
        """Scale a number."""
        return a * factor

    return scaled


def _main_tool(monkeypatch: pytest.MonkeyPatch) -> Tool:
    """A ``@tool`` as the main script defines it (its function in ``__main__``, the tool under its name there)."""
    def main_tool(a: int) -> int:
        """Defined in the main script."""
        return a * 100

    main_tool.__module__, main_tool.__qualname__ = "__main__", "main_tool"
    made = tool(main_tool)
    monkeypatch.setattr(sys.modules["__main__"], "main_tool", made, raising=False)
    return made


def test_a_closure_tool_reaches_a_by_value_pickler_and_the_standard_pickle_says_what_to_do() -> None:
    scaled = _closure_tool(3)
    scaled.timeout = 7.0
    back = by_value_roundtrip(scaled)
    assert back is not scaled and back.invoke({"a": 2}) == 6 and back.timeout == 7.0
    with pytest.raises(pickle.PicklingError, match=r"define the function at module level.*cloudpickle"):
        pickle.dumps(scaled)


def test_a_main_script_tool_reaches_a_by_value_pickler_whose_worker_has_not_got_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    made = _main_tool(monkeypatch)
    made.hide_error_details = True
    assert pickle.loads(pickle.dumps(made)) is made  # the standard pickle: by reference (a spawn child runs the script)
    data, by_value = pickle.dumps(made), io.BytesIO()
    ByValuePickler(by_value).dump(made)
    with monkeypatch.context() as patch:  # a by-value worker's __main__ is not the script
        patch.delattr(sys.modules["__main__"], "main_tool")
        with pytest.raises(pickle.UnpicklingError, match=r"Cannot find the tool __main__\.main_tool"):
            pickle.loads(data)
        back = ByValueUnpickler(io.BytesIO(by_value.getvalue())).load()
    assert back is not made and back.invoke({"a": 2}) == 200 and back.hide_error_details is True


MAIN_SCRIPT = """
import concurrent.futures, multiprocessing, pickle, sys
from toolwire import tool

@tool
def main_tool(a: int) -> int:
    \"\"\"Defined in the main script.\"\"\"
    return a * 100

def make(k):
    @tool
    def scaled(a: int) -> int:
        \"\"\"Scaled.\"\"\"
        return a * k
    return scaled

if __name__ == "__main__":
    main_tool.timeout = 9.0
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        print(pool.submit(main_tool.invoke, {"a": 2}).result(60), pool.submit(getattr, main_tool, "timeout").result(60))
    try:
        pickle.dumps(make(3))
    except pickle.PicklingError as exc:
        print("PicklingError:", exc)
    if len(sys.argv) > 1:  # cloudpickle's path: loaded in a new interpreter, whose __main__ is not this script
        import cloudpickle, subprocess
        loader = "import pickle, sys; t = pickle.loads(sys.stdin.buffer.read()); print(t.invoke({'a': 2}), t.timeout)"
        for made in (main_tool, make(3)):
            done = subprocess.run([sys.executable, "-c", loader], input=cloudpickle.dumps(made), capture_output=True)
            print(done.stdout.decode().strip() or done.stderr.decode().strip().splitlines()[-1])
"""


def _run_script(tmp_path: Path, *args: str, path: str | None = None) -> list[str]:
    script = tmp_path / "main_script.py"
    script.write_text(MAIN_SCRIPT)
    env = dict(os.environ)
    if path is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, (path, env.get("PYTHONPATH"))))
    done = subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True, timeout=120, env=env,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_a_main_script_tool_runs_in_a_spawn_pool_and_a_closure_is_refused_in_one_sentence(tmp_path: Path) -> None:
    lines = _run_script(tmp_path)
    assert lines[0] == "200 9.0"
    assert lines[1] == ("PicklingError: Tool 'scaled' cannot be pickled: its function make.<locals>.scaled is defined "
                        "inside another function or is a lambda; define the function at module level, or send the "
                        "tool with cloudpickle (as joblib, Ray and Dask do).")


def test_cloudpickle_sends_a_main_script_tool_and_a_closure(tmp_path: Path) -> None:
    cloudpickle = pytest.importorskip("cloudpickle")
    lines = _run_script(tmp_path, "cloudpickle", path=str(Path(cloudpickle.__file__).parent.parent))
    assert lines[2:] == ["200 9.0", "6 None"]


# --- #2: options set after the tool was made -----------------------------------------------------------------------

def test_options_set_after_reach_a_worker_whose_module_has_the_tool_as_written(monkeypatch: pytest.MonkeyPatch) -> None:
    module = sys.modules[__name__]
    monkeypatch.setattr(add, "timeout", 0.5)
    monkeypatch.setattr(add, "hide_error_details", True)
    monkeypatch.setattr(add, "return_direct", True)
    monkeypatch.setattr(add, "handle_errors", False)
    monkeypatch.setattr(boom, "timeout", None)  # back to the default, from the module's 3.0
    data = pickle.dumps([add, boom])
    assert pickle.loads(data) == [add, boom]  # the same process: the module's own tools
    fresh_add = tool(add.func)  # a new worker imports the module: the tools as written
    fresh_boom = tool(timeout=3.0)(boom.func)
    monkeypatch.setattr(module, "add", fresh_add)
    monkeypatch.setattr(module, "boom", fresh_boom)
    back_add, back_boom = pickle.loads(data)
    assert _options(back_add) == ("add", True, 0.5, "content", False, True)
    assert back_boom.timeout is None and fresh_boom.timeout == 3.0  # (a copy: the worker's module tool unchanged)
    assert back_add.invoke({"a": 1, "b": 2}) == 3
    assert (fresh_add.timeout, fresh_add.hide_error_details) == (None, False)


class Svc:
    @tool
    def scale(self, a: int) -> int:
        """Scale by two."""
        return a * 2


def test_options_of_a_tool_method_and_of_a_bound_tool_are_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    bound = Svc().scale
    bound.timeout = 4.0
    back = pickle.loads(pickle.dumps(bound))
    assert back.timeout == 4.0 and back.invoke({"a": 3}) == 6
    monkeypatch.setattr(Svc.__dict__["scale"], "hide_error_details", True)
    data = pickle.dumps(Svc.__dict__["scale"])
    monkeypatch.setattr(Svc, "scale", tool(Svc.__dict__["scale"].func))
    assert pickle.loads(data).hide_error_details is True


def test_options_set_after_reach_a_spawn_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(boom, "timeout", 0.5)
    monkeypatch.setattr(boom, "hide_error_details", True)
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
        got = pool.submit(_run_in_worker, boom, {"x": 1}).result(timeout=120)
        variant = pool.submit(_run_in_worker, add_with_timeout, {"a": 1, "b": 2}).result(timeout=120)
    assert got[:6] == ("boom", False, 0.5, "content", True, True)
    assert got[6] == "error" and "secret" not in got[7]
    assert variant == ("add_with_timeout", False, 5, "content", True, False, "success", "3")


# --- #4: what cannot be pickled says what to do; an MCP tool list copies -------------------------------------------

def test_an_args_schema_class_pickle_cannot_find_is_named() -> None:
    class LocalArgs(BaseModel):
        q: str
        k: int = 3

    local = tool(search, args_schema=LocalArgs, name="search_local")
    with pytest.raises(pickle.PicklingError, match=r"Tool 'search_local' cannot be pickled: its args_schema class "
                       r".*LocalArgs cannot be found by that name.*define the class at module level"):
        pickle.dumps(local)
    other = tool(search, args_schema=OtherNamedArgs, name="search_dyn")
    with pytest.raises(pickle.PicklingError, match="its args_schema class SearchArgsDynamic cannot be found"):
        pickle.dumps(other)


def _mcp_tools() -> list[Tool]:
    def function(mcp_name: str, tool_name: str) -> Any:
        async def call_mcp_tool(**arguments: Any) -> tuple[Any, dict[str, Any]]:
            return json.dumps(arguments), {}
        call_mcp_tool.__qualname__ = f"mcp:{mcp_name}"  # (as the client names them)
        return call_mcp_tool

    listed = [{"name": "add", "description": "Add.", "inputSchema": {"type": "object"}}]
    return build_tools(listed, prefix="", label="toolwire mcp serve", timeout=None, function=function)


def test_an_mcp_tool_is_refused_saying_to_load_the_tools_in_each_worker() -> None:
    (made,) = _mcp_tools()
    expected = ("Tool 'add' cannot be pickled: it calls the MCP server 'toolwire mcp serve' through this process's "
                "open session; call load_tools(...) in each worker process to get the tools there.")
    for copied in (made, copy.copy(made), copy.deepcopy(made)):
        with pytest.raises(pickle.PicklingError) as caught:
            pickle.dumps(copied)
        assert str(caught.value) == expected
    assert made.args_schema is None


def test_a_deep_copy_of_an_mcp_tool_list_shares_its_client_and_pickling_it_is_refused() -> None:
    client = MCPClient("python -c pass")
    tools = MCPToolList(client)
    tools.extend(_mcp_tools())
    deep, shallow = copy.deepcopy(tools), copy.copy(tools)
    for copied in (deep, shallow):
        assert type(copied) is MCPToolList and copied is not tools and copied.client is client
        assert [t.name for t in copied] == ["add"]
    assert shallow[0] is tools[0]
    assert deep[0] is not tools[0] and deep[0].func is tools[0].func  # (the same session's call)
    with pytest.raises(pickle.PicklingError, match=r"load_tools\(\.\.\.\) in each worker process"):
        pickle.dumps(MCPToolList(client))


# --- #5: a tool made from another tool's function --------------------------------------------------------------------

def test_a_tool_made_from_another_tools_function_pickles(monkeypatch: pytest.MonkeyPatch) -> None:
    back = pickle.loads(pickle.dumps(add_with_timeout))
    assert (back.name, back.timeout, back.invoke({"a": 1, "b": 2})) == ("add_with_timeout", 5, 3)
    twin = copy.copy(add)  # (a copy of a module-level tool: its function is the module tool's too)
    twin.timeout = 2.0
    back = pickle.loads(pickle.dumps(twin))
    assert back is not add and (back.name, back.timeout, back.invoke({"a": 2, "b": 2})) == ("add", 2.0, 4)
    made = _main_tool(monkeypatch)
    variant = tool(made.func, name="main_variant")
    assert pickle.loads(pickle.dumps(variant)).invoke({"a": 1}) == 100
