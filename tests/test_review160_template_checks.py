"""Review 160 #1: chat templates that check their conversation (Mistral v0.3 / Nemo: call ids of 9 alphanumerics;
Llama 3.1 / 3.2: one call per assistant turn) get conversations they accept under ``dialect="template"``.

The two templates below are written for this test in the style of those models' own (the same checks, the same
``raise_exception`` messages, a shorter body); they are rendered through the dialect and :class:`ChatTemplate` only, no
model is loaded."""

from __future__ import annotations

import pytest

from test_dialects import QWEN_TEMPLATE, WEATHER
from toolwire.errors import UserError
from toolwire.messages import AIMessage, HumanMessage, ToolMessage, tool_call
from toolwire.models._template_conversation import TemplateRules, template_rules
from toolwire.models.dialects import ChatTemplate, get_dialect

TOOLS = [WEATHER]

MISTRAL_STYLE = (
    "{{- bos_token }}{%- for message in messages %}"
    "{%- if message['role'] == 'user' %}{{- '[INST] ' + message['content'] + '[/INST]' }}"
    "{%- elif message.tool_calls is defined and message.tool_calls is not none %}{{- '[TOOL_CALLS] [' }}"
    "{%- for tool_call in message.tool_calls %}{%- set out = tool_call.function|tojson %}{{- out[:-1] }}"
    "{%- if not tool_call.id is defined or tool_call.id|length != 9 %}"
    "{{- raise_exception('Tool call IDs should be alphanumeric strings with length 9!') }}{%- endif %}"
    "{{- ', \"id\": \"' + tool_call.id + '\"}' }}{%- if not loop.last %}{{- ', ' }}{%- else %}"
    "{{- ']' + eos_token }}{%- endif %}{%- endfor %}"
    "{%- elif message['role'] == 'assistant' %}{{- ' ' + message['content']|trim + eos_token }}"
    "{%- elif message['role'] == 'tool' %}{{- '[TOOL_RESULTS] {\"content\": ' + message.content|string + ', ' }}"
    "{%- if not message.tool_call_id is defined or message.tool_call_id|length != 9 %}"
    "{{- raise_exception('Tool call IDs should be alphanumeric strings with length 9!') }}{%- endif %}"
    "{{- '\"call_id\": \"' + message.tool_call_id + '\"}[/TOOL_RESULTS]' }}"
    "{%- endif %}{%- endfor %}{# tools #}"
)

LLAMA_STYLE = (
    "{%- for message in messages %}"
    "{%- if not (message.role == 'tool' or 'tool_calls' in message) %}"
    "{{- '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n' + message['content'] + '<|eot_id|>' }}"
    "{%- elif 'tool_calls' in message %}"
    "{%- if not message.tool_calls|length == 1 %}"
    "{{- raise_exception('This model only supports single tool-calls at once!') }}"
    "{%- endif %}"
    "{%- set tool_call = message.tool_calls[0].function %}"
    "{{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n{\"name\": \"' + tool_call.name + '\", ' }}"
    "{{- '\"parameters\": ' + tool_call.arguments|tojson + '}<|eot_id|>' }}"
    "{%- elif message.role == 'tool' %}"
    "{{- '<|start_header_id|>ipython<|end_header_id|>\\n\\n' + message.content + '<|eot_id|>' }}"
    "{%- endif %}{%- endfor %}{# tools #}"
    "{%- if add_generation_prompt %}{{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{%- endif %}"
)


def _parallel_conversation(ids=("call_7ab0cf5f1", "call_7ab0cf5f2")):
    reply = AIMessage("Checking both.", tool_calls=[tool_call("get_weather", {"city": "Paris"}, ids[0]),
                                                    tool_call("get_weather", {"city": "London"}, ids[1])])
    return [HumanMessage("Weather in Paris and London?"), reply,
            ToolMessage("rainy", tool_call_id=ids[1], name="get_weather"),
            ToolMessage("sunny", tool_call_id=ids[0], name="get_weather")]


def _render(template, messages):
    chat = get_dialect("template", template).render(messages, TOOLS)
    return chat, ChatTemplate(template, bos_token="<s>", eos_token="</s>").render(chat)


def test_the_checks_are_read_from_the_template_text():
    assert template_rules(MISTRAL_STYLE) == TemplateRules(call_id_length=9)
    assert template_rules(LLAMA_STYLE) == TemplateRules(one_call_per_turn=True)
    assert template_rules(QWEN_TEMPLATE) == TemplateRules()
    # a count of calls that only chooses how to write them is no check
    assert template_rules("{% if message.tool_calls|length == 1 %}one{% else %}{{ tools }}{% endif %}"
                          "{{ raise_exception('no system role') }}") == TemplateRules()
    assert get_dialect("template", MISTRAL_STYLE).rules.call_id_length == 9
    assert get_dialect("json", MISTRAL_STYLE).rules == TemplateRules()


def test_ids_are_mapped_to_the_length_the_template_demands_alike_in_calls_and_results():
    chat, prompt = _render(MISTRAL_STYLE, _parallel_conversation())
    calls = next(m for m in chat.messages if m.get("tool_calls"))["tool_calls"]
    ids = [c["id"] for c in calls]
    assert all(len(i) == 9 and i.isalnum() for i in ids) and ids[0] != ids[1]
    # results in call order, each with its call's new id
    assert [(m["tool_call_id"], m["content"]) for m in chat.messages if m["role"] == "tool"] == [
        (ids[0], "sunny"), (ids[1], "rainy")]
    assert f'"call_id": "{ids[0]}"' in prompt
    # the same conversation gives the same ids, so the next prompt begins with this one (KV cache)
    longer = [*_parallel_conversation(), AIMessage("Sunny in Paris, rainy in London."), HumanMessage("Thanks!")]
    assert _render(MISTRAL_STYLE, longer)[1].startswith(prompt)


def test_an_id_that_already_fits_is_kept():
    chat, _ = _render(MISTRAL_STYLE, _parallel_conversation(("abcDEF123", "x")))
    calls = next(m for m in chat.messages if m.get("tool_calls"))["tool_calls"]
    assert calls[0]["id"] == "abcDEF123" and len(calls[1]["id"]) == 9


def test_a_turn_of_several_calls_is_written_as_single_call_turns_each_followed_by_its_result():
    chat, prompt = _render(LLAMA_STYLE, _parallel_conversation())
    shape = [(m["role"], len(m.get("tool_calls") or ()), m.get("tool_call_id")) for m in chat.messages
             if m["role"] != "system"]
    assert shape == [("user", 0, None), ("assistant", 1, None), ("tool", 0, "call_7ab0cf5f1"),
                     ("assistant", 1, None), ("tool", 0, "call_7ab0cf5f2")]
    turns = [m for m in chat.messages if m.get("tool_calls")]
    assert [t["content"] for t in turns] == ["Checking both.", ""]
    assert prompt.index('"Paris"') < prompt.index("sunny") < prompt.index('"London"') < prompt.index("rainy")


def test_the_last_turn_of_calls_still_unanswered_is_split_too():
    conv = _parallel_conversation()[:2]
    chat, _ = _render(LLAMA_STYLE, conv)
    assert [len(m["tool_calls"]) for m in chat.messages if m.get("tool_calls")] == [1, 1]


def test_a_template_with_both_checks_gets_both():
    both = MISTRAL_STYLE.replace("{%- for tool_call in message.tool_calls %}",
                                 "{%- if message.tool_calls|length != 1 %}{{- raise_exception('one call only') }}"
                                 "{%- endif %}{%- for tool_call in message.tool_calls %}")
    assert template_rules(both) == TemplateRules(9, True)
    chat, _ = _render(both, _parallel_conversation())
    assert [len(m["tool_calls"]) for m in chat.messages if m.get("tool_calls")] == [1, 1]


def test_a_check_the_conversation_still_fails_is_one_clear_user_error():
    strict = LLAMA_STYLE.replace("{%- for message in messages %}",
                                 "{%- if messages|length > 3 %}{{- raise_exception('Conversation too long!') }}"
                                 "{%- endif %}{%- for message in messages %}")
    with pytest.raises(UserError, match="cannot render this conversation: Conversation too long!"):
        _render(strict, _parallel_conversation())
