"""The forty-second session's fixes for what reviews 111 and 112 left open: image bytes inside a dict or list, an
all-ASCII GIF, the context-window advice at the model's trained context, and ``agent.run``."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from typer.testing import CliRunner

from toolwire import Agent, tool
from toolwire.errors import ToolResultError, window_advice
from toolwire.messages import AIMessage
from toolwire.results import result_to_content
from toolwire.testing import ScriptedChatModel

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAA"
                       "AABJRU5ErkJggg==")
ASCII_GIF = (b"GIF89a\x01\x00\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;")
"""A valid 1x1 GIF with no colour table: every byte is below 0x80, so it is UTF-8 (review 112 #8)."""


# -- review 112 #8: an all-ASCII GIF ----------------------------------------------------------------------------


def test_an_all_ascii_gif_is_an_image_and_text_that_starts_like_one_stays_text() -> None:
    ASCII_GIF.decode("utf-8")  # (the case: it would pass as text)
    block, = result_to_content(ASCII_GIF)
    assert block["mime_type"] == "image/gif" and base64.b64decode(block["base64"]) == ASCII_GIF
    for text in (b"GIF89a is the name of a file format", b"GIF87a\tcolumns\r\nand rows\x1b[0m",
                 b"RIFF1234WEBP is a container"):
        assert result_to_content(text) == text.decode()
    webp = b"RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00/\x00\x00\x00\x10\x07\x10\x11\x11\x88\x88\xfe\x07\x00"
    assert result_to_content(webp)[0]["mime_type"] == "image/webp"


# -- review 111 #8b: images inside a dict or list -----------------------------------------------------------------


def test_images_inside_a_dict_or_list_become_image_blocks_after_the_json_text() -> None:
    content = result_to_content({"caption": "Sales by month", "chart": PNG, "sizes": [1, 2]})
    assert content[0] == {"type": "text", "text": json.dumps(
        {"caption": "Sales by month", "chart": "<image 1>", "sizes": [1, 2]})}
    assert content[1] == {"type": "image", "base64": base64.b64encode(PNG).decode(), "mime_type": "image/png"}
    text, first, second = result_to_content([PNG, {"nested": (ASCII_GIF, b"plain text")}])
    assert json.loads(text["text"]) == ["<image 1>", {"nested": ["<image 2>", "plain text"]}]
    assert (first["mime_type"], second["mime_type"]) == ("image/png", "image/gif")


def test_other_bytes_beside_an_image_are_still_an_error_that_keeps_the_value() -> None:
    value = {"chart": PNG, "raw": b"\xff\xfe\x00"}
    with pytest.raises(ToolResultError, match="not UTF-8 text") as error:
        result_to_content(value)
    assert error.value.result is value  # (kept for the error ToolMessage's artifact)
    assert result_to_content({"n": 1}) == '{"n": 1}'  # no image: as before


def test_a_tool_returning_a_captioned_chart_sends_both() -> None:
    @tool
    def chart(month: str) -> dict[str, Any]:
        """Draw the month's sales chart."""
        return {"month": month, "png": PNG}

    message = chart.invoke({"name": "chart", "args": {"month": "May"}, "id": "c1", "type": "tool_call"})
    assert message.status == "success" and [block["type"] for block in message.content] == ["text", "image"]
    assert '"png": "<image 1>"' in message.content[0]["text"]


# -- review 112 #5: "a larger n_ctx" at the model's trained context -----------------------------------------------


@pytest.mark.parametrize(("meta", "larger"), [
    ({"n_ctx": 4096, "trained_context": 4096}, False), ({"n_ctx": 2048, "trained_context": 4096}, True),
    ({"n_ctx": 2048, "trained_context": None}, True), ({}, True)])
def test_window_advice_offers_a_larger_window_only_below_the_trained_context(meta: dict[str, Any],
                                                                              larger: bool) -> None:
    advice = window_advice(meta, "a larger --n-ctx")
    assert ("pass a larger --n-ctx" in advice) is larger
    if not larger:
        assert "at most the 4096 tokens it was trained on" in advice and "shorten the conversation" in advice


def _cut(**sizes: Any) -> AIMessage:
    return AIMessage("", invalid_tool_calls=[{"name": "lookup", "args": '{"te', "id": "c", "error": "cut off"}],
                     response_metadata={"finish_reason": "length", "context_full": True, **sizes})


@tool
def lookup(term: str) -> str:
    """Look a term up."""
    return term


@pytest.mark.parametrize(("sizes", "larger"), [({"n_ctx": 4096, "trained_context": 4096}, False),
                                               ({"n_ctx": 2048, "trained_context": 4096}, True)])
def test_the_cli_and_the_agent_say_a_larger_window_only_when_one_loads(monkeypatch: pytest.MonkeyPatch,
                                                                        sizes: dict[str, int], larger: bool) -> None:
    from toolwire import cli

    monkeypatch.setattr(cli, "_model", lambda *args, **kwargs: ScriptedChatModel([_cut(**sizes)], cycle=True))
    monkeypatch.setattr(cli, "_loaded", lambda specs: [lookup])
    result = CliRunner().invoke(cli.app, ["ask", "look it up", "--max-steps", "2"])
    output = " ".join(result.output.split())
    assert ("--n-ctx" in output) is larger and "context window ran out" in output
    assert "new conversation" not in output  # (`ask` has no conversation to start anew: review 112)
    result = Agent(ScriptedChatModel([_cut(**sizes)], cycle=True), [lookup], max_steps=2).invoke("q")
    advice = window_advice(result.messages[-2].response_metadata)  # (review 267 #1: the run ends at the cut reply)
    assert result.stop_reason == "length" and ("larger n_ctx" in advice) is larger
    if not larger:
        assert "trained on" in advice


def test_a_cut_answer_in_chat_says_clear_starts_anew(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolwire import cli

    answer = AIMessage("Paris is", response_metadata={"finish_reason": "length", "context_full": True,
                                                      "n_ctx": 4096, "trained_context": 4096})
    monkeypatch.setattr(cli, "_model", lambda *args, **kwargs: ScriptedChatModel([answer]))
    result = CliRunner().invoke(cli.app, ["chat"], input="Tell me about Paris\nexit\n")
    output = " ".join(result.output.split())
    assert "trained on" in output and "'clear' starts a new conversation" in output and "--n-ctx" not in output


# -- review 111 #10b: agent.run -----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["run", "run_sync", "run_stream", "arun", "chat"])
def test_other_libraries_run_methods_say_what_to_call(name: str) -> None:
    agent = Agent(ScriptedChatModel(["hi"]), [lookup])
    with pytest.raises(AttributeError, match=r"no attribute .*: .*agent\.(invoke|ainvoke|stream)") as error:
        getattr(agent, name)
    assert error.value.name == name and not hasattr(agent, name)
    with pytest.raises(AttributeError, match=r"no attribute 'runn'$"):
        agent.runn  # noqa: B018  (any other name: Python's own message)
