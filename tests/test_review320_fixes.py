"""Review 320: pickling tools by value (cloudpickle: joblib's loky, Ray, Dask; dill).

#1 a ``__main__`` or closure tool whose signature uses string annotations (``from __future__ import annotations``)
is rebuilt in a by-value worker, whose copy of the function keeps only the globals its code uses; #2 the standard
``pickle.dumps`` run inside a cloudpickle dump (an object keeping its payload as standard-pickle bytes) saves a
``__main__`` tool by reference and refuses a closure in one sentence; #3 a ``__main__`` tool over a function a
by-value pickler saves by name (``functools.lru_cache``) is saved by reference, as before.
"""

from __future__ import annotations

import functools
import io
import os
import pickle
import subprocess
import sys
import types
from pathlib import Path
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel

from toolwire import Tool, tool


class Point(BaseModel):
    x: int
    y: int


SAVED: dict[int, Any] = {}  # the functions the by-value pickler below saved


def _by_value_copy(func: types.FunctionType) -> types.FunctionType:
    """``func`` as cloudpickle rebuilds it in a worker: its globals only the names its code uses (``co_names``)."""
    kept = {name: func.__globals__[name] for name in func.__code__.co_names if name in func.__globals__}
    made = types.FunctionType(func.__code__, {"__builtins__": __builtins__, **kept}, func.__name__,
                              func.__defaults__, func.__closure__)
    made.__kwdefaults__, made.__annotations__ = func.__kwdefaults__, dict(func.__annotations__)
    made.__module__, made.__qualname__, made.__doc__ = func.__module__, func.__qualname__, func.__doc__
    return made


class ByValuePickler(pickle.Pickler):
    """Stands for cloudpickle: saves the functions of ``__main__`` and local functions by value (here: a copy with
    the globals cloudpickle keeps, in :data:`SAVED`); anything else (an ``lru_cache`` wrapper) by name."""

    __module__ = "fake.cloudpickle"  # (how toolwire tells such a pickler)

    def persistent_id(self, obj: Any) -> Any:
        if isinstance(obj, types.FunctionType) and (obj.__module__ == "__main__" or "<locals>" in obj.__qualname__):
            SAVED[id(obj)] = _by_value_copy(obj)
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


def _in_main(func: Any, monkeypatch: pytest.MonkeyPatch, **options: Any) -> Tool:
    """A ``@tool`` as the main script defines it (its function in ``__main__``, the tool under its name there)."""
    target = getattr(func, "__wrapped__", func)
    for each in {id(func): func, id(target): target}.values():
        each.__module__, each.__qualname__ = "__main__", target.__name__
    made = tool(func, **options)
    monkeypatch.setattr(sys.modules["__main__"], target.__name__, made, raising=False)
    return made


# --- #1: string annotations (PEP 563) in a by-value worker ---------------------------------------------------------

def _norm(p: Point, unit: Literal["m", "km"] = "m") -> str:
    """Manhattan norm of a point."""
    return f"{abs(p.x) + abs(p.y)} {unit}"


def _shout_factory() -> Tool:
    @tool(timeout=4.0)
    def shout(text: Annotated[str, "the text to shout"]) -> str:
        """Shout."""
        return text.upper()

    return shout


def test_a_main_tool_with_string_annotations_is_rebuilt_by_value(monkeypatch: pytest.MonkeyPatch) -> None:
    func = types.FunctionType(_norm.__code__, _norm.__globals__, "norm", _norm.__defaults__)
    func.__annotations__, func.__doc__ = dict(_norm.__annotations__), _norm.__doc__
    norm = _in_main(func, monkeypatch)
    assert isinstance(norm.func.__annotations__["p"], str)  # (PEP 563)
    back = by_value_roundtrip(norm)
    assert back is not norm and back.spec == norm.spec
    assert back.invoke({"p": {"x": 1, "y": -2}, "unit": "km"}) == "3 km"


def test_a_closure_tool_with_string_annotations_is_rebuilt_by_value() -> None:
    shout = _shout_factory()
    back = by_value_roundtrip(shout)
    assert back.spec == shout.spec and back.timeout == 4.0 and back.invoke({"text": "hi"}) == "HI"


# --- #2: the standard pickle inside a by-value dump -----------------------------------------------------------------

class Envelope:
    """Sends its payload as standard-pickle bytes (as some objects joblib, Ray or Dask send do)."""

    def __init__(self, payload: Any) -> None:
        self.payload = payload

    def __reduce__(self) -> Any:
        return pickle.loads, (pickle.dumps(self.payload),)


def test_the_standard_pickle_inside_a_by_value_dump_saves_a_main_tool_by_reference(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def main_tool(a: int) -> int:
        """Defined in the main script."""
        return a * 100

    made = _in_main(main_tool, monkeypatch)
    assert by_value_roundtrip(Envelope([made])) == [made]  # (by reference: the same process gets the tool itself)
    assert by_value_roundtrip([made])[0] is not made  # (the by-value pickler itself still rebuilds it)


def test_the_standard_pickle_inside_a_by_value_dump_refuses_a_closure_in_one_sentence() -> None:
    with pytest.raises(pickle.PicklingError, match=r"define the function at module level.*cloudpickle"):
        by_value_roundtrip(Envelope(_shout_factory()))


# --- #3: a __main__ tool over a function saved by name -------------------------------------------------------------

def test_a_main_tool_over_lru_cache_is_saved_by_reference_by_a_by_value_pickler(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def sq(x: int) -> int:
        """Square (cached)."""
        return x * x

    made = _in_main(functools.lru_cache(maxsize=None)(sq), monkeypatch)
    made.timeout = 2.0
    assert by_value_roundtrip(made) is made and made.invoke({"x": 3}) == 9
    assert pickle.loads(pickle.dumps(made)) is made


# --- the three with cloudpickle itself, in a new interpreter --------------------------------------------------------

SCRIPT = '''
from __future__ import annotations
import functools, pickle, subprocess, sys
from typing import Annotated, Literal
import cloudpickle
from pydantic import BaseModel
from toolwire import tool

class Point(BaseModel):
    x: int
    y: int

@tool
def norm(p: Point, unit: Literal["m", "km"] = "m") -> str:
    """Manhattan norm of a point."""
    return f"{abs(p.x) + abs(p.y)} {unit}"

def make():
    @tool
    def shout(text: Annotated[str, "the text to shout"]) -> str:
        """Shout."""
        return text.upper()
    return shout

@tool
@functools.lru_cache(maxsize=None)
def sq(x: int) -> int:
    """Square (cached)."""
    return x * x

class Envelope:
    def __init__(self, payload): self.payload = payload
    def __reduce__(self): return (pickle.loads, (pickle.dumps(self.payload),))

if __name__ == "__main__":
    loader = "import pickle, sys; t, a = pickle.loads(sys.stdin.buffer.read()); print(t.invoke(a))"
    for made, args in ((norm, {"p": {"x": 1, "y": -2}}), (make(), {"text": "hi"})):
        done = subprocess.run([sys.executable, "-c", loader], input=cloudpickle.dumps((made, args)),
                              capture_output=True)
        print(done.stdout.decode().strip() or done.stderr.decode().strip().splitlines()[-1])
    print(cloudpickle.loads(cloudpickle.dumps(sq)) is sq)
    print(pickle.loads(cloudpickle.dumps(Envelope([norm])))[0] is norm)
'''


def test_cloudpickle_sends_string_annotated_tools_and_keeps_by_reference_what_it_must(tmp_path: Path) -> None:
    cloudpickle = pytest.importorskip("cloudpickle")
    script = tmp_path / "main_script.py"
    script.write_text(SCRIPT)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (str(Path(cloudpickle.__file__).parent.parent),
                                                      env.get("PYTHONPATH"))))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, env=env,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["3 m", "HI", "True", "True"]


# --- #4, #5: the checks a sync+async StructuredTool's own __reduce_ex__ needs (pickled_function) --------------------

@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def test_pickled_function_refuses_in_one_sentence_and_saves_a_tools_function_by_its_tool() -> None:
    from toolwire._tool_pickle import pickled_function

    class LocalArgs(BaseModel):
        text: str

    shout = _shout_factory()
    with pytest.raises(pickle.PicklingError, match=r"function _shout_factory.<locals>.shout is defined inside"):
        pickled_function(shout, shout.func)
    with pytest.raises(pickle.PicklingError, match=r"args_schema class .*LocalArgs cannot be found by that name"):
        pickled_function(add, add.func, LocalArgs)
    assert pickle.loads(pickle.dumps(pickled_function(add, add.func, Point))) is add.func
    assert pickled_function(add, _norm) is _norm and pickled_function(add, None) is None


async def _aadd(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def test_a_sync_and_async_structured_tool_pickles_or_refuses_in_one_sentence() -> None:
    from toolwire import StructuredTool

    def local(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    both = StructuredTool.from_function(local, _aadd, name="both")
    with pytest.raises(pickle.PicklingError, match=r"function .*local is defined inside"):  # (was a raw error, #4)
        pickle.dumps(both)
    variant = StructuredTool.from_function(add.func, _aadd, name="add_twice", timeout=5)  # (another tool's func, #5)
    again = pickle.loads(pickle.dumps(variant))
    assert (again.name, again.timeout, again.invoke({"a": 1, "b": 2})) == ("add_twice", 5, 3)


# --- review 326 #2: a sync+async StructuredTool sent by value keeps its resolved string annotations ------------------

async def _anorm(p: Point, unit: Literal["m", "km"] = "m") -> str:
    """Manhattan norm of a point."""
    return f"async {abs(p.x) + abs(p.y)} {unit}"


def _pair_factory() -> Tool:
    from toolwire import StructuredTool

    def norm(p: Point, unit: Literal["m", "km"] = "m") -> str:
        """Manhattan norm of a point."""
        return f"{abs(p.x) + abs(p.y)} {unit}"

    async def anorm(p: Point, unit: Literal["m", "km"] = "m") -> str:
        return f"async {abs(p.x) + abs(p.y)} {unit}"

    return StructuredTool.from_function(norm, anorm, name="norm", description="Norm.", timeout=3)


def test_a_sync_and_async_structured_tool_with_string_annotations_is_rebuilt_by_value() -> None:
    import asyncio

    made = _pair_factory()
    assert isinstance(made.func.__annotations__["p"], str)  # (PEP 563)
    back = by_value_roundtrip(made)
    args = {"p": {"x": 1, "y": -2}, "unit": "km"}
    assert back is not made and back.spec == made.spec and back.timeout == 3
    assert back.invoke(args) == "3 km" and asyncio.run(back.ainvoke(args)) == "async 3 km"


def test_the_standard_pickle_of_a_sync_and_async_structured_tool_sends_no_hints() -> None:
    from toolwire import StructuredTool

    variant = StructuredTool.from_function(add.func, _aadd, name="add_twice")
    assert len(variant.__reduce_ex__(4)[1]) == 9  # (as before: what older versions load)


PAIR_SCRIPT = '''
from __future__ import annotations
import asyncio, subprocess, sys
from typing import Literal
import cloudpickle
from pydantic import BaseModel
from toolwire import StructuredTool

class Point(BaseModel):
    x: int
    y: int

def s(p: Point, unit: Literal["m", "km"] = "m") -> str:
    """Norm."""
    return f"sync {abs(p.x) + abs(p.y)} {unit}"

async def co(p: Point, unit: Literal["m", "km"] = "m") -> str:
    return f"async {abs(p.x) + abs(p.y)} {unit}"

both = StructuredTool.from_function(s, coroutine=co, name="norm", description="norm")

if __name__ == "__main__":
    loader = ("import asyncio, pickle, sys; t = pickle.loads(sys.stdin.buffer.read()); a = {'p': {'x': 1, 'y': -2}};"
              "print(t.invoke(a), '|', asyncio.run(t.ainvoke(a)))")
    done = subprocess.run([sys.executable, "-c", loader], input=cloudpickle.dumps(both), capture_output=True)
    print(done.stdout.decode().strip() or done.stderr.decode().strip().splitlines()[-1])
'''


def test_cloudpickle_sends_a_string_annotated_sync_and_async_structured_tool(tmp_path: Path) -> None:
    cloudpickle = pytest.importorskip("cloudpickle")
    script = tmp_path / "pair_script.py"
    script.write_text(PAIR_SCRIPT)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (str(Path(cloudpickle.__file__).parent.parent),
                                                      env.get("PYTHONPATH"))))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, env=env,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["sync 3 m | async 3 m"]
