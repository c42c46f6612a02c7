"""Review 117 (a new user's pass over the command line and the library): toolwire chat goes on after a question the
provider refuses; --tools loads a module of the user's project; ..."""

from __future__ import annotations

from typing import Any

import pytest
from typer.testing import CliRunner

from toolwire import HumanMessage
from toolwire.errors import ProviderError
from toolwire.testing import ScriptedChatModel


def _cli(monkeypatch: pytest.MonkeyPatch, model: Any, command: list[str], text: str | None = None) -> Any:
    from toolwire import cli

    monkeypatch.setattr(cli, "_model", lambda *args, **kwargs: model)
    return CliRunner().invoke(cli.app, command, input=text)


# -- #1: chat after a question the provider refuses ----------------------------------------------------------------


def _filtered(messages: list) -> str:
    questions = [m.text for m in messages if isinstance(m, HumanMessage)]
    if any("forbidden" in q for q in questions):
        raise ProviderError("The response was filtered due to the prompt triggering the content management policy.",
                            provider="openai", status=400, hint="rephrase the request")
    return "answers " + " + ".join(questions)


def test_chat_drops_a_question_the_provider_refuses_so_the_next_one_goes_through(
        monkeypatch: pytest.MonkeyPatch) -> None:
    model = ScriptedChatModel([_filtered], cycle=True)
    result = _cli(monkeypatch, model, ["chat"], "one\nsomething forbidden\ntwo\nexit\n")
    assert result.exit_code == 0, result.output
    assert "that question was dropped from the conversation" in result.output
    assert "answers one + two" in result.output  # was: every later question refused the same way
    assert [m.text for m in model.requests[-1].messages if isinstance(m, HumanMessage)] == ["one", "two"]


def test_chat_keeps_the_turn_after_an_error_worth_retrying(monkeypatch: pytest.MonkeyPatch) -> None:
    def busy_once(messages: list) -> str:
        if not getattr(busy_once, "done", False):
            busy_once.done = True  # type: ignore[attr-defined]
            raise ProviderError("Overloaded.", provider="openai", status=529, retryable=True)
        return "answers " + " + ".join(m.text for m in messages if isinstance(m, HumanMessage))

    result = _cli(monkeypatch, ScriptedChatModel([busy_once], cycle=True), ["chat"], "one\ntwo\nexit\n")
    assert "dropped" not in result.output and "answers one + two" in result.output


# -- #2, #4: --tools loads a module of the user's package, a file beside its helpers; tools named _x are not offered -


def _project(root: Any) -> None:
    (root / "shop_r117").mkdir()
    (root / "shop_r117" / "__init__.py").write_text(
        "from toolwire import tool\n\n@tool\ndef ping() -> str:\n    \"\"\"Ping.\"\"\"\n    return 'pong'\n")
    (root / "shop_r117" / "db.py").write_text("ORDERS = {'1': 'shipped'}\n")
    (root / "shop_r117" / "tools.py").write_text(
        "from toolwire import tool\nfrom toolwire.examples.book import calculate as _calculate\n"
        "from shop_r117.db import ORDERS\n\n@tool\ndef order_status(order: str) -> str:\n"
        "    \"\"\"Status of an order.\"\"\"\n    return ORDERS.get(order, _calculate.invoke({'expression': '1+1'}))\n")
    (root / "proj").mkdir()
    (root / "proj" / "helpers_r117.py").write_text("GREETING = 'hello'\n")
    (root / "proj" / "tools.py").write_text(
        "import helpers_r117\nfrom toolwire import tool\n\n@tool\ndef greet(name: str) -> str:\n"
        "    \"\"\"Greet someone.\"\"\"\n    return f'{helpers_r117.GREETING} {name}'\n")


def test_tools_load_from_a_module_of_the_users_package_and_a_file_beside_its_helpers(
        tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    import os
    import sys

    from toolwire.cli_tools import load_tools

    _project(tmp_path)
    monkeypatch.chdir(tmp_path)
    # the console script's path: neither the current folder nor the file's (was: "No module named 'shop'")
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", os.getcwd())])
    for name in [m for m in sys.modules if m == "shop_r117" or m.startswith("shop_r117.") or m == "helpers_r117"]:
        monkeypatch.delitem(sys.modules, name)
    tools = load_tools("shop_r117.tools")
    assert [t.name for t in tools] == ["order_status"]  # (not _calculate, which it only uses)
    assert tools[0].invoke({"order": "1"}) == "shipped"
    assert [t.name for t in load_tools("shop_r117")] == ["ping"]  # a package's folder named as a module
    assert [t.name for t in load_tools(str(tmp_path / "proj" / "tools.py"))] == ["greet"]


# -- #5: a call in the OpenAI SDK's own form, given to ToolExecutor ------------------------------------------------


def test_the_executor_reads_a_call_in_the_openai_sdks_form() -> None:
    from toolwire import ToolExecutor
    from toolwire.examples.book import BOOK_TOOLS

    good = {"id": "call_1", "type": "function", "function": {"name": "calculate", "arguments": '{"expression": "1+1"}'}}
    bad = {"id": "call_2", "type": "function", "function": {"name": "calculate", "arguments": '{"expression": '}}
    answers = ToolExecutor(BOOK_TOOLS).execute([good, bad])  # was: "There is no tool named None" for both
    assert [(m.tool_call_id, m.status) for m in answers] == [("call_1", "success"), ("call_2", "error")]
    assert answers[0].text == "2" and "None" not in answers[1].text


# -- #6, #7: what ask prints of a hosted model's text beside its calls, and of an image result ----------------------


def test_ask_prints_a_hosted_models_text_beside_its_calls_and_names_an_image_result(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    import base64

    from toolwire import AIMessage
    from toolwire.models import _sdk

    monkeypatch.setattr(_sdk, "SDKChatModel", ScriptedChatModel)  # (read whole, as a hosted model's replies are)
    png = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5"
                           "ErkJggg==")
    tools_file = tmp_path / "charts_r117.py"
    tools_file.write_text(f"from toolwire import tool\n\n@tool\ndef chart() -> bytes:\n    \"\"\"A chart.\"\"\"\n"
                          f"    return {png!r}\n")
    model = ScriptedChatModel([
        AIMessage("I will assume Paris, France.", tool_calls=[{"name": "chart", "args": {}, "id": "c1"}]), "Done."])
    result = _cli(monkeypatch, model, ["ask", "chart of Paris", "--tools", str(tools_file)])
    assert result.exit_code == 0, result.output
    assert result.output.count("I will assume Paris, France.") == 1  # was: only with --json
    assert f"← [image/png, {len(png)} bytes]" in result.output  # was: an empty "← " line


# -- #3: a result read while another tool of the same reply ran is not given again until a run confirms it --------


def test_a_list_read_beside_an_add_in_one_reply_is_read_again() -> None:
    from toolwire import Agent, AIMessage, ToolMessage, tool

    tasks = ["buy milk"]

    @tool
    def add_task(title: str) -> str:
        """Add a task."""
        tasks.append(title)
        return f"added {title!r}"

    reads: list[int] = []

    @tool
    def list_tasks() -> list[str]:
        """List the tasks."""
        reads.append(1)
        return ["buy milk"] if len(reads) == 1 else list(tasks)  # (the first read came before the task was written)

    def first_list(messages: list) -> AIMessage:  # (the list was read before the task was written)
        return AIMessage("", tool_calls=[{"name": "add_task", "args": {"title": "call mom"}, "id": "a"},
                                         {"name": "list_tasks", "args": {}, "id": "b"}])

    model = ScriptedChatModel([first_list, AIMessage("", tool_calls=[{"name": "list_tasks", "args": {}, "id": "c"}]),
                               "Your tasks."])
    result = Agent(model, [add_task, list_tasks]).invoke("Add 'call mom' and list my tasks.")
    answers = {m.tool_call_id: m.text for m in result.messages if isinstance(m, ToolMessage)}
    assert answers["c"] == '["buy milk", "call mom"]'  # was: the first, stale list again
    assert result.reused_calls == {}
