"""Review 267 #2: a tool call the embedded model's reply was cut off in keeps, as its ``args``, the call's argument
text from where the arguments start (LangChain's ``InvalidToolCall.args``, OpenAI's cut ``function.arguments``), not
the dialect's whole call-list text; the whole text when the arguments had not started. The error result the model
reads quotes that argument text. No model is loaded."""

from __future__ import annotations

import pytest

from toolwire.execution import ToolExecutor
from toolwire.messages import AIMessage
from toolwire.models._reply import WINDOW_CUT, read_reply
from toolwire.models.lowering._calls import CUT_OFF
from toolwire.tools import ToolSpec, tool


@tool
def send_email(to: str, subject: str, body: str) -> str:
    """Send an email.

    Args:
        to: recipient address
        subject: subject line
        body: the body text
    """
    return "sent"


SPEC = ToolSpec("send_email", "Send an email.", {
    "type": "object", "properties": {"to": {"type": "string"}, "subject": {"type": "string"},
                                     "body": {"type": "string"}}, "required": ["to", "subject", "body"]})

CUTS = [  # (format, formats, the reply from the call's opening, the cut call's args, the content)
    ("json", ("json",), '[{"name": "send_email", "arguments": {"to": "bob@example.com", "',
     '{"to": "bob@example.com", "', ""),
    ("json", ("json",), '{"name": "send_email", "parameters": {"to": "b', '{"to": "b', ""),
    ("json", ("json",), '```json\n[{"name": "send_email", "arguments": {"to": "b', '{"to": "b', "```json"),
    ("json", ("json",), '[{"name": "send_email", "arguments": {"to": "a", "subject": "b", "body": "c"}}, '
                        '{"name": "send_email", "arguments": {"to": "x', '{"to": "x', ""),
    ("json", ("json",), '[{{"name": "send_email", "arguments": {"to": "b', '{"to": "b', None),
    ("pythonic", ("pythonic", "json"), '[send_email(to="bob@example.com", sub', 'to="bob@example.com", sub', ""),
    ("pythonic", ("pythonic", "json"), '```python\n[send_email(to="b', 'to="b', "```python"),
    ("pythonic", ("pythonic", "json"), '[send_email(to="a", subject="b", body="c"), send_email(to="x', 'to="x', ""),
    ("hermes", ("hermes", "json"), '<tool_call>\n{"name": "send_email", "arguments": {"to": "bob', '{"to": "bob', None),
    ("hermes", ("hermes", "json"), '<tool_call>\n<function=send_email>\n<parameter=to>\nbob',
     "<parameter=to>\nbob", None),
    ("function_tag", ("function_tag", "json"), '<tool_call>\n<function=send_email>\n<parameter=to>\nbob\n</parameter>'
     "\n<parameter=subj", "<parameter=to>\nbob\n</parameter>\n<parameter=subj", None),
]


@pytest.mark.parametrize(("fmt", "formats", "text", "args", "content"), CUTS)
@pytest.mark.parametrize("cut", ["max_tokens", "n_ctx"])
def test_a_cut_call_keeps_its_argument_text(fmt: str, formats: tuple[str, ...], text: str, args: str,
                                            content: str | None, cut: str) -> None:
    reply = read_reply("", text, [SPEC], formats, fmt, cut=cut)
    bad = reply.invalid_tool_calls[-1]
    assert (bad["name"], bad["args"]) == ("send_email", args)
    assert bad["error"] == (WINDOW_CUT if cut == "n_ctx" else CUT_OFF)
    if content is not None:
        assert reply.content == content  # the call's own text is not taken into the content


@pytest.mark.parametrize(("fmt", "formats", "text", "args"), [
    ("json", ("json",), '[{"name": "send_email", "argu', '[{"name": "send_email", "argu'),
    ("json", ("json",), '[{"name": "send_email", "arguments": ', '[{"name": "send_email", "arguments":'),
    ("json", ("json",), '{"name": "send_email", "', '{"name": "send_email", "'),
    ("pythonic", ("pythonic", "json"), "[send_email(", "[send_email("),
    ("pythonic", ("pythonic", "json"), "[send_e", "[send_e"),
    ("function_tag", ("function_tag", "json"), "<tool_call>\n<function=send_email>\n", "<function=send_email>"),
])
def test_a_call_cut_before_its_arguments_keeps_its_whole_text(fmt: str, formats: tuple[str, ...], text: str,
                                                              args: str) -> None:
    bad = read_reply("", text, [SPEC], formats, fmt, cut=True).invalid_tool_calls[-1]
    assert bad["args"] == args and bad["error"] == CUT_OFF


def test_the_error_result_quotes_the_argument_text() -> None:
    reply = read_reply("", '[{"name": "send_email", "arguments": {"to": "bob@example.com", "', [SPEC], ("json",),
                       "json", cut=True)
    message = AIMessage("", invalid_tool_calls=reply.invalid_tool_calls)
    [result] = ToolExecutor([send_email]).execute(message)
    assert result.status == "error"
    assert 'The arguments received were: {"to": "bob@example.com", ".' in result.content
    assert '"name"' not in result.content


# -- calls a hosted model wrote in its text (ChatOpenAI(text_tool_calls=True)) ------------------------------------

TEXT_CUTS = [  # (the reply's text, cut at its token limit; the cut call's args)
    ('[{"name": "send_email", "arguments": {"to": "bob@example.com", "', '{"to": "bob@example.com", "'),
    ('Sure.\n```json\n{"name": "send_email", "arguments": {"to": "b', '{"to": "b'),
    ('[send_email(to="bob@example.com", sub', 'to="bob@example.com", sub'),
    ('<tool_call>\n{"name": "send_email", "arguments": {"to": "bob', '{"to": "bob'),
    ("<tool_call>\n<function=send_email>\n<parameter=to>\nbob", "<parameter=to>\nbob"),
    ('<function=send_email>{"to": "b', '{"to": "b'),
    ('[TOOL_CALLS]send_email[ARGS]{"to": "b', '{"to": "b'),
    ('[TOOL_CALLS][{"name": "send_email", "arguments": {"to": "b', '{"to": "b'),
]


@pytest.mark.parametrize(("text", "args"), TEXT_CUTS)
def test_a_cut_call_written_as_text_keeps_its_argument_text(text: str, args: str) -> None:
    from toolwire.messages import AIMessageChunk, merge_chunks
    from toolwire.models._text_calls import TextCallStream, with_text_calls
    from toolwire.models.lowering._calls import read_as_cut

    message = with_text_calls(AIMessage(text, response_metadata={"finish_reason": "length"}), ["send_email"])
    assert [(bad["name"], bad["args"]) for bad in message.invalid_tool_calls] == [("send_email", args)]
    cut, _ = read_as_cut(message.invalid_tool_calls, "length", None, None)  # (what ChatOpenAI.invoke does then)
    assert [bad["error"] for bad in cut] == [CUT_OFF]
    reader = TextCallStream(["send_email"])
    chunks = [*reader.feed(AIMessageChunk(text, response_metadata={"finish_reason": "length"})), *reader.finish()]
    streamed = merge_chunks(chunks, as_chunk=False)
    assert [(bad["name"], bad["args"], bad["error"]) for bad in streamed.invalid_tool_calls] == [
        ("send_email", args, CUT_OFF)]


# -- ChatLlamaCpp's whole reply, without a model ----------------------------------------------------------------


@pytest.mark.parametrize(("dialect", "text", "args"), [
    ("json", '[{"name": "send_email", "arguments": {"to": "bob@example.com", "', '{"to": "bob@example.com", "'),
    ("pythonic", '[send_email(to="bob@example.com", sub', 'to="bob@example.com", sub'),
])
@pytest.mark.parametrize("window", [False, True])
def test_the_embedded_models_cut_reply_keeps_the_argument_text(dialect: str, text: str, args: str,
                                                               window: bool) -> None:
    pytest.importorskip("llama_cpp")
    from types import SimpleNamespace
    from typing import Any

    from toolwire.messages import HumanMessage, merge_chunks
    from toolwire.models._generation import Generation
    from toolwire.models.base import ChatRequest
    from toolwire.models.chat_template import ChatTemplate
    from toolwire.models.dialects import CHATML_TEMPLATE
    from toolwire.models.llamacpp import ChatLlamaCpp

    template = ChatTemplate(CHATML_TEMPLATE)
    loaded = SimpleNamespace(
        metadata={"general.architecture": "qwen2", "general.name": "Qwen2.5 Coder 0.5B Instruct"},
        template=CHATML_TEMPLATE, render=lambda chat, add_generation_prompt=True: template.render(chat),
        tokenize=lambda text: [ord(ch) for ch in text], cached_prefix=lambda tokens: 0,
        warm=lambda tokens, size, reuse_kv=True: 0, system_head=lambda chat: [], trained_context=32768)
    model = ChatLlamaCpp("qwen2.5-coder-0.5b", dialect=dialect, pull=False, prompt_cache=False)
    generation = Generation(model, ChatRequest([HumanMessage("Mail Bob.")], (SPEC,), "auto"), {}, loaded)

    def free(*_: Any) -> Any:  # the free generation wrote ``text`` and was cut there
        generation.finish = "length"
        generation.window_bound = window
        return "", text, dialect
        yield  # (a generator, as Generation._free is)

    generation._free = free  # type: ignore[method-assign]
    reply = merge_chunks(list(generation.run()), as_chunk=False)
    assert [(bad["name"], bad["args"]) for bad in reply.invalid_tool_calls] == [("send_email", args)]
    assert reply.invalid_tool_calls[0]["error"] == (WINDOW_CUT if window else CUT_OFF)
    assert reply.content == "" and reply.provider_data["llamacpp"]["text"] == text  # the text as generated
    [result] = ToolExecutor([send_email]).execute(reply)
    assert result.content.endswith(f"The arguments received were: {args}.")


@pytest.mark.parametrize(("text", "args"), [
    ('["send_email", {"to": "b', '{"to": "b'),  # a JSON pair, as small models write it unconstrained
    ('```\n{"name": "send_email", "arguments": {"to": "b', '{"to": "b'),
    ('`send_email(to="b', 'to="b'),
    ("['send_email'(to='b", "to='b"),
    ('[mail.send(to="b', 'to="b'),
    ('{"to": "b', '{"to": "b'),  # argument text already (Mistral's [ARGS])
    ('{"to": "x", "parameters": {"a": ', '{"to": "x", "parameters": {"a":'),
    ("Sure, I can help", "Sure, I can help"),
    ("  ", ""),
])
def test_argument_text(text: str, args: str) -> None:
    from toolwire.models._cut_args import argument_text

    assert argument_text(text) == args


def test_argument_text_of_long_runs_of_whitespace() -> None:
    from toolwire.models._cut_args import argument_text

    for text in ("```\n" + " " * 50_000 + "x", " \n" * 50_000 + "[" * 1000 + " " * 50_000, '["' + " " * 50_000):
        assert argument_text(text) == text.strip()  # (no opening: and found in linear time)
