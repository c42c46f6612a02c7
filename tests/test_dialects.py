"""Prompt dialects of the local model: rendering of tools, calls and results; call-start recognition."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from toolwire.errors import UserError
from toolwire.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage, content_text, tool_call
from toolwire.models.dialects import (
    CHATML_TEMPLATE,
    RAW_KEY,
    ChatTemplate,
    Rendered,
    default_dialect,
    default_dialect_for,
    fingerprint,
    format_calls,
    get_dialect,
    parse_reply,
    python_signature,
)
from toolwire.models.openers import OpenerScanner
from toolwire.tools import ToolSpec

# The chat template stored in Qwen2.5-Coder-1.5B-Instruct's GGUF (Apache-2.0, Qwen team).
QWEN_TEMPLATE = (
    '{%- if tools %}\n'
    "    {{- '<|im_start|>system\\n' }}\n"
    "    {%- if messages[0]['role'] == 'system' %}\n"
    "        {{- messages[0]['content'] }}\n"
    '    {%- else %}\n'
    "        {{- 'You are Qwen, created by Alibaba Cloud. You are a helpful assistant"
    ".' }}\n"
    '    {%- endif %}\n'
    '    {{- "\\n\\n# Tools\\n\\nYou may call one or more functions to assist with the us'
    'er query.\\n\\nYou are provided with function signatures within <tools></tools> XM'
    'L tags:\\n<tools>" }}\n'
    '    {%- for tool in tools %}\n'
    '        {{- "\\n" }}\n'
    '        {{- tool | tojson }}\n'
    '    {%- endfor %}\n'
    '    {{- "\\n</tools>\\n\\nFor each function call, return a json object with functio'
    'n name and arguments within <tool_call></tool_call> XML tags:\\n<tool_call>\\n{{\\"'
    'name\\": <function-name>, \\"arguments\\": <args-json-object>}}\\n</tool_call><|im_e'
    'nd|>\\n" }}\n'
    '{%- else %}\n'
    "    {%- if messages[0]['role'] == 'system' %}\n"
    "        {{- '<|im_start|>system\\n' + messages[0]['content'] + '<|im_end|>\\n' }}\n"
    '    {%- else %}\n'
    "        {{- '<|im_start|>system\\nYou are Qwen, created by Alibaba Cloud. You are"
    " a helpful assistant.<|im_end|>\\n' }}\n"
    '    {%- endif %}\n'
    '{%- endif %}\n'
    '{%- for message in messages %}\n'
    '    {%- if (message.role == "user") or (message.role == "system" and not loop.fi'
    'rst) or (message.role == "assistant" and not message.tool_calls) %}\n'
    "        {{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>"
    "' + '\\n' }}\n"
    '    {%- elif message.role == "assistant" %}\n'
    "        {{- '<|im_start|>' + message.role }}\n"
    '        {%- if message.content %}\n'
    "            {{- '\\n' + message.content }}\n"
    '        {%- endif %}\n'
    '        {%- for tool_call in message.tool_calls %}\n'
    '            {%- if tool_call.function is defined %}\n'
    '                {%- set tool_call = tool_call.function %}\n'
    '            {%- endif %}\n'
    '            {{- \'\\n<tool_call>\\n{"name": "\' }}\n'
    '            {{- tool_call.name }}\n'
    '            {{- \'", "arguments": \' }}\n'
    '            {{- tool_call.arguments | tojson }}\n'
    "            {{- '}\\n</tool_call>' }}\n"
    '        {%- endfor %}\n'
    "        {{- '<|im_end|>\\n' }}\n"
    '    {%- elif message.role == "tool" %}\n'
    '        {%- if (loop.index0 == 0) or (messages[loop.index0 - 1].role != "tool") '
    '%}\n'
    "            {{- '<|im_start|>user' }}\n"
    '        {%- endif %}\n'
    "        {{- '\\n<tool_response>\\n' }}\n"
    '        {{- message.content }}\n'
    "        {{- '\\n</tool_response>' }}\n"
    '        {%- if loop.last or (messages[loop.index0 + 1].role != "tool") %}\n'
    "            {{- '<|im_end|>\\n' }}\n"
    '        {%- endif %}\n'
    '    {%- endif %}\n'
    '{%- endfor %}\n'
    '{%- if add_generation_prompt %}\n'
    "    {{- '<|im_start|>assistant\\n' }}\n"
    '{%- endif %}\n'
)

WEATHER = ToolSpec("get_weather", "Get the current weather in a city.", {
    "type": "object", "properties": {"city": {"type": "string", "description": "The city name."}},
    "required": ["city"]})
CALC = ToolSpec("calculate", "Calculate an arithmetic expression.", {
    "type": "object", "properties": {"expression": {"type": "string"}}, "required": ["expression"]})
TOOLS = [WEATHER, CALC]
NAMES = ["get_weather", "calculate"]


def conversation() -> list:
    """The book's Tokyo question after the model's two calls and the two results."""
    ai = AIMessage("", tool_calls=[tool_call("get_weather", {"city": "Tóquio"}, "c1"),
                                   tool_call("calculate", {"expression": "123 * 456"}, "c2")])
    return [HumanMessage("Como está o clima em Tóquio e quanto é 123 * 456?"), ai,
            ToolMessage("It's always sunny in Tóquio!", "c1", name="get_weather"),
            ToolMessage("56088", "c2", name="calculate")]


# -- defaults and names ------------------------------------------------------------------------------


def test_default_dialect_per_family():
    assert default_dialect({"general.architecture": "qwen2", "general.name": "Qwen2.5 Coder"}, QWEN_TEMPLATE) == (
        "pythonic")
    assert default_dialect({"general.architecture": "qwen2", "general.name": "Qwen2.5 Coder 0.5B Instruct AWQ"},
                           QWEN_TEMPLATE) == "json"  # measured on BFCL: benchmarks/ACCURACY.md
    assert default_dialect({"general.architecture": "llama", "general.name": "Smollm2 135M"}, "x") == "json"
    assert default_dialect({"general.architecture": "gemma3"}, "{% if tools %}") == "template"
    assert default_dialect({"general.architecture": "phi3"}, CHATML_TEMPLATE) == "json"
    assert default_dialect({}, None) == "json"


def test_default_dialect_with_several_tools():
    q15 = {"general.architecture": "qwen2", "general.name": "Qwen2.5 Coder 1.5B Instruct GGUF"}
    q05 = {"general.architecture": "qwen2", "general.name": "Qwen2.5 Coder 0.5B Instruct GGUF"}
    # one tool (or none): the family default; two or more: the dialect measured better there (ACCURACY.md)
    assert [default_dialect(q15, QWEN_TEMPLATE, n) for n in (0, 1, 2, 5)] == ["pythonic", "pythonic", "json", "json"]
    assert [default_dialect(q05, QWEN_TEMPLATE, n) for n in (1, 3)] == ["json", "json"]
    assert default_dialect({"general.architecture": "qwen2", "general.name": "Qwen2.5 Coder 3B"}, None, 3) == "pythonic"
    one, several = default_dialect_for(q15, QWEN_TEMPLATE, 1), default_dialect_for(q15, QWEN_TEMPLATE, 3)
    assert one == get_dialect("pythonic")
    # json with the bars it was measured with: pythonic's call bar and value check
    assert (several.name, several.formats) == ("json", ("json",))
    assert (several.min_call_probability, several.min_value_probability, several.optional_argument_share) == (
        0.25, 0.3, 0.0)
    # the 0.5b: json, with its family's going on to another call (twenty-fifth session)
    small = dataclasses.replace(get_dialect("json"), parallel_call_share=0.02)
    assert default_dialect_for(q05, QWEN_TEMPLATE, 3) == default_dialect_for(q05, QWEN_TEMPLATE, 1) == small
    # one tool without parameters takes the dialect of several (review 145 #1: pythonic made up ['14:30'])
    assert default_dialect_for(q15, QWEN_TEMPLATE, 1, no_parameters=True) == several
    assert default_dialect_for(q05, QWEN_TEMPLATE, 1, no_parameters=True) == small


def test_get_dialect():
    assert get_dialect("pythonic").formats == ("pythonic", "json")
    assert get_dialect("json").formats == ("json",)
    assert get_dialect("template", QWEN_TEMPLATE).formats == ("hermes", "json")
    assert get_dialect("template", "{{ tools }}").formats == ("json",)
    with pytest.raises(UserError, match="does not take tools"):
        get_dialect("template", CHATML_TEMPLATE)
    with pytest.raises(UserError, match="Unknown dialect 'xml'"):
        get_dialect("xml")


# -- pythonic and json prompts -------------------------------------------------------------------------


def test_python_signature_describes_the_tool():
    spec = ToolSpec("find", "Find things.\nMore words.", {
        "type": "object",
        "properties": {"units": {"enum": ["c", "f"], "default": "c"}, "q": {"type": "string", "description": "Q."},
                       "n": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
                       "tags": {"type": "array", "items": {"type": "string"}}},
        "required": ["q"]})
    assert python_signature(spec) == (
        'def find(q: str, units: Literal["c", "f"] = "c", n: int | None = None, tags: list[str] = None):\n'
        '    """Find things.\n    More words.\n\n    Args:\n        q: Q.\n    """')


def test_pythonic_rendering_of_tools_calls_and_results():
    chat = get_dialect("pythonic").render([SystemMessage("Be brief."), *conversation()], TOOLS)
    assert chat.tools is None
    roles = [m["role"] for m in chat.messages]
    assert roles == ["system", "user", "assistant", "user"]
    system = chat.messages[0]["content"]
    assert system.startswith("Be brief.\n\nYou can call these Python functions:")
    assert "def get_weather(city: str):" in system and "def calculate(expression: str):" in system
    # the example shows one tool called for two values (one call per value, all in one list)
    assert '[get_weather(city="value"), get_weather(city="other value")]' in system
    assert "the same question about several values takes one call per value" in system
    assert chat.messages[2]["content"] == '[get_weather(city="Tóquio"), calculate(expression="123 * 456")]'
    assert chat.messages[3]["content"] == ('Function results:\nget_weather(city="Tóquio") -> It\'s always sunny '
                                          'in Tóquio!\ncalculate(expression="123 * 456") -> 56088\n\nUsing these '
                                          'results, answer this request in its own language'
                                          ': Como está o clima em Tóquio e quanto é 123 * 456?')


def test_results_errors_and_a_following_user_turn_share_one_message():
    ai = AIMessage("Vou ver.", tool_calls=[tool_call("calculate", {"expression": "1/0"}, "c9")])
    chat = get_dialect("pythonic").render(
        [HumanMessage("q"), ai, ToolMessage("division by zero\nline 2", "c9", status="error"), HumanMessage("e aí?")],
        TOOLS, parallel=False)
    assert chat.messages[2]["content"] == 'Vou ver.\n[calculate(expression="1/0")]'
    assert chat.messages[3]["content"] == ('Function results:\ncalculate(expression="1/0") ->\nerror: division by '
                                          'zero\nline 2\n\nUsing these results, answer this request in its own language'
                                          ': e aí?')  # (review 65)
    assert "Call at most one function per reply." in chat.messages[0]["content"]


def test_json_dialect_rendering():
    chat = get_dialect("json").render(conversation(), TOOLS, tool_choice="calculate")
    system = chat.messages[0]["content"]
    assert json.loads(system.split("\n")[2])["name"] == "get_weather"
    assert chat.messages[-1]["content"].endswith("answer this request in its own language"
                                                 ": Como está o clima em Tóquio e quanto é 123 * 456?\n\nNow "
                                                 "reply with a call of the function calculate only.")
    assert json.loads(chat.messages[2]["content"]) == [
        {"name": "get_weather", "arguments": {"city": "Tóquio"}},
        {"name": "calculate", "arguments": {"expression": "123 * 456"}}]
    assert chat.messages[3]["content"].startswith('Function results:\n{"name": "get_weather"')


def test_pythonic_prompt_history_and_results_spell_names_python_cannot_read():
    # review 3 #1: the prompt, the history and the results show the Python-safe spelling the grammar
    # allows (get_weather for get-weather, from_ for from); the parser maps it back
    flight = ToolSpec("book-flight", "Book a flight.", {
        "type": "object",
        "properties": {"class": {"enum": ["eco", "biz"], "description": "Cabin."},
                       "from": {"type": "string", "description": "Origin."}, "first-name": {"type": "string"}},
        "required": ["from", "first-name"]})
    args = {"class": "eco", "from": "OSL", "first-name": "Ann"}
    ai = AIMessage("", tool_calls=[tool_call("book-flight", args, "f1")])
    messages = [HumanMessage("Book it."), ai, ToolMessage("booked", "f1", name="book-flight"),
                ToolMessage("lost", "f9", name="book-flight")]
    chat = get_dialect("pythonic").render(messages, [flight, *TOOLS], tool_choice="book-flight")
    system = chat.messages[0]["content"]
    assert ('def book_flight(from_: str, first_name: str, class_: Literal["eco", "biz"] = None):\n'
            '    """Book a flight.\n\n    Args:\n        from_: Origin.\n        class_: Cabin.\n    """') in system
    assert '[book_flight(from_="value", first_name="value"), book_flight(from_="other value"' in system
    assert chat.messages[2]["content"] == '[book_flight(from_="OSL", first_name="Ann", class_="eco")]'
    assert chat.messages[3]["content"].startswith(
        'Function results:\nbook_flight(from_="OSL", first_name="Ann", class_="eco") -> booked\n'
        'book_flight(...) -> lost')
    assert chat.messages[3]["content"].endswith("Now reply with a call of the function book_flight only.")
    reply = parse_reply(chat.messages[2]["content"], [flight, *TOOLS], "pythonic")
    assert [(c["name"], c["args"]) for c in reply.tool_calls] == [
        ("book-flight", {"from": "OSL", "first-name": "Ann", "class": "eco"})]
    # the json dialect shows and expects the real names
    chat = get_dialect("json").render(messages, [flight], tool_choice="book-flight")
    assert chat.messages[-1]["content"].endswith("Now reply with a call of the function book-flight only.")
    assert json.loads(chat.messages[2]["content"])["name"] == "book-flight"


def test_a_call_in_the_python_spelling_of_a_bound_name_opens_a_call():
    scanner = OpenerScanner(("pythonic", "json"), ("get-weather", "calculate"))
    assert scanner.feed('[get_weather(city="Oslo")]') == (0, "pythonic")
    assert OpenerScanner(("pythonic",), ("get-weather",)).feed('get_weather(city="Oslo")') == (0, "pythonic")
    assert OpenerScanner(("json",), ("get-weather",)).feed('{"name": "get-weather", "arguments": {}}') == (0, "json")


def test_no_tools_means_no_tool_prompt():
    chat = get_dialect("pythonic").render(conversation(), ())
    assert chat.messages[0]["role"] == "user"
    assert chat.messages[1]["content"].startswith("[get_weather(")  # history is still written


# -- what a text-only model cannot read ---------------------------------------------------------------------

IMAGE_BLOCKS = [
    {"type": "image", "source_type": "url", "url": "https://example.com/cat.png"},
    {"type": "image", "base64": "iVBORw0KGgo=", "mime_type": "image/png"},
    {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}},
]


@pytest.mark.parametrize("block", IMAGE_BLOCKS)
@pytest.mark.parametrize("name, template", [("pythonic", None), ("json", None), ("template", QWEN_TEMPLATE)])
def test_an_image_in_a_user_or_system_message_is_a_user_error_not_dropped(block, name, template):
    dialect = get_dialect(name, template)
    for message in (HumanMessage([{"type": "text", "text": "What is in this picture?"}, block]),
                    HumanMessage([block]), SystemMessage(["Be brief.", block])):
        with pytest.raises(UserError) as info:
            dialect.render([message], TOOLS)
        assert str(info.value) == ("This local model reads text only: describe the image in text or use a model "
                                   "that takes images.")
    with pytest.raises(UserError, match=r"^qwen2\.5-coder-1\.5b reads text only: describe the image"):
        dialect.render([HumanMessage([block])], TOOLS, model="qwen2.5-coder-1.5b")
    with pytest.raises(UserError, match="describe the audio in text or use a model that takes audio"):
        dialect.render([HumanMessage([{"type": "audio", "data": "UklGR", "mime_type": "audio/wav"}])], TOOLS)


@pytest.mark.parametrize("name, template", [("pythonic", None), ("json", None), ("template", QWEN_TEMPLATE)])
def test_an_image_in_a_tool_result_becomes_a_note_and_the_result_is_kept(name, template):
    ai = AIMessage("", tool_calls=[tool_call("get_weather", {"city": "Rome"}, "c1")])
    result = ToolMessage([{"type": "text", "text": "The weather map:"}, IMAGE_BLOCKS[1], IMAGE_BLOCKS[0],
                          {"type": "resource", "resource": {"uri": "file:///r.txt", "text": "18 C"}}],
                         "c1", name="get_weather")
    chat = get_dialect(name, template).render([HumanMessage("Weather map of Rome?"), ai, result], TOOLS)
    text = chat.messages[-1]["content"]  # the result turn
    assert ("The weather map:\n"
            "[The result holds an image (image/png) that cannot be shown here: this model reads text only.]\n"
            "[The result holds an image (https://example.com/cat.png) that cannot be shown here: this model reads "
            "text only.]\n"
            '{"type": "resource", "resource": {"uri": "file:///r.txt", "text": "18 C"}}') in text
    assert "iVBORw0KGgo=" not in text
    only_image = ToolMessage([IMAGE_BLOCKS[2]], "c1", name="get_weather")
    chat = get_dialect(name, template).render([HumanMessage("Weather map of Rome?"), ai, only_image], TOOLS)
    assert "[The result holds an image (image/png) that cannot be shown here" in str(chat.messages)


def test_text_blocks_render_as_before():
    """Content made only of text (a string, text blocks, strings in a list) renders as its text, the parts on lines
    of their own (``message.text`` joins them with nothing between, as LangChain does; a prompt never runs two
    parts' words together)."""
    blocks = [{"type": "text", "text": "Como está o clima"}, "em Tóquio?", {"text": "e 1 + 1?"}]
    for name, template in (("pythonic", None), ("json", None), ("template", QWEN_TEMPLATE)):
        dialect = get_dialect(name, template)
        messages = conversation()
        plain = dialect.render([HumanMessage(content_text(blocks, sep="\n")), *messages[1:]], TOOLS)
        listed = dialect.render([HumanMessage(blocks), *messages[1:-1],
                                 ToolMessage([{"type": "text", "text": "56088"}], "c2", name="calculate")], TOOLS)
        assert listed == plain


def test_call_arguments_that_are_not_json_are_written_in_their_json_form():
    import datetime
    import decimal

    args = {"city": "Rome", "when": datetime.date(2025, 1, 2), "budget": decimal.Decimal("1.5"), "tags": {"a"},
            "raw": b"\xff"}
    ai = AIMessage("", tool_calls=[tool_call("get_weather", args, "c1")])
    conv = [HumanMessage("Weather in Rome on Jan 2?"), ai, ToolMessage("Sunny", "c1")]
    written = {"city": "Rome", "when": "2025-01-02", "budget": "1.5", "tags": ["a"], "raw": "b'\\xff'"}
    chat = get_dialect("json").render(conv, TOOLS)
    assert json.loads(chat.messages[2]["content"]) == {"name": "get_weather", "arguments": written}
    chat = get_dialect("pythonic").render(conv, TOOLS)
    assert chat.messages[2]["content"] == ('[get_weather(city="Rome", when="2025-01-02", budget="1.5", tags=["a"], '
                                          'raw="b\'\\\\xff\'")]')
    assert "None" not in chat.messages[3]["content"]
    chat = get_dialect("template", QWEN_TEMPLATE).render(conv, TOOLS)
    assert chat.messages[-2]["tool_calls"][0]["function"]["arguments"] == written
    assert '"when": "2025-01-02"' in ChatTemplate(QWEN_TEMPLATE).render(chat)
    assert json.loads(format_calls([tool_call("f", args, "c1")], "hermes").split("\n")[1])["arguments"] == written


# -- the model's own template ------------------------------------------------------------------------------


def test_template_dialect_uses_openai_shapes():
    chat = get_dialect("template", QWEN_TEMPLATE).render(conversation(), TOOLS, tool_choice="required")
    assert chat.tools == [{"type": "function", "function": {"name": "get_weather", "description": WEATHER.description,
                                                            "parameters": WEATHER.parameters}},
                          {"type": "function", "function": {"name": "calculate", "description": CALC.description,
                                                            "parameters": CALC.parameters}}]
    assert chat.messages[0] == {"role": "user", "content": "Como está o clima em Tóquio e quanto é 123 * 456?"}
    assistant = chat.messages[1]
    assert assistant["tool_calls"][0] == {"id": "c1", "type": "function",
                                          "function": {"name": "get_weather", "arguments": {"city": "Tóquio"}}}
    assert chat.messages[2] == {"role": "tool", "content": "It's always sunny in Tóquio!", "tool_call_id": "c1",
                                "name": "get_weather"}
    assert chat.messages[3]["role"] == "tool"
    assert chat.messages[4] == {"role": "user", "content": "Now reply with function calls only."}
    text = ChatTemplate(QWEN_TEMPLATE).render(chat)
    assert '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Tóquio"}}\n</tool_call>' in text
    assert text.endswith("<tool_response>\n56088\n</tool_response><|im_end|>\n<|im_start|>user\n"
                         "Now reply with function calls only.<|im_end|>\n<|im_start|>assistant\n")
    assert '"name": "calculate"' in text.split("</tools>\n\nFor each")[0]


def test_template_dialect_says_when_not_to_call_only_for_auto():
    dialect = get_dialect("template", QWEN_TEMPLATE)
    auto = dialect.render(conversation(), TOOLS)
    assert auto.messages[0]["role"] == "system"
    assert "when none does, answer in plain text" in auto.messages[0]["content"]
    text = ChatTemplate(QWEN_TEMPLATE).render(auto)
    # the template puts the system text before its own tool prompt
    assert text.index("when none does") < text.index("<tools>")
    for choice in ("required", "get_weather"):
        assert dialect.render(conversation(), TOOLS, tool_choice=choice).messages[0]["role"] == "user"
    assert dialect.render(conversation(), []).messages[0]["role"] == "user"


def test_template_errors_are_user_errors():
    with pytest.raises(UserError, match="cannot render"):
        ChatTemplate("{{ raise_exception('roles must alternate') }}").render(Rendered([], None))
    with pytest.raises(UserError, match="cannot be read"):
        ChatTemplate("{% if %}")


# -- byte-identical history, so llama.cpp can reuse its KV cache ---------------------------------------------


@pytest.mark.parametrize(("name", "template"), [("pythonic", QWEN_TEMPLATE), ("json", CHATML_TEMPLATE),
                                                ("template", QWEN_TEMPLATE)])
def test_each_turn_extends_the_previous_prompt(name, template):
    dialect = get_dialect(name, template)
    render = ChatTemplate(template).render
    messages = conversation()
    first = render(dialect.render(messages[:1], TOOLS))
    generated = '[get_weather(city="Tóquio"), calculate(expression="123 * 456")]'
    ai = messages[1].copy(provider_data={RAW_KEY: {"dialect": name, "text": generated,
                                                   "check": fingerprint("", messages[1].tool_calls)}})
    second = render(dialect.render([messages[0], ai, *messages[2:]], TOOLS))
    assert second.startswith(first + generated)
    answer = AIMessage("Faz sol; 56088.")
    third = render(dialect.render([messages[0], ai, *messages[2:], answer, HumanMessage("obrigado")], TOOLS))
    assert third.startswith(second + "Faz sol; 56088.")


def test_raw_text_is_used_only_while_the_message_is_unchanged():
    dialect = get_dialect("pythonic")
    calls = [tool_call("get_weather", {"city": "Oslo"}, "c1")]
    raw = {RAW_KEY: {"dialect": "pythonic", "text": "[get_weather(city='Oslo')]", "check": fingerprint("", calls)}}
    ai = AIMessage("", tool_calls=calls, provider_data=raw)
    assert dialect.render([ai], TOOLS).messages[1]["content"] == "[get_weather(city='Oslo')]"
    changed = ai.copy(tool_calls=[tool_call("get_weather", {"city": "Bergen"}, "c1")])
    assert changed.provider_data == raw
    assert dialect.render([changed], TOOLS).messages[1]["content"] == '[get_weather(city="Bergen")]'
    assert get_dialect("json").render([ai], TOOLS).messages[1]["content"].startswith('{"name"')


# -- canonical call text round-trips through the parser ---------------------------------------------------------


@pytest.mark.parametrize("fmt", ["pythonic", "json", "hermes"])
def test_format_calls_round_trip(fmt):
    calls = [tool_call("get_weather", {"city": "São Paulo"}), tool_call("calculate", {"expression": '"1" + 2'})]
    for group in (calls[:1], calls):
        reply = parse_reply(format_calls(group, fmt), NAMES, fmt)
        assert [(c["name"], c["args"]) for c in reply.tool_calls] == [(c["name"], c["args"]) for c in group]
        assert reply.content == "" and reply.invalid_tool_calls == []


# -- recognising where a call starts ----------------------------------------------------------------------------


def scan(text: str, formats=("pythonic", "json")):
    """Feed ``text`` one character at a time, as generation does; return the first detection."""
    scanner = OpenerScanner(formats, NAMES)
    for end in range(1, len(text) + 1):
        found = scanner.feed(text[:end])
        if found is not None:
            return found, end
    return None, scanner.safe_end(text)


@pytest.mark.parametrize(("text", "pos", "fmt"), [
    ('[get_weather(city="Paris")]', 0, "pythonic"),
    ("['get_weather(city=\"Paris\")']", 0, "pythonic"),
    ('  [ calculate (expression="1")]', 2, "pythonic"),
    ('get_weather(city="Paris")', 0, "pythonic"),
    ('Get_Weather(city="Paris")', 0, "pythonic"),  # a bare call at the start: letter case does not count
    ('```python\n[get_weather(city="Paris")]\n```', 0, "pythonic"),
    ('Vou verificar.\n[calculate(expression="2")]', 15, "pythonic"),
    ('```json\n{\n  "name": "get_weather",\n  "arguments": {}}\n```', 0, "json"),
    ('[{"name": "calculate", "arguments": {}}]', 0, "json"),
    ('Claro:\n{"name": "get_weather", "arguments": {"city": "Oslo"}}', 7, "json"),
    # a call written as a pair, name then arguments (review 64)
    ('["get_weather", {"city": "Oslo"}]', 0, "json"),
    ('```json\n[ "Calculate" , {"expression": "2"}]\n```', 0, "json"),
])
def test_call_starts_are_found(text, pos, fmt):
    found, _ = scan(text)
    assert found == (pos, fmt)


@pytest.mark.parametrize("text", [
    "Dom Casmurro foi escrito por Machado de Assis.",
    "[1, 2, 3]",
    "[x for x in range(3)]",
    "[link](https://example.com)",
    'A pessoa: {"name": "Ann", "age": 3}',
    "Use get_weather(city) to know.",  # not at the start of a line
    'Texto\nget_weather(city="Paris")',  # a bare call only counts at the reply's start
    'get.weather(city) is how you ask.',  # ...and with the bound name's own separators
    'Get-Weather(city="Paris")',
    "```python\nprint([get_weather])\n```",
    '["get_weather", "calculate"]',  # a list of the tools' names is no call
    '["Lisbon"]',
    '["get_weather"]',
])
def test_prose_and_code_are_not_calls(text):
    found, _ = scan(text)
    assert found is None


def test_hermes_tags_and_safe_end():
    found, _ = scan('<tool_call>\n{"name": "x"}', formats=("hermes",))
    assert found == (0, "hermes")
    scanner = OpenerScanner(("pythonic",), NAMES)
    assert scanner.feed("Olá!\n[get_") is None
    assert scanner.safe_end("Olá!\n[get_") == len("Olá!")  # the line that may be a call is held back
    assert scanner.feed("Olá!\n[get_x") is None
    assert scanner.safe_end("Olá!\n[get_x") == len("Olá!\n[get_x")


def test_opens_tells_a_begun_or_whole_call_opening():
    scanner = OpenerScanner(("pythonic", "json"), NAMES)
    for text in ("[", "[get", "[get_weather(", "get_w", '{"name": "calc', "```python\n[calculate(", "  [",
                 '["calc', '["calculate", {'):
        assert scanner.opens(text, 0), text
    for text in ("Sure", "[x", "[1, 2]", '{"city"', "get_time(", '["Lisbon"', '["calculate", "x"'):
        assert not scanner.opens(text, 0), text
    assert scanner.opens("Olá!\n[get", 5) and not scanner.opens("Olá!\nget_weather(", 5)  # bare calls: start only


class _Pieces:
    """A stand-in for a loaded model that only knows its tokens' text."""

    def __init__(self, pieces: dict[int, str]) -> None:
        self.pieces = pieces

    def piece(self, token: int) -> bytes:
        return self.pieces[token].encode()

    @property
    def end_tokens(self) -> Any:
        import numpy as np

        return np.array([t for t, text in self.pieces.items() if text == "<|im_end|>"], dtype=int)

    def tokens_starting_with(self, prefix: bytes) -> Any:
        import numpy as np

        return np.array(sorted(t for t, text in self.pieces.items() if text.encode().startswith(prefix)), dtype=int)


def test_the_probability_of_an_opening_adds_up_every_way_to_write_one():
    from toolwire.models._call_checks import opening_probability

    loaded = _Pieces({1: "[", 2: "[get", 3: "Hello", 4: "get", 5: "_weather", 6: "(", 7: " ", 8: "calc", 9: "x",
                      10: "\n[", 11: "Sure"})
    scanner = OpenerScanner(("pythonic",), NAMES)
    # "[" + "get" + "_weather" + "(": "[get" and "[" open too (any tokenization); at the name, "calc"
    # opens a call to another bound tool; "Hello", "x" and whitespace do not
    steps = [{1: 0.4, 2: 0.3, 3: 0.2, 7: 0.1}, {4: 0.8, 8: 0.1, 9: 0.1}, {5: 0.9, 9: 0.1}, {6: 1.0}]
    text = "[get_weather("
    probability, opening, spaces = opening_probability(loaded, scanner, text, "", [1, 4, 12, 13],
                                                                    steps, 0)
    assert probability == pytest.approx(0.7 * 0.9 * 0.9 * 1.0) and sorted(opening) == [1, 2] and spaces == [7]
    # after text kept from before a declined call (``base``), on a new line, in a token that starts the line
    steps = [{11: 0.5, 10: 0.2, 1: 0.3}, {4: 1.0}, {5: 1.0}, {6: 1.0}]
    text = "Olá!\n[get_weather("
    probability, opening, _ = opening_probability(
        loaded, scanner, text, "Olá!", [6, 9, 17, 18], steps, 0)
    assert probability == pytest.approx(0.2) and opening == [10]  # "[" alone, mid-line, opens nothing
    # a piece that ends a line only begins one that may or may not become a call: it does not count
    loaded.pieces[12] = "---\n"
    steps = [{1: 0.3, 12: 0.3, 3: 0.4}, {4: 0.5, 9: 0.5}, {5: 1.0}, {6: 1.0}]
    probability, opening, _ = opening_probability(
        loaded, scanner, "Sure.\n[get_weather(", "Sure.\n", [7, 10, 18, 19], steps, 0)
    assert probability == pytest.approx(0.15) and opening == [1]



def test_before_a_decline_the_other_first_tokens_are_followed_apart():
    # qwen2.5-coder-1.5b on the book's first question with one tool: "['" (0.44) then an unsure name (0.23), or
    # "[" (0.39) then a sure one; following only the path taken said 0.22, below the bar, and the call was lost
    from toolwire.models._call_checks import opening_paths_probability, opening_probability

    loaded = _Pieces({1: "[", 2: "['", 3: "Hello", 4: "get", 5: "_weather", 6: "(", 7: "Paris", 8: "x", 9: "[get"})
    scanner = OpenerScanner(("pythonic",), NAMES)
    steps = [{2: 0.44, 1: 0.39, 3: 0.1, 9: 0.03}, {4: 0.23, 7: 0.7, 8: 0.07}, {5: 1.0}, {6: 1.0}]
    text, ends = "['get_weather(", [2, 5, 13, 14]
    old, opening, _ = opening_probability(loaded, scanner, text, "", ends, steps, 0)
    assert old == pytest.approx((0.44 + 0.39 + 0.03) * 0.23) and sorted(opening) == [1, 2, 9]
    asked: list[int] = []

    def follow(token: int) -> dict[int, float] | None:
        asked.append(token)
        return {4: 0.9, 8: 0.1}  # after "[": the name, surely

    new = opening_paths_probability(loaded, scanner, text, "", ends, steps, 0, 2, follow)
    # "['" by its own path, "[" by the one followed, "[get" (below 0.05) as the path taken
    assert new == pytest.approx(0.44 * 0.23 + 0.39 * 0.9 + 0.03 * 0.23) and asked == [1]
    # a token banned there opens nothing; a follower that cannot evaluate leaves the path taken's figure
    assert opening_paths_probability(loaded, scanner, text, "", ends, steps, 0, 2, follow, banned={1}) == (
        pytest.approx((0.44 + 0.03) * 0.23))
    assert opening_paths_probability(loaded, scanner, text, "", ends, steps, 0, 2, lambda t: None) == (
        pytest.approx(old))
    # an opening of one token is judged as before
    assert opening_paths_probability(loaded, scanner, "[get_weather(", "", [12], [{9: 0.6, 3: 0.4}], 0, 9,
                                     follow) == pytest.approx(opening_probability(
                                         loaded, scanner, "[get_weather(", "", [12], [{9: 0.6, 3: 0.4}], 0)[0])

def test_a_bare_call_opening_a_code_block_opens_a_call():
    # after a declined call the model often says which function it would call and writes the call in a
    # fenced block (BFCL multiple_44: ```python\ncalculate_weight_in_space(weight_earth_kg=70, planet="Mars")```),
    # which was left as text
    names = ("calculate_weight_in_space", "get_weather")
    text = 'You can use `calculate_weight_in_space`:\n\n```python\ncalculate_weight_in_space(weight_earth_kg=70)\n```'
    assert OpenerScanner(("pythonic",), names).feed(text) == (text.index("```"), "pythonic")
    for fence in ("```\n", "```py\n", "```python\n  "):
        assert OpenerScanner(("pythonic",), names).feed(f"Here:\n{fence}get_weather(") is not None, fence
    # only bound names as written, and only where a code block opens: prose and other code stay text
    for text in ("Here:\n```python\nprint(get_weather(", "Here:\n```python\nmath.factorial(",
                 "Here:\n```python\nGet_Weather(", "Here:\nget_weather(city) returns it.",
                 "Here:\n```json\nget_weather("):
        assert OpenerScanner(("pythonic",), names).feed(text) is None, text
    assert OpenerScanner(("pythonic",), names).opens("Here:\n```python\nget_", 6)
    # a fence that closes a code block opens none (review 15 #3): prose after it stays prose
    for text in ('Example:\n```python\nprint("hi")\n```\nget_weather(city) returns it.',
                 'Run:\n```bash\npip install x\n```\n\nget_weather( is then available.'):
        assert OpenerScanner(("pythonic",), names).feed(text) is None, text
    # ...but a call list after a closed block is a call, and so is the bare call opening a second block
    text = 'See:\n```\nx = 1\n```\n[get_weather('
    assert OpenerScanner(("pythonic",), names).feed(text) == (text.index("[get"), "pythonic")
    text = 'A:\n```\nx\n```\nB:\n```python\nget_weather('
    assert OpenerScanner(("pythonic",), names).feed(text) == (text.index("```python"), "pythonic")


def test_a_dotted_spelling_of_a_bound_name_opens_a_call():
    # tools whose names were made provider-safe (math.factorial -> math_factorial) are often called by
    # their Python spelling; the grammar then writes the bound name
    names = ("math_factorial", "get_weather")
    for text, fmt in (("[math.factorial(n=5)]", "pythonic"), ('{"name": "math.factorial", "arguments": {}}', "json")):
        scanner = OpenerScanner(("pythonic", "json"), names)
        assert scanner.feed(text) == (0, fmt)
    for text in ("[math.sqrt(2)]", "[get.weather_x(", "[get.weather("[:-1], "math.factorial(5) is 120."):
        assert OpenerScanner(("pythonic",), names).feed(text) is None
    assert OpenerScanner(("pythonic",), names).feed("[get.weather(") == (0, "pythonic")
    assert scanner.opens("[math.", 0) and not scanner.opens("[math,", 0)


def test_another_letter_case_or_separator_in_a_bound_name_opens_a_call():
    # a small model wrote [protein_info_get_sequence_and_3d(...)] for protein_info.get_sequence_and_3D: the
    # reply was left as text and the call lost (BFCL parallel_3)
    names = ("protein_info.get_sequence_and_3D", "get_weather")
    for text, fmt in (("[protein_info_get_sequence_and_3d(", "pythonic"), ("[Get-Weather(", "pythonic"),
                      ('{"name": "PROTEIN_INFO.get_sequence_and_3d"', "json")):
        assert OpenerScanner(("pythonic", "json"), names).feed(text) == (0, fmt), text
    for text in ("[get_weathers(", "[getweather(", "[protein_info_get("):
        assert OpenerScanner(("pythonic",), names).feed(text) is None, text
    assert OpenerScanner(("pythonic",), names).opens("[PROTEIN_INFO", 0)


class _ScriptedGeneration:
    """Drives ``Generation._free`` with scripted token streams instead of llama.cpp: each stream is a
    list of ``(token, candidates)``; the calls' prompts and bans are recorded. A call that starts is
    "generated" from ``calls``: ``(call text, token spans with probabilities, tokens it costs[, times it went on
    under optional_argument_share, character spans of the arguments it went on to])`` each (none left: the
    opening alone, at no cost)."""

    def __init__(self, streams, bar: float = 0.5, max_tokens: int = 100, value_bar: float = 0.0, calls=(),
                 messages=()):
        from types import SimpleNamespace

        from toolwire.models._generation import Generation

        model = SimpleNamespace(temperature=0.0, max_tokens=max_tokens, seed=None, options={},
                                min_call_probability=bar, min_value_probability=value_bar,
                                decline_unknown_calls=True, decline_repeat_calls=True, decline_echoes=True,
                                decline_made_up_figures=True)
        self.gen = Generation(model, SimpleNamespace(options={}, messages=list(messages)))  # type: ignore[arg-type]
        self.gen.bar, self.gen.value_bar, self.gen.budget = bar, value_bar, max_tokens
        self.streams = list(streams)
        self.made = list(calls)
        self.judged: list[bool] = []
        self.leaned: list[bool] = []
        self.calls: list[tuple[list[int], tuple[int, ...]]] = []
        self.gen._texts = self._texts  # type: ignore[method-assign]
        self.gen._call = self._call  # type: ignore[method-assign]

    def _texts(self, loaded, tokens, grammar, forced=(), *, candidates=None, ban=(), made=None):
        self.calls.append((list(tokens), tuple(sorted(ban))))
        text = ""
        count = 0
        try:
            for count, (token, step) in enumerate(self.streams.pop(0), start=1):
                if candidates is not None:
                    candidates.append(step)
                made.append(token)
                text += loaded.piece(token).decode()
                yield text
                if count >= self.gen.budget:
                    return
        finally:  # as ChatLlamaCpp's own: every token generated comes off the budget
            self.gen.budget -= count

    def _call(self, loaded, tokens, head, opener, fmt, spec, judged, *, use_lean=True, call_cap=None):
        self.judged.append(judged)
        self.leaned.append(use_lean)
        if not self.made:
            return opener, [], 0, []
        text, spans, cost, *lean = self.made.pop(0)  # (times the call went on, spans of what it went on to)
        self.gen.budget -= cost
        return (text, spans, *lean) if lean and use_lean else (text, spans, 0, [])

    def run(self, loaded, names=("get_weather",), context=(), example_values=(), formats=("pythonic",), calls=True,
            tools=()):
        from toolwire.models.openers import OpenerScanner

        chunks = []
        from toolwire.models._call_checks import CallSpec

        spec = CallSpec(tuple(tools), True, True, {"get_weather": frozenset(example_values)})
        free = self.gen._free(loaded, [100, 101], OpenerScanner(formats, names, calls=calls), spec, list(context))
        while True:
            try:
                chunks.append(next(free))
            except StopIteration as stop:
                return stop.value, "".join(c.content for c in chunks)


_VOCAB = _Pieces({1: "Sure", 2: ".", 3: "\n", 4: "[", 5: "get_weather", 6: "(", 7: "It", 8: " is", 9: " sunny",
                  10: "[get", 11: "```"})


def test_a_declined_opening_is_generated_again_without_any_way_of_opening_it():
    unsure = [(1, {1: 0.9}), (2, {2: 0.9}), (3, {3: 0.9}),
              (4, {4: 0.3, 10: 0.1, 7: 0.6}), (5, {5: 1.0}), (6, {6: 1.0})]  # the call opens with 0.4
    text = [(7, {7: 0.9}), (8, {8: 0.9}), (9, {9: 0.9})]
    run = _ScriptedGeneration([unsure, text], bar=0.5)
    (whole, opener, fmt), shown = run.run(_VOCAB)
    assert (whole, opener, fmt) == ("Sure.\nIt is sunny", "", None) and shown == whole
    # the second stream starts after the three tokens kept, with both tokens that open a call banned
    assert run.calls == [([100, 101], ()), ([100, 101, 1, 2, 3], (4, 10))]
    assert run.gen.declined_calls == 1 and run.gen.call_probability == pytest.approx(0.4)
    assert run.gen.budget == 100 - 3 - 3  # the kept and the final tokens count, the declined ones do not


def test_an_opening_after_a_decline_is_judged_again_and_declines_are_bounded():
    sure = [(11, {11: 0.2, 4: 0.7, 7: 0.1}), (3, {3: 1.0}), (4, {4: 1.0}), (5, {5: 1.0}), (6, {6: 1.0})]
    unsure = [(4, {4: 0.3, 7: 0.7}), (5, {5: 1.0}), (6, {6: 1.0})]
    # declined once, then the model opens a fenced call it is sure of (0.9): that call is made
    run = _ScriptedGeneration([unsure, sure], bar=0.5)
    (head, opener, fmt), _ = run.run(_VOCAB)
    assert (head, opener, fmt) == ("", "```\n[get_weather(", "pythonic") and run.gen.declined_calls == 1
    assert run.gen.call_probability == pytest.approx(0.9)
    # three unsure openings in a row: the rest of the reply is text, not recognised as a call; a call opening
    # there is declined as a call of no tool (up to three times too), so the text does not open as a call list
    whole_call = [*unsure, (12, {12: 1.0})]  # [get_weather()]
    vocab = _Pieces({**_VOCAB.pieces, 12: ")]"})
    run = _ScriptedGeneration([unsure, unsure, unsure, whole_call, [(7, {7: 1.0})]], bar=0.5)
    (whole, opener, fmt), _ = run.run(vocab)
    assert (whole, opener, fmt) == ("It", "", None) and run.gen.declined_calls == 3 and run.gen.unknown_calls == 1
    run = _ScriptedGeneration([unsure] * 3 + [whole_call] * 4, bar=0.5)
    (whole, opener, fmt), _ = run.run(vocab)
    assert (whole, opener, fmt) == ("[get_weather()]", "", None) and run.gen.declined_calls == 3
    assert run.gen.unknown_calls == 3


def test_with_tool_choice_none_a_call_after_a_declined_one_is_declined_too():
    # tool_choice="none": every call opening counts as a call of no tool; the reply written again after one such
    # decline must not start recognising calls of the bound tools (review 67: it made one with no tool offered,
    # and building its grammar crashed)
    whole_call = [(4, {4: 0.95}), (5, {5: 1.0}), (6, {6: 1.0}), (12, {12: 1.0})]  # [get_weather()]
    vocab = _Pieces({**_VOCAB.pieces, 12: ")]"})
    run = _ScriptedGeneration([whole_call, whole_call, [(7, {7: 1.0})]], bar=0.5)
    (whole, opener, fmt), _ = run.run(vocab, calls=False)
    assert (whole, opener, fmt) == ("It", "", None) and run.gen.unknown_calls == 2 and run.gen.declined_calls == 0


_SURE_OPENING = [(4, {4: 0.95}), (5, {5: 1.0}), (6, {6: 1.0})]
_ATLANTIS = '[get_weather(city="Atlantis")]'
_UNSURE_CITY = [(0, 13, 1.0), (13, 23, 0.1), (23, len(_ATLANTIS), 1.0)]  # "Atlantis" (with its quotes) at 0.1


def test_a_call_written_in_a_code_block_after_a_decline_is_judged_and_made():
    # the made-up call is declined; the model then says which call it means, in a ```python block (bare
    # name): that opening is recognised, the grammar writes the call, and its values are judged again
    vocab = _Pieces({**_VOCAB.pieces, 12: "python\n", 13: "Call", 14: " it:"})
    fenced = [(13, {13: 0.9}), (14, {14: 0.9}), (3, {3: 0.9}), (11, {11: 0.9}), (12, {12: 0.9}),
              (5, {5: 0.9}), (6, {6: 1.0})]
    paris = '[get_weather(city="Paris")]'
    sure_paris = [(0, 13, 1.0), (13, 20, 0.9), (20, len(paris), 1.0)]
    run = _ScriptedGeneration([_SURE_OPENING, fenced], bar=0.25, value_bar=0.3,
                              calls=[(_ATLANTIS, _UNSURE_CITY, 9), (paris, sure_paris, 9)])
    (head, call_text, fmt), shown = run.run(vocab, context=["What is the weather like in Paris?"])
    assert (head, call_text, fmt) == ("Call it:\n", paris, "pythonic") and shown == "Call it:"
    assert run.gen.declined_calls == 1 and run.judged == [True, True]
    # the same block with a made-up value is declined too, and the reply ends as text
    run = _ScriptedGeneration([_SURE_OPENING, fenced, [(7, {7: 0.9})]], bar=0.25, value_bar=0.3,
                              calls=[(_ATLANTIS, _UNSURE_CITY, 9), (_ATLANTIS, _UNSURE_CITY, 9)])
    (whole, call_text, fmt), _ = run.run(vocab, context=["What is the weather like?"])
    assert (whole, call_text, fmt) == ("Call it:\nIt", "", None) and run.gen.declined_calls == 2


def test_a_value_made_up_in_the_prose_before_a_call_is_judged_where_it_was_written():
    # the model names a made-up city in its prose, unsure (0.1), then copies it surely into the call
    vocab = _Pieces({**_VOCAB.pieces, 12: "python\n", 13: "Call", 14: " it for", 15: " Atlantis", 16: ":"})
    prose = [(13, {13: 0.9}), (14, {14: 0.9}), (15, {15: 0.1}), (16, {16: 0.9}), (3, {3: 0.9}), (11, {11: 0.9}),
             (12, {12: 0.9}), (5, {5: 0.9}), (6, {6: 1.0})]
    sure_city = [(0, len(_ATLANTIS), 0.99)]
    run = _ScriptedGeneration([prose, [(7, {7: 0.9})]], bar=0.25, value_bar=0.3, calls=[(_ATLANTIS, sure_city, 9)])
    (whole, call_text, fmt), _ = run.run(vocab, context=["What is the weather like?"])
    assert (whole, call_text, fmt) == ("Call it for Atlantis:\nIt", "", None)
    assert run.gen.made_up_values == ['city="Atlantis"']
    # the same prose, sure of the city: the call is made
    prose[2] = (15, {15: 0.9})
    run = _ScriptedGeneration([prose], bar=0.25, value_bar=0.3, calls=[(_ATLANTIS, sure_city, 9)])
    (head, call_text, fmt), _ = run.run(vocab, context=["What is the weather like?"])
    assert (head, call_text, fmt) == ("Call it for Atlantis:\n", _ATLANTIS, "pythonic")


def test_a_call_with_a_made_up_value_is_declined_and_the_reply_goes_on_in_text():
    text = [(7, {7: 0.9}), (8, {8: 0.9}), (9, {9: 0.9})]
    run = _ScriptedGeneration([_SURE_OPENING, text], bar=0.25, value_bar=0.3, calls=[(_ATLANTIS, _UNSURE_CITY, 9)])
    (whole, call_text, fmt), shown = run.run(_VOCAB, context=["What is the weather like?"])
    assert (whole, call_text, fmt) == ("It is sunny", "", None) and shown == whole
    assert run.judged == [True] and run.gen.made_up_values == ['city="Atlantis"'] and run.gen.declined_calls == 1
    assert run.calls[1] == ([100, 101], (4,))  # generated again from before the opening, the opening banned
    assert run.gen.budget == 100 - 3  # neither the declined opening nor the declined call counts


def test_an_unsure_value_from_the_conversation_or_a_sure_one_keeps_the_call():
    sure_city = [(0, 13, 1.0), (13, 23, 0.9), (23, len(_ATLANTIS), 1.0)]
    for context, spans in ((["Weather in atlantis?"], _UNSURE_CITY), (["What is the weather like?"], sure_city)):
        run = _ScriptedGeneration([_SURE_OPENING], bar=0.25, value_bar=0.3, calls=[(_ATLANTIS, spans, 9)])
        (head, call_text, fmt), _ = run.run(_VOCAB, context=context)
        assert (head, call_text, fmt) == ("", _ATLANTIS, "pythonic") and run.gen.made_up_values == []
    # the check off: the call is not even judged
    run = _ScriptedGeneration([_SURE_OPENING], bar=0.25, value_bar=0.0, calls=[(_ATLANTIS, _UNSURE_CITY, 9)])
    assert run.run(_VOCAB, context=["?"])[0] == ("", _ATLANTIS, "pythonic") and run.judged == [False]


def test_a_json_call_with_a_made_up_value_is_declined_as_a_pythonic_one_is():
    vocab = _Pieces({**_VOCAB.pieces, 20: '{"', 21: "name", 22: '":', 23: ' "', 24: "get_weather", 25: '",'})
    opening = [(20, {20: 0.95}), (21, {21: 1.0}), (22, {22: 1.0}), (23, {23: 1.0}), (24, {24: 1.0}), (25, {25: 1.0})]
    atlantis = '{"name": "get_weather", "arguments": {"city": "Atlantis"}}'
    at = atlantis.index('"Atlantis"')
    unsure = [(0, at, 1.0), (at, at + 10, 0.1), (at + 10, len(atlantis), 1.0)]
    text = [(7, {7: 0.9}), (8, {8: 0.9}), (9, {9: 0.9})]
    run = _ScriptedGeneration([opening, text], bar=0.25, value_bar=0.3, calls=[(atlantis, unsure, 9)])
    (whole, call_text, fmt), _ = run.run(vocab, context=["What is the weather like?"], formats=("json",))
    assert (whole, call_text, fmt) == ("It is sunny", "", None) and run.judged == [True]
    assert run.gen.made_up_values == ['city="Atlantis"'] and run.gen.declined_calls == 1
    # the city in the question: the same call is made
    run = _ScriptedGeneration([opening], bar=0.25, value_bar=0.3, calls=[(atlantis, unsure, 9)])
    (head, call_text, fmt), _ = run.run(vocab, context=["Weather in Atlantis?"], formats=("json",))
    assert (head, call_text, fmt) == ("", atlantis, "json") and run.gen.made_up_values == []


def test_a_call_copying_the_prompts_example_value_is_declined_however_sure():
    sure_city = [(0, 13, 1.0), (13, 23, 0.99), (23, len(_ATLANTIS), 1.0)]
    text = [(7, {7: 0.9}), (8, {8: 0.9}), (9, {9: 0.9})]
    run = _ScriptedGeneration([_SURE_OPENING, text], bar=0.25, value_bar=0.3, calls=[(_ATLANTIS, sure_city, 9)])
    (whole, call_text, _), _ = run.run(_VOCAB, context=["Weather?"], example_values={"Atlantis"})
    assert (whole, call_text) == ("It is sunny", "") and run.gen.made_up_values == ['city="Atlantis"']
    # the conversation holding the value makes it the user's, not the example's
    run = _ScriptedGeneration([_SURE_OPENING], bar=0.25, value_bar=0.3, calls=[(_ATLANTIS, sure_city, 9)])
    assert run.run(_VOCAB, context=["Atlantis weather?"], example_values={"Atlantis"})[0][1] == _ATLANTIS


def test_without_kv_reuse_each_prompt_is_evaluated_from_an_empty_cache():
    from types import SimpleNamespace

    from toolwire.models._loaded import LoadedModel

    cleared: list[bool] = []
    context = SimpleNamespace(kv_cache_clear=lambda: cleared.append(True))
    loaded = object.__new__(LoadedModel)
    loaded.llm = SimpleNamespace(input_ids=[1, 2, 3, 4], n_tokens=4, _ctx=context)
    for reuse, reused in ((True, 2), (False, 0)):  # the cache holds [1, 2, 3, 4]; the prompt is [1, 2, 9]
        loaded.llm.n_tokens = 4
        assert loaded.warm([1, 2, 9], 0, reuse_kv=reuse) == reused, reuse  # no system turn kept on disk
    assert cleared == [True] and loaded.llm.n_tokens == 0


def test_a_call_that_went_on_to_a_made_up_argument_is_judged_as_the_model_would_have_closed_it():
    # optional_argument_share made the call go on, and the argument it went on to is made up: the call is
    # generated again without the rule and judged as that; it is made, and only its own tokens count
    paris = '[get_weather(city="Paris")]'
    sure_paris = [(0, 13, 1.0), (13, 20, 0.9), (20, len(paris), 1.0)]
    added = '[get_weather(city="Paris", country="Atlantis")]'
    unsure_added = [(0, 13, 1.0), (13, 20, 0.9), (20, 32, 1.0), (32, 42, 0.1), (42, len(added), 1.0)]
    context = ["What is the weather like in Paris?"]
    run = _ScriptedGeneration([_SURE_OPENING], bar=0.25, value_bar=0.3,
                              calls=[(added, unsure_added, 12, 1, [(25, 46)]), (paris, sure_paris, 9, 1, [])])
    (head, call_text, fmt), _ = run.run(_VOCAB, context=context)
    assert (head, call_text, fmt) == ("", paris, "pythonic") and run.leaned == [True, False]
    assert run.gen.made_up_values == [] and run.gen.declined_calls == 0 and run.gen.calls_continued == 0
    assert run.gen.budget == 100 - 3 - 9
    # a call that went on to a value the conversation holds is made as it is, and counted
    run = _ScriptedGeneration([_SURE_OPENING], bar=0.25, value_bar=0.3,
                              calls=[(added, unsure_added, 12, 1, [(25, 46)])])
    (head, call_text, fmt), _ = run.run(_VOCAB, context=["Weather in Paris, Atlantis?"])
    assert call_text == added and run.leaned == [True] and run.gen.calls_continued == 1
    # a string the call went on to that the conversation does not hold is refused however sure the model was,
    # and the call is made as the model would have closed it; with the value check off too
    sure_added = [(0, len(added), 0.99)]
    for value_bar in (0.3, 0.0):
        run = _ScriptedGeneration([_SURE_OPENING], bar=0.25, value_bar=value_bar,
                                  calls=[(added, sure_added, 12, 1, [(25, 46)]), (paris, sure_paris, 9)])
        (head, call_text, fmt), _ = run.run(_VOCAB, context=context)
        assert call_text == paris and run.leaned == [True, False] and run.gen.calls_continued == 0
        assert run.gen.made_up_values == [] and run.gen.declined_calls == 0
    # made up without the rule too: declined as any such call
    run = _ScriptedGeneration([_SURE_OPENING, [(7, {7: 0.9})]], bar=0.25, value_bar=0.3,
                              calls=[(added, unsure_added, 12, 1, [(25, 46)]), (_ATLANTIS, _UNSURE_CITY, 9)])
    (whole, call_text, fmt), _ = run.run(_VOCAB, context=["What is the weather like?"])
    assert (whole, call_text) == ("It", "") and run.gen.made_up_values == ['city="Atlantis"']



def test_chat_model_dialect_argument_wins_over_the_tool_count():
    from types import SimpleNamespace

    from toolwire.models import ChatLlamaCpp

    loaded = SimpleNamespace(metadata={"general.architecture": "qwen2", "general.name": "Qwen2.5 Coder 1.5B"},
                             template=QWEN_TEMPLATE)
    assert ChatLlamaCpp().dialect_for(loaded, 1).name == "pythonic"  # type: ignore[arg-type]
    assert ChatLlamaCpp().dialect_for(loaded, 3).name == "json"  # type: ignore[arg-type]
    chosen = ChatLlamaCpp(dialect="pythonic").dialect_for(loaded, 3)  # type: ignore[arg-type]
    assert chosen == get_dialect("pythonic")


def test_chat_model_default_dialects_as_a_report_records_them():
    from types import SimpleNamespace

    from toolwire.models import ChatLlamaCpp

    def model(name: str, dialect: str | None = None) -> ChatLlamaCpp:
        made = ChatLlamaCpp(dialect=dialect)
        made._loaded = SimpleNamespace(metadata={"general.architecture": "qwen2", "general.name": name},  # type: ignore[assignment]
                                       template=QWEN_TEMPLATE)
        return made

    assert model("Qwen2.5 Coder 1.5B Instruct").default_dialects() == (
        "pythonic; json with 2+ tools or one without parameters")
    # the 0.5b family's own bar (parallel_call_share, twenty-fifth session): a report of the plain json default
    # before it is not resumed with it
    assert model("Qwen2.5 Coder 0.5B Instruct").default_dialects() == "json (parallel_call_share 0.02)"
    assert model("Qwen2.5 Coder 1.5B Instruct", dialect="pythonic").default_dialects() is None


def test_the_family_default_carries_its_own_bars_and_an_explicit_dialect_does_not():
    from types import SimpleNamespace

    from toolwire.models import ChatLlamaCpp

    small = SimpleNamespace(metadata={"general.architecture": "qwen2", "general.name": "Qwen2.5 Coder 0.5B Instruct"},
                            template=QWEN_TEMPLATE)
    for count in (1, 3):
        assert ChatLlamaCpp().dialect_for(small, count).parallel_call_share == 0.02  # type: ignore[arg-type]
    assert ChatLlamaCpp(dialect="json").dialect_for(small, 1) == get_dialect("json")  # type: ignore[arg-type]
    assert get_dialect("json").parallel_call_share == get_dialect("pythonic").parallel_call_share == 0.0
    large = SimpleNamespace(metadata={"general.architecture": "qwen2", "general.name": "Qwen2.5 Coder 1.5B Instruct"},
                            template=QWEN_TEMPLATE)
    assert ChatLlamaCpp().dialect_for(large, 1) == get_dialect("pythonic")  # type: ignore[arg-type]


def test_a_json_call_with_doubled_braces_opens_a_call():
    # Qwen2.5's chat template shows its example call as {{"name": ...}} (a Jinja string meant to escape the
    # braces) and qwen2.5-coder copies them under dialect="template": the opening is recognised, and the call is
    # generated again under the grammar (which does not take the second brace)
    text = '{{"name": "get_weather", "arguments": {"city": "Paris"}}}'
    scanner = OpenerScanner(("hermes", "json"), NAMES)
    found = [i for i in range(1, len(text) + 1) if scanner.feed(text[:i]) is not None]
    assert found and text[:found[0]] == '{{"name": "get_weather"'
    assert OpenerScanner(("json",), NAMES).feed('{{"name": "calculate_sum"') is None  # an unbound name: no call


# A chat template in the style of Qwen3-Coder's (written for this test): calls as <function=NAME> and
# <parameter=KEY> tags inside <tool_call> blocks, a string value as it is and any other as JSON.
CODER_TEMPLATE = (
    "{%- if tools %}<|im_start|>system\n# Tools\n<tools>{% for tool in tools %}\n{{ tool | tojson }}{% endfor %}"
    "\n</tools>\nCall a function as <tool_call>\n<function=NAME>\n<parameter=KEY>\nVALUE\n</parameter>\n"
    "</function>\n</tool_call><|im_end|>\n{%- endif %}"
    "{%- for message in messages %}"
    "{%- if message.role == 'assistant' and message.tool_calls %}<|im_start|>assistant{{ message.content or '' }}"
    "{%- for call in message.tool_calls %}{% set f = call.function %}"
    "{{- '\n<tool_call>\n<function=' + f.name + '>\n' }}"
    "{%- for key, value in f.arguments | items %}{{- '<parameter=' + key + '>\n' }}"
    "{{- value if value is string else value | tojson }}{{- '\n</parameter>\n' }}{%- endfor %}"
    "{{- '</function>\n</tool_call>' }}{%- endfor %}<|im_end|>\n"
    "{%- elif message.role == 'tool' %}<|im_start|>user\n<tool_response>\n{{ message.content }}\n"
    "</tool_response><|im_end|>\n"
    "{%- else %}<|im_start|>{{ message.role }}\n{{ message.content }}<|im_end|>\n{%- endif %}{%- endfor %}"
    "{%- if add_generation_prompt %}<|im_start|>assistant\n{%- endif %}"
)


def test_a_template_that_writes_function_tags_generates_them():
    """Qwen3-Coder's template writes calls as XML tags: the template dialect generates them under the
    ``function_tag`` grammar (not JSON inside the block), and reads them back typed by the schema."""
    assert get_dialect("template", QWEN_TEMPLATE).formats == ("hermes", "json")
    dialect = get_dialect("template", CODER_TEMPLATE)
    assert dialect.formats == ("function_tag", "json")
    assert OpenerScanner(dialect.formats, NAMES).feed("I will look.\n<tool_call>") == (13, "function_tag")
    calls = [tool_call("get_weather", {"city": "Tóquio"}, "c1"), tool_call("calculate", {"expression": "1 + 1"}, "c2")]
    history = ChatTemplate(CODER_TEMPLATE).render(dialect.render([HumanMessage("oi"), AIMessage("", tool_calls=calls)],
                                                                 TOOLS))
    written = format_calls(calls, "function_tag", TOOLS)
    assert written in history  # the grammar's form is the template's
    parsed = parse_reply(written, TOOLS, "function_tag")
    assert [(c["name"], c["args"]) for c in parsed.tool_calls] == [("get_weather", {"city": "Tóquio"}),
                                                                   ("calculate", {"expression": "1 + 1"})]


@pytest.mark.parametrize("name", ["json", "pythonic", "template"])
def test_an_invalid_call_from_another_dialect_is_shown_as_written(name):
    """A reply whose only call was invalid (cut off), written by another dialect or a provider: the turn shows the
    call's raw text before the error result that answers it, not an empty assistant turn (under ``template``, as the
    arguments of the call's ``tool_calls`` entry, so that the result has its call: review 160 #3)."""
    bad = {"name": "get_weather", "args": "[get_weather(city=)]", "id": "b1", "error": "cut off",
           "type": "invalid_tool_call"}
    other = "json" if name == "pythonic" else "pythonic"
    reply = AIMessage("Checking.", invalid_tool_calls=[bad],
                      provider_data={RAW_KEY: {"dialect": other, "text": "Checking.\n[get_weather(city=)]",
                                               "check": fingerprint("Checking.", [])}})
    conversation = [HumanMessage("weather?"), reply, ToolMessage("cut off", tool_call_id="b1", status="error",
                                                                 name="get_weather")]
    rendered = get_dialect(name, QWEN_TEMPLATE).render(conversation, TOOLS)
    assistant = next(m for m in rendered.messages if m["role"] == "assistant")
    if name == "template":
        assert assistant["content"] == "Checking."
        assert assistant["tool_calls"] == [{"id": "b1", "type": "function", "function": {
            "name": "get_weather", "arguments": "[get_weather(city=)]"}}]
        return
    assert assistant["content"] == "Checking.\n[get_weather(city=)]"


def _stopping(streams, stop, max_tokens=100):
    run = _ScriptedGeneration(streams, bar=0.0, max_tokens=max_tokens)
    run.gen.opts["stop"] = stop
    return run


_STOP_VOCAB = _Pieces({**_VOCAB.pieces, 13: "_x", 14: ")]", 15: " Rome"})


def test_a_stop_string_inside_a_call_opening_does_not_cut_the_call():
    # review 50: stop=["("] returned "[get_weather" as text; the call's opening decides first, and a call ignores it
    for stop in (["("], ["["], ["weather"], ["[get"]):
        run = _stopping([[(4, {}), (5, {}), (6, {})]], stop)
        (head, opener, fmt), shown = run.run(_STOP_VOCAB)
        assert (head, opener, fmt, shown) == ("", "[get_weather(", "pythonic", ""), stop
    # fenced: the fence's newline is part of the opening
    run = _stopping([[(11, {}), (3, {}), (4, {}), (5, {}), (6, {})]], ["\n"])
    assert run.run(_STOP_VOCAB)[0] == ("", "```\n[get_weather(", "pythonic")


def test_a_stop_string_in_text_ends_the_reply_there_even_before_a_call():
    run = _stopping([[(1, {}), (2, {}), (3, {}), (4, {}), (5, {}), (6, {})]], ["."])
    (whole, opener, fmt), shown = run.run(_STOP_VOCAB)
    assert (whole, opener, fmt, shown) == ("Sure", "", None, "Sure") and run.gen.finish == "stop"
    # the stop string is the newline before the call's line: the text stops there, no call is made
    run = _stopping([[(1, {}), (2, {}), (3, {}), (4, {}), (5, {}), (6, {})]], ["\n"])
    assert run.run(_STOP_VOCAB)[0] == ("Sure.", "", None) and run.gen.finish == "stop"
    # plain text: cut at the first stop string, which is never shown, not even in part
    run = _stopping([[(7, {}), (8, {}), (9, {}), (2, {})]], [" sun"])
    assert run.run(_STOP_VOCAB) == (("It is", "", None), "It is") and run.gen.finish == "stop"


def test_a_stop_string_held_back_with_a_possible_opening_applies_once_it_is_text():
    # "[get" may open get_weather( until "_x" comes: then it is text, and the "[" stop string cuts it
    run = _stopping([[(10, {}), (13, {}), (14, {}), (8, {})]], ["["])
    assert run.run(_STOP_VOCAB) == (("", "", None), "") and run.gen.finish == "stop"
    run = _stopping([[(7, {}), (3, {}), (10, {}), (13, {}), (8, {})]], ["_x"])
    assert run.run(_STOP_VOCAB) == (("It\n[get", "", None), "It\n[get") and run.gen.finish == "stop"
    # the reply ends (max_tokens) while the opening is still possible: the stop string applies then
    run = _stopping([[(7, {}), (3, {}), (10, {})]], ["[g"], max_tokens=3)
    assert run.run(_STOP_VOCAB) == (("It\n", "", None), "It") and run.gen.finish == "stop"


def test_a_turn_of_results_says_the_request_again_in_every_turn_alike() -> None:
    """Review 64: after a turn holding only "Function results: ...", the default model answered another question
    (often about the last tool listed: "The capital city of France is Paris." for "Convert 10 km to miles."). Such a
    turn now ends with the user's last request said again; a long request is only referred to. Later turns render
    it the same way, so each prompt still begins with the one before."""
    from toolwire.models.dialects import _REPEAT_LIMIT

    for name in ("pythonic", "json"):
        first = get_dialect(name).render(conversation(), TOOLS).messages
        assert first[-1]["content"].endswith("answer this request in its own language"
                                             ": Como está o clima em Tóquio e quanto é 123 * 456?")
        later = get_dialect(name).render([*conversation(), AIMessage("Faz sol; 56088."), HumanMessage("E amanhã?")],
                                         TOOLS).messages
        assert later[: len(first)] == first
    long = "x" * (_REPEAT_LIMIT + 1)
    chat = get_dialect("json").render([HumanMessage(long), *conversation()[1:]], TOOLS).messages
    assert chat[-1]["content"].endswith("answer the request in its own language.") and long not in chat[-1]["content"]
