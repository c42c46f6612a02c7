"""Tool-call dialects of the local model: how tools, calls and results are written into the prompt, which
call formats a reply may use, how the start of a call is recognised, and which parser reads it.

A *dialect* decides the prompt; a *format* (``"pythonic"``, ``"json"``, ``"hermes"``; see
:mod:`toolwire.models.grammar`) is the syntax of the calls in a reply. Dialects:

* ``"template"``: the model's own chat template (from the GGUF) renders everything; tools go in as the
  template's ``tools`` variable (OpenAI format), calls as ``tool_calls`` and results as ``tool``
  messages (the Hugging Face chat-template conventions). Replies are read as ``hermes`` blocks when the
  template speaks of ``<tool_call>`` (generated as ``function_tag`` blocks when the template writes
  Qwen3-Coder's ``<function=NAME><parameter=KEY>`` tags), and as JSON call objects (what small Qwen models
  actually write). Results go in call order, one per call, as the hosted providers send them, and the
  conversation is written so that the template's own checks pass (call ids of the length it demands, one
  call per assistant turn where it refuses more): see :mod:`toolwire.models._template_conversation`.
* ``"pythonic"``: a system prompt lists the tools as Python function signatures and asks for a Python list
  of calls, ``[get_weather(city="Paris"), calculate(expression="2 + 2")]``; earlier calls are written
  the same way and results come back as plain text in a user turn (``Function results:``), one per call in call
  order as in ``template``. Names Python
  cannot read as written are shown, allowed and written back in one Python-safe spelling
  (:class:`toolwire.parsing.pythonic.PythonNames`: ``get_weather`` for ``get-weather``, ``from_`` for a
  parameter ``from``) and read back as the real names.
* ``"json"``: the same, with the tools as JSON Schemas and calls as a JSON list
  ``[{"name": ..., "arguments": {...}}]`` (one call object when ``parallel`` is off; earlier calls are
  written with their arguments in the tool's schema order, as the grammar lets the model write them).

Where a call starts in a reply is recognised by :class:`toolwire.models.openers.OpenerScanner`.

The default per model family is :data:`DEFAULT_DIALECTS` (first match on the GGUF's
``general.architecture`` and ``general.name``), and, for a request that binds two or more tools,
:data:`SEVERAL_TOOLS_DIALECTS` where a family has one measured better there; see :func:`default_dialect`.

Rendering is deterministic: the same conversation always gives the same text, so a longer conversation's
prompt extends the previous one byte for byte and llama.cpp reuses its KV cache. A reply generated here
keeps its exact text in ``provider_data["llamacpp"]`` and is written back verbatim in later turns.

The model reads text only (:mod:`toolwire.models._text_content`): an image in a user or system message is a
UserError, one in a tool result a short note that it cannot be shown; other blocks are their JSON text.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Sequence
from typing import Any

from toolwire.errors import UserError
from toolwire.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolCall, ToolMessage
from toolwire.models._local_union import local_parameters
from toolwire.models._template_conversation import (
    NO_RULES,
    TemplateRules,
    fit_to_rules,
    ordered_messages,
    template_calls,
    template_rules,
)
from toolwire.models._text_content import prompt_text, result_text
from toolwire.models._tool_text import (
    _example_call,
    _python_call,
    _python_names,
    _signature,
    format_calls,
    python_signature,
)
from toolwire.models.chat_template import CHATML_TEMPLATE, ChatTemplate, Rendered
from toolwire.parsing import ParsedReply, parse_tool_calls
from toolwire.parsing.pythonic import PythonNames
from toolwire.tools import ToolSpec

__all__ = [
    "CHATML_TEMPLATE",
    "DEFAULT_DIALECTS",
    "DIALECTS",
    "RAW_KEY",
    "SEVERAL_TOOLS_DIALECTS",
    "ChatTemplate",
    "Dialect",
    "Rendered",
    "default_dialect",
    "default_dialect_for",
    "fingerprint",
    "format_calls",
    "get_dialect",
    "parse_reply",
    "python_signature",
]

DIALECTS = ("template", "pythonic", "json")
"""The dialect names ChatLlamaCpp accepts."""

DEFAULT_DIALECTS: tuple[tuple[str, str, str, dict[str, float]], ...] = (
    # (general.architecture regex, general.name regex, dialect, its bars where they differ from the
    # dialect's own); first match wins.
    # Measured with qwen2.5-coder-1.5b: with its own template it writes one ```json call where two are
    # needed and repeats calls after results; with the pythonic prompt it makes both calls and answers.
    # Measured on BFCL (first 25 items of each category, benchmarks/ACCURACY.md): qwen2.5-coder-0.5b
    # with the pythonic prompt often writes a list of made-up results instead of calls (multiple 16%);
    # with the json prompt it scores higher on simple, multiple and parallel_multiple (only parallel drops).
    # Going on to another call where the 0.5b model nearly does (parallel_call_share 0.02, twenty-fifth
    # session, benchmarks/ACCURACY.md): parallel 44.50 -> 51.00 and parallel_multiple 26.50 -> 35.50 on the
    # whole categories, no item lost; it never acts on the first 60 simple and multiple items.
    (r"^qwen2$", r"(?i)\b0\.5B\b", "json", {"parallel_call_share": 0.02}),
    (r"^qwen2$", r"", "pythonic", {}),
    (r"^qwen", r"", "pythonic", {}),
    (r"^llama$", r"(?i)smollm", "json", {}),
)
"""Default dialect per model family, keyed on GGUF metadata, with the bars it uses where they differ from the
dialect's (:class:`Dialect`); the BFCL eval measures and updates it. A model matching none uses ``"template"``
when its template takes ``tools``, else ``"json"``."""

SEVERAL_TOOLS_DIALECTS: tuple[tuple[str, str, str, dict[str, float]], ...] = (
    # (general.architecture regex, general.name regex, dialect, its bars); first match wins.
    # Measured with qwen2.5-coder-1.5b on BFCL's whole categories (benchmarks/ACCURACY.md, "Twentieth
    # session"): where a choice among several tools is bound (multiple, parallel_multiple), the json prompt
    # with pythonic's two bars gets multiple 88.50 against pythonic's 85.00 (12 items won, 5 lost; six of
    # those won were pythonic replies with no call) and parallel_multiple the same 77.00; where one tool is
    # bound, pythonic stays ahead on parallel (82.00 against 78.50) and irrelevance (75.42 against 71.67).
    (r"^qwen2$", r"(?i)\b1\.5B\b", "json", {"min_call_probability": 0.25, "min_value_probability": 0.3}),
)
"""The dialect a model family uses by default when two or more tools are bound, where it differs from
:data:`DEFAULT_DIALECTS`' (keyed the same way); see :func:`default_dialect`."""

_EMPTY_RESULT = "(the tool returned nothing)"

RAW_KEY = "llamacpp"
"""The ``provider_data`` key under which a reply keeps its exact generated text."""

# the hermes parser reads both bodies of a <tool_call> block, JSON and Qwen3-Coder's <function=NAME> tags
_PARSER_DIALECT = {"pythonic": "pythonic", "json": "json", "hermes": "hermes", "function_tag": "hermes"}


def default_dialect(metadata: dict[str, str], template: str | None = None, tool_count: int = 1) -> str:
    """Pick the dialect for a model from its GGUF metadata and the number of tools bound.

    Args:
        metadata: the GGUF key/value metadata (``general.architecture``, ``general.name``...).
        template: the chat template text, if any.
        tool_count: how many tools the request binds (0 or 1: the family's one default).

    Returns:
        A name from :data:`DIALECTS`: with two or more tools, the first match of
        :data:`SEVERAL_TOOLS_DIALECTS`, else the first of :data:`DEFAULT_DIALECTS`, else ``"template"`` when
        the template takes ``tools``, else ``"json"``.
    """
    found = _several_tools(metadata) if tool_count >= 2 else None
    if found is not None:
        return found[0]
    found = _family_default(metadata)
    if found is not None:
        return found[0]
    return "template" if template and "tools" in template else "json"


def default_dialect_for(metadata: dict[str, str], template: str | None, tool_count: int,
                        no_parameters: bool = False) -> Dialect:
    """Return the :class:`Dialect` a model uses by default for a request binding ``tool_count`` tools: the one
    :func:`default_dialect` names, with the bars the table that picked it gives (:data:`SEVERAL_TOOLS_DIALECTS`,
    :data:`DEFAULT_DIALECTS`).

    Args:
        metadata, template: the GGUF metadata and chat template text, as :func:`default_dialect` takes them.
        tool_count: how many tools the request binds (2 or more may pick another dialect).
        no_parameters: the one tool bound takes no parameters, which picks the dialect of several tools too:
            qwen2.5-coder-1.5b under ``pythonic`` answers such a tool's question with a list of made-up values
            (``['14:30']`` for ``get_time()``) more often than under ``json`` (review 145 #1; 16 questions on 8
            such tools, ``benchmarks/zero_parameter_tools.py``: see benchmarks/ACCURACY.md, "Forty-ninth
            session"). BFCL binds no such tool, so none of its figures moves.

    Raises:
        UserError: ``"template"`` picked for a model whose chat template takes no tools (never by the tables).
    """
    found = _several_tools(metadata) if tool_count >= 2 or no_parameters else None
    if found is None:
        found = _family_default(metadata)
    if found is not None:
        return dataclasses.replace(get_dialect(found[0], template), **found[1])
    return get_dialect(default_dialect(metadata, template), template)


def _family_default(metadata: dict[str, str]) -> tuple[str, dict[str, float]] | None:
    return _first_match(DEFAULT_DIALECTS, metadata)


def _first_match(table: tuple[tuple[str, str, str, dict[str, float]], ...], metadata: dict[str, str]
                 ) -> tuple[str, dict[str, float]] | None:
    """``(dialect, bars)`` of the first row of ``table`` whose regexes match the model's architecture and name."""
    arch, name = _model_names(metadata)
    for arch_re, name_re, dialect, bars in table:
        if re.search(arch_re, arch) and re.search(name_re, name):
            return dialect, bars
    return None


def _model_names(metadata: dict[str, str]) -> tuple[str, str]:
    return (metadata.get("general.architecture", ""),
            metadata.get("general.name", "") + " " + metadata.get("general.basename", ""))


def _several_tools(metadata: dict[str, str]) -> tuple[str, dict[str, float]] | None:
    return _first_match(SEVERAL_TOOLS_DIALECTS, metadata)


# -- writing calls -------------------------------------------------------------------------------------


def _openai_tool(spec: ToolSpec) -> dict[str, Any]:
    """A tool as a chat template's ``tools`` takes it: a top-level union of objects folded into one object
    (:func:`~toolwire.models._local_union.local_parameters`), as templates list ``parameters.properties``."""
    parameters = local_parameters(spec.parameters, spec.name)
    return {"type": "function", "function": {"name": spec.name, "description": spec.description,
                                             "parameters": _prompt_parameters(parameters)}}


def _prompt_parameters(parameters: dict[str, Any]) -> dict[str, Any]:
    """The parameters schema as a local model's prompt shows it: without the top-level
    ``additionalProperties: false`` every function tool has. The grammar and validation already refuse unknown
    keys, so the words would only cost prompt tokens (and change what the model is measured on)."""
    if parameters.get("additionalProperties") is not False:
        return parameters
    return {key: value for key, value in parameters.items() if key != "additionalProperties"}


_PYTHONIC_PROMPT = """You can call these Python functions:

{signatures}

To call functions, reply with only a Python list of calls and nothing else, for example:
[{example}]
Use keyword arguments with literal values. {how_many} If no function is needed, answer in plain \
text. After the results come back, answer the user's question with them."""

_TEMPLATE_RELEVANCE = ("Call a function only when one of them fits the request; when none does, answer in plain "
                       "text without a function call.")
"""Added to the system turn in the ``template`` dialect when tools are offered with ``tool_choice`` auto: a
GGUF template's tool prompt (Qwen2.5's, Hermes-style) says how to call but not when to answer in text;
the issue's own measurement of such an instruction on qwen2.5-coder-1.5b moved irrelevance 3 -> 19 of 25."""

_JSON_PROMPT = """You can call these functions (JSON Schemas of their arguments):

{specs}

To call functions, reply with only {what} and nothing else, for example:
{example}
{how_many} If no function is needed, answer in plain text. After the results come back, answer the \
user's question with them."""


# -- dialects --------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class Dialect:
    """One way of writing tools, calls and results into the prompt.

    Attributes:
        name: ``"template"``, ``"pythonic"`` or ``"json"``.
        formats: the call formats a reply is read in, the primary one first (the one a forced call
            uses).
        min_call_probability: the bar ``ChatLlamaCpp`` uses when its own is None: a call is made only
            when the model's probability of opening it is at least this (0: every call is made). 0.25
            for ``pythonic``: it declines calls the default model is unsure of (BFCL irrelevance 51.7 ->
            58.3 on the sample, nothing lost elsewhere) and keeps the book's calls (the lowest, 0.36);
            0 for the others, not measured yet (benchmarks/ACCURACY.md), but 0.25 for ``json`` where
            :data:`SEVERAL_TOOLS_DIALECTS` picks it (as it was measured there).
        min_value_probability: the bar ``ChatLlamaCpp`` uses when its own is None for the values of a
            call: a call with a value the model is less sure of than this and that the
            conversation does not hold is declined (0: off; see :mod:`toolwire.models._call_checks`). 0.3
            for ``pythonic``: BFCL irrelevance 55.8 -> 77.1 on the default model, three right calls lost in
            the other categories; 0.3 for ``json`` (nineteenth session): on the stride sample, irrelevance
            35 -> 46 of 60 for qwen2.5-coder-0.5b (whose default it is) and 33 -> 42 for the 1.5b model, no
            verdict changed in the call categories (benchmarks/ACCURACY.md); 0 for ``template``, not measured.
        optional_argument_share: the share ``ChatLlamaCpp`` uses when its own is None: where a pythonic call
            would close with an optional parameter left, it goes on with another argument when the model
            gives that at least this share of its probability (:mod:`toolwire.models._argument_lean`; 0: off).
            0.3 for ``pythonic``: on the default model's BFCL replies, 12 items won and 3 lost over simple,
            multiple, parallel and parallel_multiple (benchmarks/ACCURACY.md, "Tenth session"); 0 for the
            others (not measured).
        parallel_call_share: the share ``ChatLlamaCpp`` uses when its own is None: where a call list would
            close (or, for JSON call objects one per line, the line after one would close their fence or end the
            reply), it goes on with another call when the model gives that at least this share of its
            probability (:mod:`toolwire.models._call_lean`; 0: off). 0 for every
            dialect; :data:`DEFAULT_DIALECTS` sets 0.02 for qwen2.5-coder-0.5b, where it was measured
            (benchmarks/ACCURACY.md, "Twenty-fifth session").
        rules: for ``template``, the checks the chat template makes on its conversation (call ids of a fixed
            length, one call per assistant turn), which :meth:`render` writes the conversation to pass
            (:mod:`toolwire.models._template_conversation`); for the others only ``later_system_dropped``, from
            the model's template (they write system turns through it too).
    """

    name: str
    formats: tuple[str, ...]
    min_call_probability: float = 0.0
    min_value_probability: float = 0.0
    optional_argument_share: float = 0.0
    parallel_call_share: float = 0.0
    rules: TemplateRules = NO_RULES

    def render(
        self,
        messages: Sequence[BaseMessage],
        tools: Sequence[ToolSpec],
        *,
        tool_choice: str | None = None,
        parallel: bool | None = None,
        model: str | None = None,
    ) -> Rendered:
        """Turn a conversation into template messages (and the template's ``tools``).

        In every dialect, results are first put in call order, one per call, as the hosted providers get them
        (:func:`~toolwire.models._template_conversation.ordered_messages`: of several results for one call the
        last, a call the conversation went on past without a result answered with an error result). For
        ``template`` the messages are then written to pass the template's checks (:attr:`rules`); in every dialect a
        later system message is added to the leading one where the template would skip it.

        Args:
            messages: the conversation, oldest first.
            tools: the tools offered for this reply (none when ``tool_choice`` is ``"none"``).
            tool_choice: ``"auto"``/None, ``"required"`` or a tool name (adds an instruction).
            parallel: ``False`` asks for at most one call per reply.
            model: the model's name, used in errors (default: "This local model").

        Returns:
            A :class:`Rendered` conversation.

        Raises:
            UserError: a user or system message holds an image (or audio, video, file, document): the model
                reads text only. In a tool result such a block is written as a short note instead.
        """
        calls_by_id: dict[str, ToolCall] = {}
        out: list[dict[str, Any]] = []
        names = _python_names(tools)
        question = ""  # the last user message's text: said again after the results the model now answers
        for message in ordered_messages(messages, keep_orphans=self.name != "template"):
            if isinstance(message, AIMessage):
                for call in message.tool_calls:
                    if call.get("id"):
                        calls_by_id[call["id"]] = call
                out.append(self._assistant(message, names, tools))
            elif isinstance(message, ToolMessage):
                result = self._result(message, calls_by_id, names, tools)
                out.append({**result, "_question": question} if result.get("_result") else result)
            elif isinstance(message, SystemMessage):
                text = prompt_text(message, model)
                if out and out[-1]["role"] == "system" and len(out) == 1:  # leading system messages: one turn, as
                    out[0] = {"role": "system", "content": "\n\n".join(filter(None, (out[0]["content"], text)))}
                else:  # most chat templates take (an Agent's prompt, then the caller's: review 111)
                    out.append({"role": "system", "content": text})
            elif isinstance(message, HumanMessage):
                question = prompt_text(message, model)
                out.append({"role": "user", "content": question})
            else:
                raise UserError(f"ChatLlamaCpp cannot send a {type(message).__name__}; use the toolwire messages.")
        instruction = _choice_instruction(tool_choice, tools, names if self.name == "pythonic" else None)
        if self.name == "template":
            if tools and tool_choice in (None, "auto"):  # the template's own tool prompt never says when not to call
                out = _add_system(out, _TEMPLATE_RELEVANCE)
            out = fit_to_rules(out, self.rules)
            return Rendered(_add_to_last_user(out, instruction), [_openai_tool(t) for t in tools] or None)
        out = _merge_results(fit_to_rules(out, self.rules))  # (rules: at most the fold of later system turns)
        if tools:
            out = _add_system(out, self._tools_prompt(tools, parallel, names))
        return Rendered(_add_to_last_user(out, instruction), None)

    def _assistant(self, message: AIMessage, names: PythonNames, tools: Sequence[ToolSpec]) -> dict[str, Any]:
        """An assistant turn: its raw reply when this dialect wrote it, else its text and calls as the
        dialect writes them (JSON arguments in the offered tool's schema order, as its grammar allows), then the
        raw text of its invalid calls (another dialect's reply, a provider's): the error results that answer them
        follow, so the model sees what it wrote rather than an empty turn. For ``template``, each invalid call is a
        ``tool_calls`` entry at its place in the reply, its arguments the text written
        (:func:`~toolwire.models._template_conversation.template_calls`), so calls and results line up."""
        raw = (message.provider_data or {}).get(RAW_KEY)
        check = fingerprint(message.text, message.tool_calls)
        if isinstance(raw, dict) and raw.get("dialect") == self.name and raw.get("check") == check:
            return {"role": "assistant", "content": raw.get("text", "")}
        text = message.text
        if self.name == "template":  # each call a tool_calls entry, the invalid ones as written: results have calls
            entry: dict[str, Any] = {"role": "assistant", "content": text}
            if message.tool_calls or message.invalid_tool_calls:
                entry["tool_calls"] = template_calls(message)
            return entry
        broken = "\n".join(str(c.get("args")) for c in message.invalid_tool_calls if c.get("args"))
        text = f"{text}\n{broken}" if text and broken else text or broken
        calls = message.tool_calls
        if calls:
            if self.formats[0] == "pythonic":
                written = "[" + ", ".join(_python_call(c, names) for c in calls) + "]"
            else:
                written = format_calls(calls, self.formats[0], tools)
            text = f"{text}\n{written}" if text else written
        return {"role": "assistant", "content": text}

    def _result(self, message: ToolMessage, calls_by_id: dict[str, ToolCall], names: PythonNames,
                tools: Sequence[ToolSpec]) -> dict[str, Any]:
        """A tool result: a ``tool`` message for a template, else a user turn headed by the call it answers."""
        # an empty result is said to be empty: shown as nothing, the model took it for a result yet to come and made
        # one up ("sunny"; review 50)
        body = result_text(message.content)
        if not body.strip():
            body = _EMPTY_RESULT
        if self.name == "template":
            entry = {"role": "tool", "content": body, "tool_call_id": message.tool_call_id}
            if message.name:
                entry["name"] = message.name
            return entry
        call = calls_by_id.get(message.tool_call_id)
        if call is not None:
            head = format_calls([call], self.formats[0], tools) if self.name == "json" else _python_call(call, names)
        elif self.name == "json" or not message.name:
            head = f"{message.name or 'function'}(...)"
        else:
            head = f"{names.tool(message.name)}(...)"
        if message.status == "error":
            body = f"error: {body}"
        line = f"{head} -> {body}" if "\n" not in body else f"{head} ->\n{body}"
        return {"role": "user", "content": f"Function results:\n{line}", "_result": True}

    def _tools_prompt(self, tools: Sequence[ToolSpec], parallel: bool | None, names: PythonNames) -> str:
        if parallel is False:
            how_many = "Call at most one function per reply."
            examples = [_example_call(tools[0])]
        else:
            how_many = ("Call only the functions the request needs, once for each thing it asks for: the same "
                        "question about several values takes one call per value, all in one list.")
            examples = [_example_call(tools[0]), _example_call(tools[0], 1)]
        if self.name == "pythonic":
            text = _PYTHONIC_PROMPT.format(signatures="\n\n".join(_signature(t, names) for t in tools),
                                           example=", ".join(_python_call(c, names) for c in examples),
                                           how_many=how_many)
        else:
            specs = "\n".join(json.dumps({"name": t.name, "description": t.description,
                                          "parameters": _prompt_parameters(t.parameters)}, ensure_ascii=False)
                              for t in tools)
            if parallel is False:  # one call object, as the grammar (parallel off) and the history write it
                what, example = "one JSON call object", format_calls(examples, "json", tools)
            else:
                what = "a JSON list of calls"
                example = "[" + ", ".join(format_calls([c], "json") for c in examples) + "]"
            text = _JSON_PROMPT.format(specs=specs, what=what, example=example, how_many=how_many)
        return text


def _choice_instruction(tool_choice: str | None, tools: Sequence[ToolSpec], names: PythonNames | None) -> str:
    """The instruction a forced ``tool_choice`` adds (the tool as ``names`` spells it, when given)."""
    if tool_choice == "required":
        return "Now reply with function calls only."
    if tool_choice and tool_choice not in ("auto", "none") and any(t.name == tool_choice for t in tools):
        return f"Now reply with a call of the function {names.tool(tool_choice) if names else tool_choice} only."
    return ""


def _add_to_last_user(messages: list[dict[str, Any]], text: str) -> list[dict[str, Any]]:
    """Append ``text`` to the conversation's final user turn, or add a user turn after the last message,
    so that earlier turns (and the KV cache holding them) stay the same."""
    if not text:
        return messages
    if messages and messages[-1]["role"] == "user":
        return [*messages[:-1], {**messages[-1], "content": f"{messages[-1]['content']}\n\n{text}"}]
    return [*messages, {"role": "user", "content": text}]


def _add_system(messages: list[dict[str, Any]], text: str) -> list[dict[str, Any]]:
    """Add ``text`` to the leading system message (after its text), or insert one."""
    if messages and messages[0]["role"] == "system":
        head = dict(messages[0])
        head["content"] = f"{head['content']}\n\n{text}" if head["content"] else text
        return [head, *messages[1:]]
    return [{"role": "system", "content": text}, *messages]


_REPEAT_LIMIT = 500  # characters of the request said again after the results; a longer one is only referred to


def _answer_line(question: str, *, again: bool = True) -> str:
    """The line after the tool results a ``pythonic`` or ``json`` reply is about to answer: the newest user request,
    said again (``again``: up to :data:`_REPEAT_LIMIT` characters; beyond, only referred to) or here first, in full.
    It asks for the answer in the request's own language: told only "answer", the default 1.5b coder model echoed
    English tool results to Portuguese, Spanish and French questions (10 questions in 5 languages, thirtieth
    session: answers in the request's language 2 -> 9 of 10, every answer still right; benchmarks/answer_turn.py)."""
    question = question.strip()
    if question and (not again or len(question) <= _REPEAT_LIMIT):
        return f"\n\nUsing these results, answer this request in its own language: {question}"
    return "\n\nUsing these results, answer the request in its own language."


def _merge_results(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Join consecutive result turns (and a user turn right after them) into one user turn, ending with the request the
    model now answers (:func:`_answer_line`; review 64): the user turn after the results, said there once (review 65),
    else the user's last request said again; alike in every turn, so each prompt begins with the one before."""
    out: list[dict[str, Any]] = []
    for message in messages:
        prev = out[-1] if out else None
        if prev is not None and prev.get("_result") and message["role"] == "user":
            if message.get("_result"):
                text = "\n" + message["content"].removeprefix("Function results:\n")
            else:  # (a blank user turn leaves the earlier request to answer)
                asked = message["content"].strip()
                text = _answer_line(asked or prev.get("_question", ""), again=not asked)
            out[-1] = {**prev, "content": prev["content"] + text, "_result": message.get("_result")}
        else:
            out.append(message)
    out = [{**m, "content": m["content"] + _answer_line(m.get("_question", ""))} if m.get("_result") else m
           for m in out]
    return [{k: v for k, v in m.items() if k not in ("_result", "_question")} for m in out]


def fingerprint(text: str, calls: Sequence[ToolCall]) -> str:
    """Return a text identifying a reply by its content and calls, stored with its raw text so that a changed
    message (``copy(tool_calls=...)``) is rendered from its fields instead.

    Args:
        text: the reply's text content.
        calls: the reply's tool calls (only their ``name`` and ``args`` are used).
    """
    return json.dumps([text, [[c["name"], c["args"]] for c in calls]], sort_keys=True, ensure_ascii=False,
                      default=str)


def get_dialect(name: str, template: str | None = None) -> Dialect:
    """Return the :class:`Dialect` called ``name``.

    Args:
        name: one of :data:`DIALECTS`.
        template: the model's chat template; for ``"template"`` it decides the formats (``hermes``
            first when it mentions ``<tool_call>``, ``function_tag`` when it also writes ``<function=`` and
            ``<parameter=`` tags, as Qwen3-Coder's does) and the checks it makes on its conversation
            (:attr:`Dialect.rules`).

    Raises:
        UserError: unknown name, or ``"template"`` for a model whose template takes no tools.
    """
    # (the text dialects write system turns through the template too: one it would skip is folded: review 201 #3)
    folds = TemplateRules(later_system_dropped=True) if template_rules(template).later_system_dropped else NO_RULES
    if name == "pythonic":
        return Dialect("pythonic", ("pythonic", "json"), min_call_probability=0.25, min_value_probability=0.3,
                       optional_argument_share=0.3, rules=folds)
    if name == "json":
        return Dialect("json", ("json",), min_value_probability=0.3, rules=folds)
    if name == "template":
        if not template or "tools" not in template:
            raise UserError("This model's chat template does not take tools: use dialect='pythonic' or 'json'.")
        rules = template_rules(template)
        if "<tool_call>" not in template:
            return Dialect("template", ("json",), rules=rules)
        # Qwen3-Coder's template writes calls as <function=NAME><parameter=KEY> tags inside the block
        tags = "<function=" in template and "<parameter=" in template
        return Dialect("template", ("function_tag" if tags else "hermes", "json"), rules=rules)
    raise UserError(f"Unknown dialect {name!r}: use one of {', '.join(DIALECTS)}.")


def parse_reply(text: str, tools: Sequence[ToolSpec] | Sequence[str], fmt: str) -> ParsedReply:
    """Read the calls of a reply written in call format ``fmt`` (with :func:`toolwire.parsing.parse_tool_calls`).

    Args:
        text: the reply (or the part of it holding the calls).
        tools: the bound tools (or only their names: then pythonic parameter spellings such as ``from_``
            are not mapped back to the real names).
        fmt: the call format: ``"pythonic"``, ``"json"``, ``"hermes"`` or ``"function_tag"``
            (:data:`toolwire.models.grammar.FORMATS`).

    Returns:
        The :class:`~toolwire.parsing.ParsedReply`: the text left, the tool calls and the invalid ones. A tool whose
        arguments are a top-level union of objects is read by the union's fold
        (:func:`~toolwire.models._local_union.local_parameters`: parameter spellings, ``function_tag`` value types).
    """
    by_name = {t if isinstance(t, str) else t.name: None if isinstance(t, str) else local_parameters(t.parameters)
               for t in tools}
    return parse_tool_calls(text, by_name, dialect=_PARSER_DIALECT.get(fmt))
