"""Review 137 #4 and #8: a content block whose data is ``bytes`` works wherever base64 text does (every provider's
lowering, the local model's notes, ``to_dict`` in the standard base64 alphabet, conversations saved by an older
toolwire in the URL-safe one); dict keys that are the same JSON text (``1`` and ``"1"``) lose no entry."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from toolwire import ToolExecutor, tool
from toolwire.messages import (
    AIMessage,
    HumanMessage,
    ToolMessage,
    message_from_dict,
    messages_from_dict,
    messages_to_dict,
)
from toolwire.models import _text_content
from toolwire.models.lowering import anthropic, gemini, openai
from toolwire.results import bounded_content, json_ready, result_to_content

DATA = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4  # (its base64 holds "+" and "/")
TEXT = base64.b64encode(DATA).decode()
PDF = b"%PDF-1.4\n" + bytes(range(256))
CALL = {"name": "shot", "args": {}, "id": "toolu_1", "type": "tool_call"}


def _image(data: Any) -> dict[str, Any]:
    return {"type": "image", "base64": data, "mime_type": "image/png"}


def _conversations(data: Any, pdf: Any) -> list[list[Any]]:
    return [
        [HumanMessage("look"), AIMessage("", tool_calls=[CALL]), ToolMessage([_image(data)], "toolu_1", name="shot")],
        [HumanMessage([{"type": "text", "text": "what is it"}, _image(data)])],
        [HumanMessage([{"type": "file", "base64": pdf, "mime_type": "application/pdf", "filename": "a.pdf"}])],
        [HumanMessage([{"type": "image", "source_type": "base64", "data": data, "mime_type": "image/png"}])],
        [HumanMessage([{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}])],
    ]


LOWERINGS = {
    "anthropic": anthropic.lower_messages,
    "openai chat": openai.lower_messages,
    "openai responses": openai.lower_responses_messages,
    "gemini": gemini.lower_messages,
}


@pytest.mark.parametrize("name", list(LOWERINGS))
def test_bytes_in_a_block_lower_as_its_base64_text_does(name: str) -> None:
    lower = LOWERINGS[name]
    as_text = _conversations(TEXT, base64.b64encode(PDF).decode())
    for index, conversation in enumerate(_conversations(DATA, PDF)):
        assert lower(conversation) == lower(as_text[index]), (name, index)


def test_bytes_in_a_block_are_standard_base64_text_in_the_message() -> None:
    for conversation in _conversations(DATA, PDF):
        block = conversation[-1].content[-1]
        data = block.get("base64", block.get("data")) or block["source"]["data"]
        assert isinstance(data, str)
        assert base64.b64decode(data, validate=True) == (PDF if block["type"] == "file" else DATA)


def test_the_local_models_note_for_a_bytes_block_is_the_one_for_its_text() -> None:
    message = ToolMessage([_image(DATA)], "toolu_1")
    assert _text_content.media_note(message.content[0]) == _text_content.media_note(_image(TEXT))
    with pytest.raises(Exception, match="reads text only"):
        _text_content.prompt_text(HumanMessage([_image(DATA)]))


def test_to_dict_writes_a_blocks_bytes_in_the_standard_alphabet_and_reads_back_equal() -> None:
    conversation = _conversations(DATA, PDF)[0]
    saved = json.loads(json.dumps(messages_to_dict(conversation)))
    image = saved[2]["data"]["content"][0]["base64"] if "data" in saved[2] else saved[2]["content"][0]["base64"]
    assert image == TEXT
    assert messages_from_dict(saved) == conversation


def test_a_block_saved_in_the_url_safe_alphabet_by_an_older_toolwire_reads_back_as_standard_base64() -> None:
    old = ToolMessage([_image(TEXT)], "toolu_1").to_dict()
    old["content"][0]["base64"] = base64.urlsafe_b64encode(DATA).decode()  # (what pydantic's bytes_mode wrote)
    assert "-" in old["content"][0]["base64"] or "_" in old["content"][0]["base64"]
    back = message_from_dict(old)
    assert back.content[0]["base64"] == TEXT
    contents = gemini.lower_messages([HumanMessage([back.content[0]])])[1]
    assert contents[0]["parts"][0]["inline_data"]["data"] == DATA


def test_a_tool_returning_a_block_with_bytes_gives_that_block() -> None:
    @tool
    def shot() -> list:
        """A screenshot."""
        return [_image(DATA)]

    message = ToolExecutor([shot]).execute([{"name": "shot", "args": {}, "id": "c", "type": "tool_call"}])[0]
    assert message.content == [_image(TEXT)]


# --------------------------------------------------------------------------- #8: keys that are one JSON text

COLLIDING = {1: "alice", "1": "bob", None: "unassigned", "null": "carol"}
PAIRS = [[1, "alice"], ["1", "bob"], [None, "unassigned"], ["null", "carol"]]


def _answer(result: Any) -> ToolMessage:
    @tool(response_format="content_and_artifact")
    def scores() -> tuple:
        """Scores by id."""
        return result, result

    return ToolExecutor([scores]).execute([{"name": "scores", "args": {}, "id": "c", "type": "tool_call"}])[0]


def test_a_dict_whose_keys_are_one_json_text_keeps_every_entry_in_the_result_and_the_saved_artifact() -> None:
    message = _answer(COLLIDING)
    assert json.loads(message.content) == PAIRS
    saved = json.loads(json.dumps(messages_to_dict([message])))
    assert messages_from_dict(saved)[0].artifact == PAIRS
    assert json.loads(result_to_content({"rows": [{True: 1, "true": 2}]})) == {"rows": [[[True, 1], ["true", 2]]]}
    assert json.loads(bounded_content({"x": COLLIDING}, 1000)) == {"x": PAIRS}  # (the piece-by-piece writer too)


def test_keys_that_do_not_collide_are_written_alike_in_the_result_and_the_saved_artifact() -> None:
    message = _answer({None: 1, 2: "b", 1.5: "c", "a": [{None: 0}]})
    assert json.loads(message.content) == {"null": 1, "2": "b", "1.5": "c", "a": [{"null": 0}]}
    assert message.to_dict()["artifact"] == json.loads(message.content)  # ("None" there before)
    assert json_ready({1: "a", 2: "b"}) == {"1": "a", "2": "b"}


def test_bytes_in_a_saved_artifact_are_standard_base64() -> None:
    data = b"\xfb\xff\xfe" * 10
    saved = ToolMessage("x", "c", artifact={"raw": data, "list": [data]}).to_dict()["artifact"]
    assert saved == {"raw": base64.b64encode(data).decode(), "list": [base64.b64encode(data).decode()]}
    assert json_ready(data) == base64.b64encode(data).decode()
