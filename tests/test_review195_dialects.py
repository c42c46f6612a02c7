"""Review 195 #3 and #4: the local model's prompt follows the hosted providers' conversation rule in every dialect.

#3: under ``pythonic`` and ``json`` (the shipped models' defaults), every call gets exactly one result in the prompt,
as under ``template`` and on the hosted providers: of several results for one call the last, and a call the
conversation went on past without a result the "was not run" error result.

#4: under ``template``, a system message that is not first is not lost where the chat template shows only a leading
one (Mistral v0.3's): it is added to the leading system message, with a warning.

Only chat templates are rendered; no model is loaded.
"""

from __future__ import annotations

import logging

import pytest

from test_dialects import QWEN_TEMPLATE, WEATHER
from test_review160_template_checks import LLAMA_STYLE
from toolwire.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage, tool_call
from toolwire.models._template_conversation import TemplateRules, fit_to_rules, template_rules
from toolwire.models.dialects import ChatTemplate, get_dialect

TOOLS = [WEATHER]
NOT_RUN = "was not run: the conversation went on without its result"

# Mistral-7B-Instruct-v0.3's way with system messages, shortened: ``messages[0]`` is the system prompt, written
# with the last user turn; any other system turn renders as nothing (``{%- elif message["role"] == "system" %}``).
MISTRAL_SYSTEM = (
    "{%- if messages[0]['role'] == 'system' %}{%- set system_message = messages[0]['content'] %}"
    "{%- set loop_messages = messages[1:] %}{%- else %}{%- set loop_messages = messages %}{%- endif %}"
    "{{- bos_token }}{%- for message in loop_messages %}"
    "{%- if message['role'] == 'user' %}"
    "{%- if loop.last and system_message is defined %}"
    "{{- '[INST] ' + system_message + '\\n\\n' + message['content'] + '[/INST]' }}"
    "{%- else %}{{- '[INST] ' + message['content'] + '[/INST]' }}{%- endif %}"
    "{%- elif message.tool_calls is defined and message.tool_calls is not none %}{{- '[TOOL_CALLS] [' }}"
    "{%- for tool_call in message.tool_calls %}{%- set out = tool_call.function|tojson %}{{- out[:-1] }}"
    "{%- if not tool_call.id is defined or tool_call.id|length != 9 %}"
    "{{- raise_exception('Tool call IDs should be alphanumeric strings with length 9!') }}{%- endif %}"
    "{{- ', \"id\": \"' + tool_call.id + '\"}' }}{%- if not loop.last %}{{- ', ' }}{%- else %}"
    "{{- ']' + eos_token }}{%- endif %}{%- endfor %}"
    "{%- elif message['role'] == 'assistant' %}{{- ' ' + message['content']|trim + eos_token }}"
    "{%- elif message['role'] == 'tool' %}{{- '[TOOL_RESULTS] {\"content\": ' + message.content|string + ', ' }}"
    "{{- '\"call_id\": \"' + message.tool_call_id + '\"}[/TOOL_RESULTS]' }}"
    "{%- elif message['role'] == 'system' %}{%- endif %}{%- endfor %}{# tools #}"
)


def _two_calls() -> AIMessage:
    return AIMessage("", tool_calls=[tool_call("get_weather", {"city": "Paris"}, "c1"),
                                     tool_call("get_weather", {"city": "Oslo"}, "c2")])


def _results_turn(name: str, conversation: list) -> str:
    messages = get_dialect(name).render(conversation, TOOLS).messages
    return next(m["content"] for m in reversed(messages) if m["content"].startswith("Function results:"))


# -- #3: pythonic and json --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["pythonic", "json"])
def test_a_call_the_conversation_went_past_gets_the_not_run_result(name):
    conversation = [HumanMessage("Weather in Paris and Oslo?"), _two_calls(),
                    ToolMessage("sunny", tool_call_id="c1"), HumanMessage("And what should I wear?")]
    turn = _results_turn(name, conversation)
    lines = turn.splitlines()
    assert "sunny" in lines[1] and "Paris" in lines[1]
    assert "Oslo" in lines[2] and f"error: Error: tool 'get_weather' {NOT_RUN}." in lines[2]
    assert turn.endswith("answer this request in its own language: And what should I wear?")


@pytest.mark.parametrize("name", ["pythonic", "json"])
def test_of_several_results_for_one_call_only_the_last_is_written(name, caplog):
    conversation = [HumanMessage("Weather in Paris and Oslo?"), _two_calls(),
                    ToolMessage("Error: timeout", tool_call_id="c1", status="error"),
                    ToolMessage("sunny", tool_call_id="c1"), ToolMessage("rain", tool_call_id="c2")]
    with caplog.at_level(logging.WARNING):
        turn = _results_turn(name, conversation)
    assert "timeout" not in turn
    assert turn.count(" -> ") == 2 and "Paris" in turn.splitlines()[1] and "sunny" in turn.splitlines()[1]
    assert "rain" in turn.splitlines()[2]
    assert "several results" in caplog.text


@pytest.mark.parametrize("name", ["pythonic", "json"])
def test_results_go_in_call_order_and_back_to_their_call(name):
    # c2's result first, c1's after the user went on: both come back right after the calls, in call order
    conversation = [HumanMessage("Weather in Paris and Oslo?"), _two_calls(), ToolMessage("rain", tool_call_id="c2"),
                    HumanMessage("Hurry."), ToolMessage("sunny", tool_call_id="c1")]
    messages = get_dialect(name).render(conversation, TOOLS).messages
    turn = messages[-1]["content"]
    lines = turn.splitlines()
    assert "Paris" in lines[1] and "sunny" in lines[1] and "Oslo" in lines[2] and "rain" in lines[2]
    assert turn.endswith("answer this request in its own language: Hurry.")


@pytest.mark.parametrize("name", ["pythonic", "json"])
def test_an_orphan_result_is_still_written_as_a_result_and_a_pending_call_is_left(name):
    orphan = [HumanMessage("q"), ToolMessage("lost", tool_call_id="zz", name="get_weather")]
    assert "get_weather(...) -> lost" in get_dialect(name).render(orphan, TOOLS).messages[-1]["content"]
    pending = [HumanMessage("Weather in Paris and Oslo?"), _two_calls()]  # the caller is about to answer them
    assert NOT_RUN not in str(get_dialect(name).render(pending, TOOLS).messages)


@pytest.mark.parametrize("name", ["pythonic", "json"])
def test_a_well_formed_conversation_renders_as_before(name):
    # results right after their calls, in order: nothing moves, so each prompt still extends the previous one
    ai = _two_calls()
    first = [HumanMessage("Weather in Paris and Oslo?"), ai, ToolMessage("sunny", tool_call_id="c1"),
             ToolMessage("rain", tool_call_id="c2")]
    rendered = get_dialect(name).render(first, TOOLS).messages
    assert [m["role"] for m in rendered] == ["system", "user", "assistant", "user"]
    assert NOT_RUN not in str(rendered)
    longer = get_dialect(name).render([*first, AIMessage("Sunny and rainy."), HumanMessage("Thanks")], TOOLS)
    assert longer.messages[:len(rendered)] == rendered


# -- #4: a later system message under template ------------------------------------------------------------------------


def _mid_system() -> list:
    return [SystemMessage("You are helpful."), HumanMessage("Weather in Paris?"), AIMessage("Sunny."),
            SystemMessage("From now on, answer in French."), HumanMessage("And in Oslo?")]


def _prompt(template: str, conversation: list) -> str:
    chat = get_dialect("template", template).render(conversation, TOOLS)
    return ChatTemplate(template, bos_token="<s>", eos_token="</s>").render(chat)


def test_rules_find_a_template_that_skips_later_system_messages():
    assert template_rules(MISTRAL_SYSTEM) == TemplateRules(9, False, True)
    assert not template_rules(QWEN_TEMPLATE).later_system_dropped  # Qwen's and Llama's templates show them
    assert not template_rules(LLAMA_STYLE).later_system_dropped
    refusing = "{{ raise_exception('no') }}{{ messages }}{# tools #}"  # cannot render the probe: nothing known
    assert not template_rules(refusing).later_system_dropped
    assert not template_rules("{% for m in messages %}{% endfor %}{# tools #}").later_system_dropped  # shows neither


def test_a_later_system_message_joins_the_leading_one_with_a_warning(caplog):
    with caplog.at_level(logging.WARNING, logger="toolwire.models"):
        prompt = _prompt(MISTRAL_SYSTEM, _mid_system())
    assert "From now on, answer in French." in prompt
    assert prompt.index("You are helpful.") < prompt.index("answer in French") < prompt.index("And in Oslo?")
    assert "SystemMessage after the conversation started" in caplog.text


def test_a_later_system_message_with_no_leading_one_becomes_the_leading_one():
    conversation = _mid_system()[1:]
    assert "From now on, answer in French." in _prompt(MISTRAL_SYSTEM, conversation)
    messages = fit_to_rules([{"role": "user", "content": "q"}, {"role": "system", "content": "Be brief."},
                             {"role": "system", "content": ""}], TemplateRules(later_system_dropped=True))
    assert messages == [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "q"}]


def test_templates_that_show_later_system_messages_keep_them_in_place(caplog):
    with caplog.at_level(logging.WARNING, logger="toolwire.models"):
        chat = get_dialect("template", QWEN_TEMPLATE).render(_mid_system(), TOOLS)
    assert [m["role"] for m in chat.messages] == ["system", "user", "assistant", "system", "user"]
    assert "SystemMessage after the conversation started" not in caplog.text
