"""Review 166: typing for users of the library.

A small user program of the public API is type-checked with mypy (``--strict``) or pyright, whichever is installed
(skipped when neither is), against the installed toolwire, as a user would run them; runtime tests check that the
typing changes changed nothing at run time (``__slots__``, lazy ``toolwire.models``, ``tool(func, name=...)``).
"""

from __future__ import annotations

import copy
import importlib.util
import os
import pickle
import shutil
import subprocess
import sys
import textwrap
from importlib.resources import files
from pathlib import Path

import pytest

import toolwire
from toolwire import AIMessage, HumanMessage, Tool, tool
from toolwire.examples.book import get_weather
from toolwire.messages import BaseMessage
from toolwire.testing import ScriptedChatModel

# -- the user program (what a user of the public API writes; all correct) -----------------------------------------

GOOD = '''
import asyncio
from typing import Any

from toolwire import AIMessage, HumanMessage, Tool, ToolCall, ToolMessage, tool
from toolwire.models import BaseChatModel, ChatAnthropic, ChatLlamaCpp, ChatOpenAI, init_chat_model
from toolwire.testing import ScriptedChatModel


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def lookup(key: str) -> str:
    """Look a key up."""
    return key.upper()


@tool("multiply", timeout=5)
def mul(a: int, b: int) -> int:
    """Multiply two numbers."""
    return a * b


@tool(name="sub", return_direct=True)
def sub(a: int, b: int) -> int:
    """Subtract two numbers."""
    return a - b


renamed: Tool = tool(lookup, name="lookup_key")                   # 4: a function with options
tools = [add, renamed, mul, sub]                                  # a list of tools stays a list of Tool
tool_map = {t.name: t for t in tools}
reply = AIMessage(content="hi", id="m1")
text: str | list[Any] = reply.content                             # 1: message fields
ident: str | None = reply.id
who: str | None = ToolMessage(content="3", tool_call_id="c1", name="add").name
print(HumanMessage(content="x").id)
description: str = add.description                                # 1: documented Tool attributes
limit: float | None = add.timeout
add.timeout = 5
add.handle_errors = False
flags: tuple[bool, bool, bool] = (add.return_direct, add.handle_errors, add.hide_error_details)
print(add.response_format)
call: ToolCall = {"name": "add", "args": {"a": 1, "b": 2}, "id": "c1"}  # 8: "type" may be left out
answer: ToolMessage = add.invoke({**call, "type": "tool_call"})   # 6: a ToolCall gives a ToolMessage
raw: Any = add.invoke({"a": 1, "b": 2})
for each in AIMessage(content="", tool_calls=[call]).tool_calls:
    message: ToolMessage = tool_map[each["name"]].invoke(each)
model = ScriptedChatModel(["done"])
bound = model.bind_tools([add], tool_choice={"type": "function", "function": {"name": "add"}})  # 5: dict forms
bound = model.bind_tools([add], tool_choice={"type": "tool", "name": "add"})
classes: tuple[type[BaseChatModel], ...] = (ChatLlamaCpp, ChatOpenAI, ChatAnthropic)  # 3: real classes
make: Any = init_chat_model


async def main() -> None:
    async_answer: ToolMessage = await add.ainvoke(each)          # 6: ainvoke typed as invoke
    print(async_answer.content, await add.ainvoke({"a": 1, "b": 2}))

asyncio.run(main())
'''

# -- mistakes each checker must report (line -> what the report names) --------------------------------------------

BAD = '''
from toolwire import AIMessage, ToolCall, tool
from toolwire.models import ChatOpenAl


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


wrong: int = AIMessage(content="hi").content
add.timeout = "soon"
call: ToolCall = {"name": "add", "args": {"a": 1, "b": 2}, "id": "c1", "type": "tool_call"}
add.invoke(call).contnet


async def main() -> None:
    (await add.ainvoke(call)).stauts
'''


def _checker() -> list[str] | None:
    """The command that type-checks a file against the installed toolwire, or None when no checker is installed."""
    if importlib.util.find_spec("mypy") is not None:
        return [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--no-error-summary",
                "--python-executable", sys.executable]
    if (pyright := shutil.which("pyright")) is not None:
        return [pyright, "--pythonpath", sys.executable]
    return None


def _check(tmp_path: Path, source: str) -> subprocess.CompletedProcess[str]:
    command = _checker()
    if command is None:
        pytest.skip("neither mypy nor pyright is installed")
    program = tmp_path / "user_program.py"
    program.write_text(textwrap.dedent(source), encoding="utf-8")
    env = {**os.environ, "MYPY_CACHE_DIR": str(tmp_path / "cache")}
    return subprocess.run([*command, str(program)], cwd=tmp_path, capture_output=True, text=True, timeout=240,
                          env=env, check=False)


def test_a_user_program_of_the_public_api_type_checks(tmp_path: Path) -> None:
    done = _check(tmp_path, GOOD)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_checker_reports_the_users_mistakes(tmp_path: Path) -> None:
    done = _check(tmp_path, BAD)
    out = done.stdout
    assert done.returncode != 0
    assert "ChatOpenAl" in out  # 3: a misspelt model class
    assert "user_program.py:12" in out  # 1: str | list assigned to int
    assert "user_program.py:13" in out  # 1: a str for the float | None timeout
    assert "contnet" in out  # 6: a ToolMessage's misspelt attribute, from invoke(tool_call)
    assert "stauts" in out  # 6: and from ainvoke(tool_call)
    assert "import-untyped" not in out and "untyped-decorator" not in out  # 2: py.typed


# -- runtime: nothing changed -----------------------------------------------------------------------------------


def test_the_package_carries_the_pep_561_marker() -> None:
    assert files("toolwire").joinpath("py.typed").is_file()


def test_message_fields_are_declared_and_still_slots() -> None:
    assert BaseMessage.__slots__ == ("content", "id", "name")
    assert {"content", "id", "name"} <= set(BaseMessage.__annotations__)
    message = HumanMessage(content="hi", id="m1", name="ann")
    assert (message.content, message.id, message.name) == ("hi", "m1", "ann")
    with pytest.raises(AttributeError):
        message.content = "other"  # type: ignore[misc]
    assert AIMessage(content="x") == AIMessage(content="x")


def test_tool_options_are_declared_and_still_checked_when_set() -> None:
    @tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    options = {"description", "return_direct", "timeout", "response_format", "handle_errors", "hide_error_details"}
    assert options <= set(Tool.__annotations__) and options <= set(Tool.__slots__)
    assert (add.description, add.return_direct, add.timeout, add.response_format) == (
        "Add two numbers.", False, None, "content")
    add.timeout = 5
    assert add.timeout == 5
    with pytest.raises(toolwire.UserError):
        add.description = "new"


def test_tool_func_with_options_and_the_moved_decorator() -> None:
    def lookup(key: str) -> str:
        """Look a key up."""
        return key.upper()

    renamed = tool(lookup, name="lookup_key")
    assert isinstance(renamed, Tool) and renamed.name == "lookup_key"
    assert renamed("x") == "X" and renamed.invoke({"key": "y"}) == "Y"
    assert copy.copy(renamed).invoke({"key": "z"}) == "Z"
    assert toolwire.tools.tool is toolwire.tool
    assert pickle.loads(pickle.dumps(get_weather)).name == "get_weather"


def test_a_tool_call_without_its_type_key_is_taken() -> None:
    reply = AIMessage(content="", tool_calls=[{"name": "add", "args": {"a": 1, "b": 2}, "id": "c1"}])
    assert reply.tool_calls[0]["type"] == "tool_call"


def test_bind_tools_takes_the_documented_tool_choice_dicts() -> None:
    @tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    model = ScriptedChatModel(["done"])
    assert model.bind_tools([add], tool_choice={"type": "tool", "name": "add"}) is not model
    assert model.bind_tools([add], tool_choice={"type": "function", "function": {"name": "add"}}) is not model


def test_importing_toolwire_models_still_imports_no_sdk_nor_numpy() -> None:
    code = ("import sys, toolwire.models as m\n"
            "heavy = [n for n in ('openai', 'anthropic', 'google.genai', 'numpy', 'llama_cpp', 'httpx') "
            "if n in sys.modules]\n"
            "print(heavy)\n"
            "assert callable(m.init_chat_model)\n"
            "try:\n    m.ChatOpenAl\nexcept AttributeError as exc:\n    print('refused', exc)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "[]"
    assert "refused" in done.stdout
