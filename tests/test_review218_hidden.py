"""Review 218 #3: hide_error_details hides a toolwire error raised inside a LangChain tool's own function (a toolwire
tool it calls with a bad value, a ToolExecutionError it raises), worded as that tool's exception when shown, while
the errors toolwire's LangChain adapter raises about the call keep their wording. Review 217 #1's rest: a value the
model was not sent (from_langchain_tool's injected=, a functools.partial's) is not quoted back to it in the error text
of the tool's own exception. Review 218 #5: --tools path/to/nsp/tools.py of a namespace package, given from another
folder, is told which folder to run from and which module name to pass."""

from __future__ import annotations

import asyncio
import functools
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import pytest
from tests._namespace_packages import fresh_namespace, namespace_package

from toolwire import Agent, ToolExecutor, tool
from toolwire.errors import ToolExecutionError, UserError
from toolwire.testing import ScriptedChatModel

lc_tools = pytest.importorskip("langchain_core.tools")

SECRET = "ssn=123-45-6789"


@tool
def lookup_user(user_id: int) -> str:
    """Look a user up by id."""
    return f"user {user_id}"


@lc_tools.tool
def lc_summary(name: str) -> str:
    """Account summary (LangChain tool calling a toolwire tool with a value of its own)."""
    return lookup_user.invoke({"user_id": SECRET})


@lc_tools.tool
async def lc_async_summary(name: str) -> str:
    """The async form of lc_summary."""
    return await lookup_user.ainvoke({"user_id": SECRET})


@lc_tools.tool
def lc_charge(amount: int) -> str:
    """Charge (LangChain tool raising ToolExecutionError itself)."""
    raise ToolExecutionError(f"payment gateway key {SECRET} rejected", "lc_charge")


LC_TOOLS = {"lc_summary": "ToolValidationError", "lc_async_summary": "ToolValidationError",
            "lc_charge": "ToolExecutionError"}


def _call(name: str) -> dict[str, Any]:
    return {"name": name, "args": {"amount": 1} if name == "lc_charge" else {"name": "bob"}, "id": f"c_{name}"}


def _texts(tools: list[Any], calls: list[dict[str, Any]], *, hide: bool, run_async: bool) -> dict[str, str]:
    executor = ToolExecutor(tools, hide_error_details=hide)
    messages = asyncio.run(executor.acall(calls)) if run_async else executor.call(calls)
    return {m.name: m.content for m in messages}


@pytest.mark.parametrize("run_async", [False, True])
def test_hide_error_details_hides_a_toolwire_error_a_langchain_tools_code_raised(run_async: bool) -> None:
    names = list(LC_TOOLS) if run_async else ["lc_summary", "lc_charge"]
    texts = _texts([lc_summary, lc_async_summary, lc_charge], [_call(n) for n in names], hide=True,
                   run_async=run_async)
    for name in names:
        assert texts[name] == f"Error: tool '{name}' raised {LC_TOOLS[name]}. Try different arguments or another " \
                              "approach.", texts[name]


def test_the_agent_sends_the_model_the_hidden_text() -> None:
    from toolwire.messages import AIMessage, ToolMessage

    model = ScriptedChatModel([AIMessage("", tool_calls=[_call("lc_summary"), _call("lc_charge")]), "done"])
    Agent(model, [lc_summary, lc_charge], hide_error_details=True).invoke("go")
    sent = [m.content for m in model.requests[-1].messages if isinstance(m, ToolMessage)]
    assert len(sent) == 2 and not any(SECRET in text or "Invalid arguments" in text for text in sent), sent


def test_shown_it_is_worded_as_the_langchain_tools_own_exception() -> None:
    texts = _texts([lc_summary, lc_charge], [_call("lc_summary"), _call("lc_charge")], hide=False, run_async=False)
    assert texts["lc_summary"].startswith("Error: tool 'lc_summary' raised ToolValidationError: Invalid arguments "
                                          "for tool 'lookup_user'")
    assert texts["lc_charge"] == f"Error: tool 'lc_charge' raised ToolExecutionError: payment gateway key {SECRET} " \
                                 "rejected"


def test_the_adapters_own_errors_about_the_call_keep_their_wording() -> None:
    """A LangGraph Command the LangChain tool returns is refused by toolwire's adapter: that text, written for the
    model, is sent as it is, also with hide_error_details."""
    types = pytest.importorskip("langgraph.types")

    @lc_tools.tool
    def lc_command(tool_call_id: Annotated[str, lc_tools.InjectedToolCallId]) -> Any:
        """Returns a LangGraph Command."""
        return types.Command(update={"x": 1})

    texts = _texts([lc_command], [{"name": "lc_command", "args": {}, "id": "c1"}], hide=True, run_async=False)
    assert texts["lc_command"].startswith("Error: tool 'lc_command' ran but returned a LangGraph Command"), texts


# -- review 217 #1's rest: values the model was not sent, quoted in the tool's own exception --------------------------




def _injected_tool() -> Any:
    from pydantic import BaseModel

    class SearchArgs(BaseModel):
        query: str
        api_key: Annotated[str, lc_tools.InjectedToolArg]

    def search(query: str, api_key: str) -> str:
        raise ValueError(f"bad key {api_key} (also {api_key!r}) for {query}")

    lc = lc_tools.StructuredTool.from_function(search, name="search", description="Search.", args_schema=SearchArgs)
    from toolwire.interop.langchain import from_langchain_tool

    return from_langchain_tool(lc, injected={"api_key": "sk-live-SECRET-123"})


@pytest.mark.parametrize("run_async", [False, True])
def test_an_injected_value_is_not_quoted_in_the_tools_own_error(run_async: bool) -> None:
    texts = _texts([_injected_tool()], [{"name": "search", "args": {"query": "cats"}, "id": "c1"}], hide=False,
                   run_async=run_async)
    assert texts["search"] == "Error: tool 'search' raised ValueError: bad key <hidden> (also <hidden>) for cats"


def test_a_partials_bound_value_is_not_quoted_in_the_tools_own_error() -> None:
    from pydantic import BaseModel

    class Args(BaseModel):
        pattern: str

    def delete_files(pattern: str, user_id: str, token: str) -> str:
        """Delete files."""
        raise PermissionError(f"user {user_id!r} with token {token} may not delete {pattern}")

    made = tool(args_schema=Args)(functools.partial(delete_files, user_id="bob", token="tok-123456"))
    plain = tool(functools.partial(delete_files, user_id="bob", token="tok-123456"))
    for each in (made, plain):
        text = each.invoke({"name": each.name, "args": {"pattern": "*.tmp"}, "id": "c1", "type": "tool_call"}).content
        assert text == "Error: tool 'delete_files' raised PermissionError: user <hidden> with token <hidden> may " \
                       "not delete *.tmp", text


def test_a_short_value_is_hidden_only_where_quoted() -> None:
    def greet(name: str, lang: str) -> str:
        """Greet."""
        raise ValueError(f"no greeting in {lang!r} for {name}; en is the default")

    greeter = tool(functools.partial(greet, lang="en"))
    text = greeter.invoke({"name": "greet", "args": {"name": "ann"}, "id": "c1", "type": "tool_call"}).content
    assert text == "Error: tool 'greet' raised ValueError: no greeting in <hidden> for ann; en is the default"


def test_a_nested_tools_values_are_hidden_too() -> None:
    inner = _injected_tool()

    @tool
    def outer(query: str) -> str:
        """Runs search."""
        return inner.invoke({"query": query})

    text = outer.invoke({"name": "outer", "args": {"query": "cats"}, "id": "c1", "type": "tool_call"}).content
    assert "sk-live-SECRET-123" not in text and "bad key <hidden>" in text, text


# -- review 218 #5: a namespace package's module given from another folder --------------------------------------------


@pytest.fixture
def namespace(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    yield from fresh_namespace(monkeypatch, "nsp218")


def test_a_namespace_package_from_another_folder_is_told_where_to_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                      namespace: str) -> None:
    namespace_package(tmp_path / "proj", namespace)
    (tmp_path / "other").mkdir()
    monkeypatch.chdir(tmp_path / "other")
    with pytest.raises(UserError) as caught:
        load = __import__("toolwire.cli_tools", fromlist=["load_tools"]).load_tools
        load(f"../proj/{namespace}/tools.py")
    text = str(caught.value)
    folder = (tmp_path / "proj").resolve()
    assert text.endswith(f"../proj/{namespace}/tools.py is a module of a package, which loads by its module name: "
                         f"pass --tools {namespace}.tools (from the folder {folder}, which holds the package), then "
                         "try again."), text
    monkeypatch.chdir(folder)  # (what the advice says: it loads)
    tools = load(f"{namespace}.tools")
    assert [t.name for t in tools] == ["nst"] and tools[0].func(1) == f"{namespace}.util"


def test_a_namespace_name_a_module_elsewhere_takes_gets_no_advice(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """``json/tools.py`` from another folder: ``import json.tools`` would find the standard library's json."""
    from toolwire.cli_tools import load_tools

    monkeypatch.setattr(sys, "path", list(sys.path))
    namespace_package(tmp_path / "proj", "json")
    (tmp_path / "other").mkdir()
    monkeypatch.chdir(tmp_path / "other")
    with pytest.raises(UserError) as caught:
        load_tools("../proj/json/tools.py")
    assert "fix the code there" in str(caught.value) and "pass --tools" not in str(caught.value)
