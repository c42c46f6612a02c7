"""Review 201 #3: under ``pythonic`` and ``json`` too, a system message that is not first is not lost where the chat
template shows only a leading one (Mistral v0.3's); review 198 #1: one tool whose arguments are a top-level union of
objects is not taken for a tool without parameters. Only chat templates are rendered; no model is loaded."""

from __future__ import annotations

import logging

import pytest

from test_dialects import QWEN_TEMPLATE, WEATHER
from test_review195_dialects import MISTRAL_SYSTEM, _mid_system
from toolwire.models.dialects import ChatTemplate, get_dialect, local_parameters


@pytest.mark.parametrize("name", ["pythonic", "json"])
def test_a_later_system_message_joins_the_leading_one(name, caplog):
    with caplog.at_level(logging.WARNING, logger="toolwire.models"):
        chat = get_dialect(name, MISTRAL_SYSTEM).render(_mid_system(), [WEATHER])
        prompt = ChatTemplate(MISTRAL_SYSTEM, bos_token="<s>", eos_token="</s>").render(chat)
    assert "From now on, answer in French." in prompt
    assert chat.messages[0]["role"] == "system"
    assert "system" not in [m["role"] for m in chat.messages][1:]
    assert "SystemMessage after the conversation started" in caplog.text


@pytest.mark.parametrize("name", ["pythonic", "json"])
def test_templates_that_show_later_system_messages_keep_them_in_place(name, caplog):
    with caplog.at_level(logging.WARNING, logger="toolwire.models"):
        chat = get_dialect(name, QWEN_TEMPLATE).render(_mid_system(), [WEATHER])
    assert [m["role"] for m in chat.messages].count("system") == 2
    assert "SystemMessage after the conversation started" not in caplog.text


def test_a_top_level_union_tool_has_parameters_for_the_local_model():
    union = {"oneOf": [{"type": "object", "properties": {"op": {"const": "add"}, "x": {"type": "integer"}},
                        "required": ["op", "x"]},
                       {"type": "object", "properties": {"op": {"const": "del"}, "id": {"type": "string"}},
                        "required": ["op", "id"]}]}
    assert set(local_parameters(union)["properties"]) == {"op", "x", "id"}
