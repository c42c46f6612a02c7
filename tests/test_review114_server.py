"""Review 114, the MCP server (``toolwire mcp serve``): a tool raising ``KeyboardInterrupt`` answers ``isError`` and
the server goes on (finding 5); a result block the SDK refuses as MCP content goes out as text with one warning,
an image by URL is said as ``image_url``'s is, and ``resource_link`` blocks stay MCP content (finding 6); two
``--tools`` files with a tool of one name are both named (finding 13). The servers run in this process, reached
with the official client's in-memory transport; no model is loaded."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from toolwire import tool
from toolwire.mcp.server import build_server


def _calls(tools: list[Any], calls: list[str]) -> list[dict[str, Any]]:
    """Serve ``tools`` and call each name of ``calls`` in turn (no arguments) with the official client: the results
    as wire dicts. A ``KeyboardInterrupt`` that leaves the event loop fails the test (rather than stopping pytest)."""

    async def scenario() -> list[dict[str, Any]]:
        async with Client(build_server(tools), read_timeout_seconds=30) as client:
            answers = []
            for name in calls:
                result = await client.call_tool(name, {})
                answers.append(result.model_dump(mode="json", by_alias=True, exclude_none=True))
            return answers

    try:
        return asyncio.run(scenario())
    except KeyboardInterrupt:
        pytest.fail("the tool's KeyboardInterrupt left the server's event loop")


@tool
def ping() -> str:
    """Ping."""
    return "pong"


@tool
def sync_interrupt() -> str:
    """Raise KeyboardInterrupt."""
    raise KeyboardInterrupt


@tool
async def async_interrupt() -> str:
    """Raise KeyboardInterrupt."""
    raise KeyboardInterrupt


@tool(timeout=30)
async def timed_interrupt() -> str:
    """Raise KeyboardInterrupt, with a timeout (a task of its own)."""
    raise KeyboardInterrupt


@tool
async def items_interrupt() -> Any:
    """Yield an item, then raise KeyboardInterrupt."""
    yield "first"
    raise KeyboardInterrupt


@tool
def generator_interrupt() -> Any:
    """Yield an item, then raise KeyboardInterrupt (drained on the tool's thread)."""
    yield "first"
    raise KeyboardInterrupt


@pytest.mark.parametrize("name", ["sync_interrupt", "async_interrupt", "timed_interrupt", "items_interrupt",
                                  "generator_interrupt"])
def test_a_tool_raising_keyboard_interrupt_answers_is_error_and_the_server_goes_on(name: str) -> None:
    # the call was never answered, and the server died with a long traceback
    tools = [ping, sync_interrupt, async_interrupt, timed_interrupt, items_interrupt, generator_interrupt]
    failed, after = _calls(tools, [name, "ping"])
    assert failed["isError"] is True
    assert failed["content"] == [{"type": "text", "text": f"Error: tool '{name}' failed: Tool '{name}' tried to stop "
                                                          "the program (it raised KeyboardInterrupt); it was stopped."}]
    assert (after["isError"], after["content"][0]["text"]) == (False, "pong")
    with pytest.raises(KeyboardInterrupt):  # the server runs copies: the tool itself lets it through, as before
        sync_interrupt.invoke({})


@tool
def bad_resource() -> list[Any]:
    """A resource block without uri."""
    return [{"type": "text", "text": "before"}, {"type": "resource", "resource": {"text": "no uri", "blob": "A" * 500}}]


def test_a_block_mcp_refuses_is_sent_as_text_with_one_warning_per_tool(caplog: pytest.LogCaptureFixture) -> None:
    # the client got JSON-RPC "Invalid request parameters" (-32602) although the tool ran, and nothing was logged
    with caplog.at_level(logging.WARNING, logger="toolwire.mcp"):
        first, second = _calls([bad_resource], ["bad_resource", "bad_resource"])
    assert first == second and first["isError"] is False
    before, sent = first["content"]
    assert before == {"type": "text", "text": "before"}
    assert sent["type"] == "text" and sent["text"].startswith('{"type": "resource", "resource": {"text": "no uri"')
    assert "(500 characters)" in sent["text"] and "A" * 200 not in sent["text"]  # the payload shortened
    told = [r.getMessage() for r in caplog.records if r.name == "toolwire.mcp"]
    assert len(told) == 1
    assert told[0].startswith("Tool 'bad_resource' returned a 'resource' block that is not valid MCP content")
    assert "'uri'" in told[0]


@tool
def image_by_url() -> list[Any]:
    """An image given by its URL."""
    return [{"type": "image", "url": "https://example.org/cat.png"}]


@tool
def image_url_block() -> list[Any]:
    """An image_url block."""
    return [{"type": "image_url", "image_url": {"url": "https://example.org/cat.png"}}]


@tool
def links() -> list[Any]:
    """A text block and a resource_link block."""
    return [{"type": "text", "text": "the table:"},
            {"type": "resource_link", "uri": "file:///x.csv", "name": "x.csv", "mimeType": "text/csv"}]


def test_an_image_by_url_is_sent_as_an_image_url_block_is() -> None:
    # it went out as the block's raw JSON text
    by_url, image_url = _calls([image_by_url, image_url_block], ["image_by_url", "image_url_block"])
    assert by_url["content"] == image_url["content"] == [{"type": "text", "text": "Image: https://example.org/cat.png"}]


def test_resource_link_blocks_are_sent_as_mcp_resource_links() -> None:
    # the tool's list went out as JSON text
    import mcp.types

    if not hasattr(mcp.types, "ResourceLink"):
        pytest.skip("this mcp SDK has no resource_link content")
    (result,) = _calls([links], ["links"])
    assert result["isError"] is False
    text, link = result["content"]
    assert text == {"type": "text", "text": "the table:"}
    assert (link["type"], link["uri"], link["name"], link["mimeType"]) == ("resource_link", "file:///x.csv", "x.csv",
                                                                           "text/csv")


def test_mcp_serve_names_both_files_of_two_tools_of_one_name(tmp_path: Path) -> None:
    # it said only "Two tools are named 'add': give each tool a unique name."
    from typer.testing import CliRunner

    from toolwire.cli_mcp import app

    source = 'from toolwire import tool\n\n@tool\ndef add(a: int, b: int) -> int:\n    """Add."""\n    return a + b\n'
    for name in ("one.py", "two.py"):
        (tmp_path / name).write_text(source)
    first, second = str(tmp_path / "one.py"), str(tmp_path / "two.py")
    result = CliRunner().invoke(app, ["serve", "--tools", first, "--tools", second])
    assert result.exit_code == 1
    said = " ".join(result.output.split())
    assert f"Two tools are named 'add', one in {first} and one in {second}: rename one" in said
