"""Review 218 #3: hide_error_details hides a toolwire error raised inside a LangChain tool's own function (a toolwire
tool it calls with a bad value, a ToolExecutionError it raises), worded as that tool's exception when shown, while
the errors toolwire's LangChain adapter raises about the call keep their wording. Review 217 #1's rest: a value the
model was not sent (from_langchain_tool's injected=, a functools.partial's) is not quoted back to it in the error text
of the tool's own exception. Review 218 #5: --tools path/to/nsp/tools.py of a namespace package, given from another
folder, is told which folder to run from and which module name to pass."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

import pytest

from toolwire import Agent, ToolExecutor, tool
from toolwire.errors import ToolExecutionError
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
