"""Tool-call dialects of the local model: how tools, calls and results are written into the prompt, which
call formats a reply may use, how the start of a call is recognised, and which parser reads it.

A *dialect* decides the prompt; a *format* (``"pythonic"``, ``"json"``, ``"hermes"``; see
:mod:`toolwire.models.grammar`) is the syntax of the calls in a reply. Dialects:

* ``"template"``: the model's own chat template (from the GGUF) renders everything; tools go in as the
  template's ``tools`` variable (OpenAI format), calls as ``tool_calls`` and results as ``tool``
  messages (the Hugging Face chat-template conventions). Replies are read as ``hermes`` blocks when the
  template speaks of ``<tool_call>``, and as JSON call objects (what small Qwen models actually write).
* ``"pythonic"``: a system prompt lists the tools as Python function stubs and asks for a Python list
  of calls, ``[get_weather(city="Paris"), calculate(expression="2 + 2")]``; earlier calls are written
  the same way and results come back as plain text in a user turn (``Function results:``).
* ``"json"``: the same, with the tools as JSON Schemas and calls as a JSON list
  ``[{"name": ..., "arguments": {...}}]``.

The default per model family is :data:`DEFAULT_DIALECTS` (first match on the GGUF's
``general.architecture`` and ``general.name``), see :func:`default_dialect`.

Rendering is deterministic: the same conversation always gives the same text, so a longer conversation's
prompt extends the previous one byte for byte and llama.cpp reuses its KV cache. A reply generated here
keeps its exact text in ``provider_data["llamacpp"]`` and is written back verbatim in later turns.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Sequence
from typing import Any

from toolwire.errors import UserError
from toolwire.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolCall, ToolMessage
from toolwire.models.grammar import python_literal
from toolwire.parsing import ParsedReply, parse_tool_calls
from toolwire.tools import ToolSpec

__all__ = [
    "CHATML_TEMPLATE",
    "DEFAULT_DIALECTS",
    "DIALECTS",
    "RAW_KEY",
    "Dialect",
    "OpenerScanner",
    "Rendered",
    "default_dialect",
    "fingerprint",
    "format_calls",
    "get_dialect",
    "parse_reply",
]

DIALECTS = ("template", "pythonic", "json")
"""The dialect names ChatLlamaCpp accepts."""

DEFAULT_DIALECTS: tuple[tuple[str, str, str], ...] = (
    # (general.architecture regex, general.name regex, dialect); first match wins.
    # Measured with qwen2.5-coder-1.5b: with its own template it writes one ```json call where two are
    # needed and repeats calls after results; with the pythonic prompt it makes both calls and answers.
    (r"^qwen2$", r"", "pythonic"),
    (r"^qwen", r"", "pythonic"),
    (r"^llama$", r"(?i)smollm", "json"),
)
"""Default dialect per model family, keyed on GGUF metadata; the BFCL eval measures and updates it.
A model matching none uses ``"template"`` when its template takes ``tools``, else ``"json"``."""

RAW_KEY = "llamacpp"
"""The ``provider_data`` key under which a reply keeps its exact generated text."""

CHATML_TEMPLATE = (
    "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] "
    "+ '<|im_end|>\\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)
"""The template used when a GGUF carries none (ChatML)."""

_PARSER_DIALECT = {"pythonic": "pythonic", "json": "json", "hermes": "hermes"}


def default_dialect(metadata: dict[str, str], template: str | None = None) -> str:
    """Pick the dialect for a model from its GGUF metadata.

    Args:
        metadata: the GGUF key/value metadata (``general.architecture``, ``general.name``...).
        template: the chat template text, if any.

    Returns:
        A name from :data:`DIALECTS`.
    """
    arch = metadata.get("general.architecture", "")
    name = metadata.get("general.name", "") + " " + metadata.get("general.basename", "")
    for arch_re, name_re, dialect in DEFAULT_DIALECTS:
        if re.search(arch_re, arch) and re.search(name_re, name):
            return dialect
    return "template" if template and "tools" in template else "json"


@dataclasses.dataclass(frozen=True, slots=True)
class Rendered:
    """A conversation ready for the chat template.

    Attributes:
        messages: ``{"role", "content", ...}`` dicts (OpenAI / Hugging Face chat-template shape).
        tools: the ``tools`` template variable (OpenAI function tools), or None.
    """

    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] | None


# -- writing calls -------------------------------------------------------------------------------------


def format_calls(calls: Sequence[ToolCall], fmt: str) -> str:
    """Write tool calls as a reply in ``fmt`` would hold them (the canonical form the grammar allows).

    Args:
        calls: ToolCall dicts.
        fmt: ``"pythonic"``, ``"json"`` or ``"hermes"``.

    Returns:
        ``[f(a=1), g(b="x")]``; ``[{"name": "f", "arguments": {"a": 1}}, ...]`` (one object alone when
        there is one call); or one ``<tool_call>`` block per call.
    """
    if fmt == "pythonic":
        return "[" + ", ".join(_python_call(c) for c in calls) + "]"
    objects = [{"name": c["name"], "arguments": c["args"]} for c in calls]
    if fmt == "hermes":
        return "\n".join(f"<tool_call>\n{json.dumps(o, ensure_ascii=False)}\n</tool_call>" for o in objects)
    return json.dumps(objects[0] if len(objects) == 1 else objects, ensure_ascii=False)


def _python_call(call: ToolCall) -> str:
    args = ", ".join(f"{k}={_py(v)}" for k, v in (call.get("args") or {}).items())
    return f"{call['name']}({args})"


def _py(value: Any) -> str:
    try:
        return python_literal(value)
    except ValueError:
        return "None"


# -- describing tools ------------------------------------------------------------------------------------


def _py_type(schema: Any, depth: int = 0) -> str:
    if not isinstance(schema, dict) or depth > 4:
        return "Any"
    if "const" in schema:
        return f"Literal[{_py(schema['const'])}]"
    if isinstance(schema.get("enum"), list):
        return "Literal[" + ", ".join(_py(v) for v in schema["enum"]) + "]"
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list):
            return " | ".join(dict.fromkeys(_py_type(s, depth + 1) for s in schema[key]))
    kind = schema.get("type")
    if isinstance(kind, list):
        return " | ".join(_py_type({**schema, "type": k}, depth + 1) for k in kind)
    simple = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"}
    if kind in simple:
        return simple[kind]
    if kind == "array":
        return f"list[{_py_type(schema.get('items'), depth + 1)}]"
    if kind == "object" or "properties" in schema:
        props = schema.get("properties")
        if isinstance(props, dict) and props:
            inner = ", ".join(f"{k}: {_py_type(v, depth + 1)}" for k, v in props.items())
            return f"dict  # {{{inner}}}" if depth == 0 else "dict"
        return "dict"
    return "Any"


def python_stub(spec: ToolSpec) -> str:
    """Describe a tool as a Python function stub with a Google-style docstring.

    Required parameters come first (no default), optional ones get ``= <default>`` (or ``= None``).
    """
    props: dict[str, Any] = spec.parameters.get("properties") or {}
    required = set(spec.parameters.get("required") or ())
    params, docs = [], []
    for name in sorted(props, key=lambda n: n not in required):
        sub = props[name] if isinstance(props[name], dict) else {}
        kind = _py_type(sub).split("  #")[0]
        if name in required:
            params.append(f"{name}: {kind}")
        else:
            params.append(f"{name}: {kind} = {_py(sub.get('default'))}")
        if sub.get("description"):
            docs.append(f"        {name}: {sub['description']}")
    lines = [f"def {spec.name}({', '.join(params)}):"]
    description = (spec.description or "").strip().replace('"""', "'''")
    doc = [f"    {line}".rstrip() for line in description.splitlines()] or ["    (no description)"]
    doc[0] = '    """' + doc[0].strip()
    if docs:
        doc += ["", "    Args:", *docs]
    lines += doc
    lines.append('    """')
    return "\n".join(lines)


def _openai_tool(spec: ToolSpec) -> dict[str, Any]:
    return {"type": "function",
            "function": {"name": spec.name, "description": spec.description, "parameters": spec.parameters}}


_PYTHONIC_PROMPT = """You can call these Python functions:

{stubs}

To call functions, reply with only a Python list of calls and nothing else, for example:
[{example}]
Use keyword arguments with literal values. {how_many} If no function is needed, answer in plain \
text. After the results come back, answer the user's question with them."""

_JSON_PROMPT = """You can call these functions (JSON Schemas of their arguments):

{specs}

To call functions, reply with only a JSON list of calls and nothing else, for example:
[{example}]
{how_many} If no function is needed, answer in plain text. After the results come back, answer the \
user's question with them."""


def _example_value(schema: Any) -> Any:
    if not isinstance(schema, dict):
        return "value"
    if "const" in schema:
        return schema["const"]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    kind = schema.get("type")
    kind = kind[0] if isinstance(kind, list) and kind else kind
    return {"integer": 1, "number": 1.5, "boolean": True, "array": [], "object": {}, "null": None}.get(
        str(kind), "value")


def _example_call(spec: ToolSpec) -> ToolCall:
    props: dict[str, Any] = spec.parameters.get("properties") or {}
    required = list(spec.parameters.get("required") or ()) or list(props)[:1]
    args = {k: _example_value(props.get(k)) for k in required if k in props}
    return {"name": spec.name, "args": args, "id": None, "type": "tool_call"}


# -- dialects --------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class Dialect:
    """One way of writing tools, calls and results into the prompt.

    Attributes:
        name: ``"template"``, ``"pythonic"`` or ``"json"``.
        formats: the call formats a reply is read in, the primary one first (the one a forced call
            uses).
    """

    name: str
    formats: tuple[str, ...]

    def render(
        self,
        messages: Sequence[BaseMessage],
        tools: Sequence[ToolSpec],
        *,
        tool_choice: str | None = None,
        parallel: bool | None = None,
    ) -> Rendered:
        """Turn a conversation into template messages (and the template's ``tools``).

        Args:
            messages: the conversation, oldest first.
            tools: the tools offered for this reply (none when ``tool_choice`` is ``"none"``).
            tool_choice: ``"auto"``/None, ``"required"`` or a tool name (adds an instruction).
            parallel: ``False`` asks for at most one call per reply.

        Returns:
            A :class:`Rendered` conversation.
        """
        calls_by_id: dict[str, ToolCall] = {}
        out: list[dict[str, Any]] = []
        for message in messages:
            if isinstance(message, AIMessage):
                for call in message.tool_calls:
                    if call.get("id"):
                        calls_by_id[call["id"]] = call
                out.append(self._assistant(message))
            elif isinstance(message, ToolMessage):
                out.append(self._result(message, calls_by_id))
            elif isinstance(message, SystemMessage):
                out.append({"role": "system", "content": message.text})
            elif isinstance(message, HumanMessage):
                out.append({"role": "user", "content": message.text})
            else:
                raise UserError(f"ChatLlamaCpp cannot send a {type(message).__name__}; use the toolwire messages.")
        if self.name == "template":
            rendered = Rendered(out, [_openai_tool(t) for t in tools] or None)
            instruction = _choice_instruction(tool_choice, parallel, tools)
            if instruction and tools:
                rendered = Rendered(_add_system(out, instruction, first=False), rendered.tools)
            return rendered
        out = _merge_results(out)
        if tools:
            out = _add_system(out, self._tools_prompt(tools, tool_choice, parallel), first=True)
        return Rendered(out, None)

    def _assistant(self, message: AIMessage) -> dict[str, Any]:
        raw = (message.provider_data or {}).get(RAW_KEY)
        check = fingerprint(message.text, message.tool_calls)
        if isinstance(raw, dict) and raw.get("dialect") == self.name and raw.get("check") == check:
            return {"role": "assistant", "content": raw.get("text", "")}
        text = message.text
        calls = message.tool_calls
        if self.name == "template":
            entry: dict[str, Any] = {"role": "assistant", "content": text}
            if calls:
                entry["tool_calls"] = [{"id": c["id"], "type": "function",
                                        "function": {"name": c["name"], "arguments": c["args"]}} for c in calls]
            return entry
        if calls:
            written = format_calls(calls, self.formats[0])
            text = f"{text}\n{written}" if text else written
        return {"role": "assistant", "content": text}

    def _result(self, message: ToolMessage, calls_by_id: dict[str, ToolCall]) -> dict[str, Any]:
        if self.name == "template":
            entry = {"role": "tool", "content": message.text, "tool_call_id": message.tool_call_id}
            if message.name:
                entry["name"] = message.name
            return entry
        call = calls_by_id.get(message.tool_call_id)
        if call is not None:
            head = format_calls([call], self.formats[0]) if self.name == "json" else _python_call(call)
        else:
            head = f"{message.name or 'function'}(...)"
        body = message.text
        if message.status == "error":
            body = f"error: {body}"
        line = f"{head} -> {body}" if "\n" not in body else f"{head} ->\n{body}"
        return {"role": "user", "content": f"Function results:\n{line}", "_result": True}

    def _tools_prompt(self, tools: Sequence[ToolSpec], tool_choice: str | None, parallel: bool | None) -> str:
        how_many = ("Call at most one function per reply." if parallel is False
                    else "Put every call you need now in one list.")
        examples = [_example_call(t) for t in tools[:2]]
        if self.name == "pythonic":
            text = _PYTHONIC_PROMPT.format(stubs="\n\n".join(python_stub(t) for t in tools),
                                           example=", ".join(_python_call(c) for c in examples),
                                           how_many=how_many)
        else:
            specs = "\n".join(json.dumps({"name": t.name, "description": t.description,
                                          "parameters": t.parameters}, ensure_ascii=False) for t in tools)
            example = ", ".join(format_calls([c], "json") for c in examples)
            text = _JSON_PROMPT.format(specs=specs, example=example, how_many=how_many)
        instruction = _choice_instruction(tool_choice, parallel, tools)
        return f"{text}\n{instruction}" if instruction else text


def _choice_instruction(tool_choice: str | None, parallel: bool | None, tools: Sequence[ToolSpec]) -> str:
    if tool_choice == "required":
        return "Now reply with function calls only."
    if tool_choice and tool_choice not in ("auto", "none") and any(t.name == tool_choice for t in tools):
        return f"Now reply with a call of the function {tool_choice} only."
    return ""


def _add_system(messages: list[dict[str, Any]], text: str, *, first: bool) -> list[dict[str, Any]]:
    """Add ``text`` to the leading system message (after its text), or insert one."""
    if messages and messages[0]["role"] == "system":
        head = dict(messages[0])
        head["content"] = f"{head['content']}\n\n{text}" if head["content"] else text
        return [head, *messages[1:]]
    return [{"role": "system", "content": text}, *messages]


def _merge_results(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Join consecutive result turns (and a user turn right after them) into one user turn."""
    out: list[dict[str, Any]] = []
    for message in messages:
        prev = out[-1] if out else None
        if prev is not None and prev.get("_result") and message["role"] == "user":
            text = message["content"]
            if message.get("_result"):
                text = text.removeprefix("Function results:\n")
            out[-1] = {**prev, "content": f"{prev['content']}\n{text}", "_result": message.get("_result")}
        else:
            out.append(message)
    return [{k: v for k, v in m.items() if k != "_result"} for m in out]


def fingerprint(text: str, calls: Sequence[ToolCall]) -> str:
    """A text identifying a reply by its content and calls, stored with its raw text so that a changed
    message (``copy(tool_calls=...)``) is rendered from its fields instead."""
    return json.dumps([text, [[c["name"], c["args"]] for c in calls]], sort_keys=True, ensure_ascii=False,
                      default=str)


def get_dialect(name: str, template: str | None = None) -> Dialect:
    """Return the :class:`Dialect` called ``name``.

    Args:
        name: one of :data:`DIALECTS`.
        template: the model's chat template; for ``"template"`` it decides the formats (``hermes``
            first when it mentions ``<tool_call>``).

    Raises:
        UserError: unknown name, or ``"template"`` for a model whose template takes no tools.
    """
    if name == "pythonic":
        return Dialect("pythonic", ("pythonic", "json"))
    if name == "json":
        return Dialect("json", ("json",))
    if name == "template":
        if not template or "tools" not in template:
            raise UserError("This model's chat template does not take tools: use dialect='pythonic' or 'json'.")
        return Dialect("template", ("hermes", "json") if "<tool_call>" in template else ("json",))
    raise UserError(f"Unknown dialect {name!r}: use one of {', '.join(DIALECTS)}.")


def parse_reply(text: str, tool_names: Sequence[str], fmt: str) -> ParsedReply:
    """Read the calls of a reply written in call format ``fmt`` (with :func:`toolwire.parsing.parse_tool_calls`)."""
    return parse_tool_calls(text, tool_names, dialect=_PARSER_DIALECT.get(fmt))


# -- recognising the start of a call while generating ----------------------------------------------------

_WS = " \t\r\n"


def _patterns(fmt: str, names: Sequence[str], at_start: bool) -> list[list[tuple[str, tuple[str, ...]]]]:
    """Opener patterns of ``fmt``: lists of atoms ``(kind, strings)`` with kind ``ws`` (any whitespace),
    ``lit`` (one of the strings) or ``opt`` (one of the strings, or nothing)."""
    tools = tuple(names)
    if fmt == "pythonic":
        out = [[("ws", ()), ("opt", ("```python\n", "```py\n", "```\n")), ("ws", ()), ("lit", ("[",)), ("ws", ()),
                ("opt", ("'", '"')), ("lit", tools), ("ws", ()), ("lit", ("(",))]]
        if at_start:
            out.append([("ws", ()), ("lit", tools), ("ws", ()), ("lit", ("(",))])
        return out
    if fmt == "json":
        return [[("ws", ()), ("opt", ("```json\n", "```\n")), ("ws", ()), ("opt", ("[",)), ("ws", ()),
                 ("lit", ("{",)), ("ws", ()), ("lit", ('"name"',)), ("ws", ()), ("lit", (":",)), ("ws", ()),
                 ("lit", tuple(f'"{n}"' for n in tools))]]
    if fmt == "hermes":
        return [[("ws", ()), ("lit", ("<tool_call>",))]]
    return []


def _match(pattern: list[tuple[str, tuple[str, ...]]], text: str, i: int = 0, k: int = 0) -> str:
    """Partial match of ``pattern[k:]`` at ``text[i:]``: ``"yes"`` (the whole pattern matched), ``"maybe"``
    (the text ended inside it) or ``"no"``."""
    if k == len(pattern):
        return "yes"
    kind, options = pattern[k]
    if kind == "ws":
        while i < len(text) and text[i] in _WS:
            i += 1
        if i == len(text):
            return "maybe"
        return _match(pattern, text, i, k + 1)
    best = "no"
    for option in options:
        rest = text[i:i + len(option)]
        if rest == option:
            result = _match(pattern, text, i + len(option), k + 1)
        elif option.startswith(rest) and i + len(rest) == len(text):
            result = "maybe"
        else:
            continue
        if result == "yes":
            return "yes"
        best = "maybe"
    if kind == "opt":
        result = _match(pattern, text, i, k + 1)
        if result == "yes":
            return "yes"
        if result == "maybe":
            best = "maybe"
    return best


class OpenerScanner:
    """Watch a reply as it is generated and say where a tool call starts.

    Calls are recognised at the start of the reply or of a line, in any of ``formats``, and only for a
    bound tool name (so prose and code stay text).

    Args:
        formats: the call formats to look for, in priority order.
        names: the bound tool names.
    """

    def __init__(self, formats: Sequence[str], names: Sequence[str]) -> None:
        self.formats = tuple(formats)
        self.names = tuple(names)
        self._pending: list[int] = [0]  # line starts that may still begin a call
        self._seen = 0

    def feed(self, text: str) -> tuple[int, str] | None:
        """Look at the whole reply so far.

        Returns:
            ``(position, format)`` when a call starts at ``position`` (after the whitespace before it),
            else None.
        """
        for j in range(self._seen, len(text)):
            if text[j] == "\n":
                self._pending.append(j + 1)
        self._seen = len(text)
        keep = []
        for start in self._pending:
            for fmt in self.formats:
                for pattern in _patterns(fmt, self.names, start == 0):
                    result = _match(pattern, text, start)
                    if result == "yes":
                        pos = start
                        while pos < len(text) and text[pos] in _WS:
                            pos += 1
                        return pos, fmt
                    if result == "maybe" and start not in keep:
                        keep.append(start)
        self._pending = keep
        return None

    def safe_end(self, text: str) -> int:
        """How much of ``text`` may be shown already: up to the first line that may still start a call,
        without trailing whitespace."""
        end = min(self._pending) if self._pending else len(text)
        return len(text[:end].rstrip())
