"""The conversation as the local model's dialects (:mod:`toolwire.models.dialects`) write it: results in call order,
and, for the ``template`` dialect, what the GGUF's own chat template checks or leaves out.

* Results go back in call order, one per call, exactly as the hosted providers get them
  (:func:`ordered_messages`, through :func:`~toolwire.models.lowering._common.group_messages`, case E3), in every
  dialect: templates such as Qwen2.5's write each result as a bare ``<tool_response>``, so the model pairs results
  with calls by place. Of several results for one call (a retried tool) the last is sent; a call the conversation
  went on past without a result gets an error result (``... was not run: the conversation went on without its
  result``); a result that answers no call becomes, for ``template``, a user turn saying what it is (``pythonic``
  and ``json`` write it as a result of ``name(...)``, as they write every result: in a user turn).
* Every call of a turn, the invalid ones too (at their place in the reply), is a ``tool_calls`` entry
  (:func:`template_calls`), so that each result has its call: an invalid call's ``arguments`` are the text the
  model wrote (its error result says what was wrong with it).
* Some templates refuse conversations they did not write themselves, with a ``raise_exception``; read from the
  template text (:func:`template_rules`), in general terms rather than by model name:

  - call ids of a fixed length (Mistral v0.3's and Mistral Nemo's "Tool call IDs should be alphanumeric strings
    with length 9!"): each id is mapped, alike in its call and in its results, to that many letters and digits
    (an id that already fits is kept; the same id always gives the same text, so each prompt still begins
    with the previous one);
  - one call per assistant turn (Llama 3.1's and 3.2's "This model only supports single tool-calls at once!"): a
    turn of several calls is written as consecutive single-call turns, each followed by its result; the reply's
    text goes with the first. Replies may still hold several calls (parallel tool calls stay as requested).

  A check the template still fails is the template's own :class:`~toolwire.errors.UserError`
  (:meth:`toolwire.models.chat_template.ChatTemplate.render`).
* Some templates show only a leading system message and skip any later one without a word (Mistral v0.3's: its
  ``messages[0]`` is the system prompt, other ``system`` turns render as nothing). Found by rendering a short
  conversation with the template (:func:`template_rules`); such a template gets each later system message added to
  the leading one, with a warning on the ``toolwire.models`` log, as the Anthropic lowering does with a system message
  mid-conversation, so no instruction is lost.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import logging
import re
from collections.abc import Sequence
from typing import Any

from toolwire.messages import AIMessage, BaseMessage, InvalidToolCall, ToolCall, ToolMessage
from toolwire.models._text_content import json_form
from toolwire.models.lowering._common import assistant_calls, group_messages

__all__ = ["NO_RULES", "TemplateRules", "fit_to_rules", "ordered_messages", "template_calls", "template_rules"]

# ``tool_call.id|length != 9``, ``message.tool_call_id | length != 9``, ``(tool_call['id'] | length) != 9``
_ID_LENGTH = re.compile(r"""(?:\bid|tool_call_id|\[\s*['"]id['"]\s*\])\s*\|\s*length\s*\)?\s*!=\s*(\d+)""")
_ID_LENGTH_SAID = re.compile(r"(?i)ids? should be [a-z ]*strings? (?:with|of) length (\d+)")
# ``not message.tool_calls|length == 1``, ``message['tool_calls'] | length > 1``, ``tool_calls|length != 1``
_ONE_CALL = re.compile(r"""tool_calls['"]?\s*\]?\s*\|\s*length\s*(?:!=\s*1|>\s*1|==\s*1)\b""")
_MAX_ID_LENGTH = 64  # the letters and digits a sha256 gives in hex
# a short conversation rendered with the template to see whether it shows a system message that is not the first
_FIRST_SYSTEM, _LATER_SYSTEM = "toolwire-probe-first-system", "toolwire-probe-later-system"
_SYSTEM_PROBE = ({"role": "system", "content": _FIRST_SYSTEM}, {"role": "user", "content": "Hello."},
                 {"role": "assistant", "content": "Hello."}, {"role": "system", "content": _LATER_SYSTEM},
                 {"role": "user", "content": "Go on."})

log = logging.getLogger("toolwire.models")


@dataclasses.dataclass(frozen=True, slots=True)
class TemplateRules:
    """What a chat template checks in the conversation it is given.

    Attributes:
        call_id_length: the length every call id must have (0: any).
        one_call_per_turn: the template refuses an assistant turn of more than one call.
        later_system_dropped: the template shows a leading system message but skips any later one (Mistral
            v0.3's): :func:`fit_to_rules` adds later system messages to the leading one.
    """

    call_id_length: int = 0
    one_call_per_turn: bool = False
    later_system_dropped: bool = False


NO_RULES = TemplateRules()
"""The rules of a template that checks nothing (and of the dialects that use no template's messages)."""


def template_rules(template: str | None) -> TemplateRules:
    """Read from a chat template's text the checks it makes with ``raise_exception``, and whether it shows a
    system message that is not the first.

    Args:
        template: the Jinja source (None: no rules).

    Returns:
        The :class:`TemplateRules`: a fixed id length where the template compares an id's ``length`` with a
        number (or says ids should be strings of some length), one call per turn where it raises when a
        message's ``tool_calls`` are not exactly one, and ``later_system_dropped`` where a short conversation
        rendered with it shows its leading system message but not a later one (a template that cannot render that
        conversation, or shows neither, is taken to show both).
    """
    if not template:
        return NO_RULES
    dropped = _drops_later_system(template)
    if "raise_exception" not in template:
        return TemplateRules(later_system_dropped=dropped)
    length = 0
    found = _ID_LENGTH.search(template) or _ID_LENGTH_SAID.search(template)
    if found is not None and _raises_after(template, found.end()):
        length = int(found.group(1))
    one = any(_raises_after(template, m.end()) for m in _ONE_CALL.finditer(template))
    return TemplateRules(length if 0 < length <= _MAX_ID_LENGTH else 0, one, dropped)


@functools.lru_cache(maxsize=8)
def _drops_later_system(template: str) -> bool:
    """Whether ``template`` renders :data:`_SYSTEM_PROBE` with its first system message and without its later one
    (rendered once per template text; a template that cannot render it is taken to show both)."""
    from toolwire.models.chat_template import ChatTemplate, Rendered

    try:
        prompt = ChatTemplate(template).render(Rendered([dict(m) for m in _SYSTEM_PROBE], None))
    except Exception:  # (a template refusing the probe: nothing is known, nothing is changed)
        return False
    return _FIRST_SYSTEM in prompt and _LATER_SYSTEM not in prompt


def _raises_after(template: str, at: int) -> bool:
    """Whether the ``{% if %}`` whose condition ends at ``at`` raises (before its ``endif`` or ``else``)."""
    rest = template[at:at + 400]
    end = re.search(r"\{%-?\s*(?:endif|else|elif)\b", rest)
    return "raise_exception" in (rest[:end.start()] if end else rest)


def ordered_messages(messages: Sequence[BaseMessage], *, keep_orphans: bool = False) -> list[BaseMessage]:
    """The conversation with each call's result right after its assistant turn, in call order, one per call
    (:func:`~toolwire.models.lowering._common.group_messages`, the hosted providers' rule; see the module's text).

    Args:
        messages: the conversation, oldest first.
        keep_orphans: keep a result that answers no earlier call as the ToolMessage it is, at its place (for the
            ``pythonic`` and ``json`` dialects, which write it as a result of ``name(...)``).

    Returns:
        A new list of messages (results grouped, of several results for one call the last, a stale call's error
        result added, an orphan result as a HumanMessage saying what it is unless ``keep_orphans``).
    """
    orphans = _orphans(messages) if keep_orphans else []
    given = {id(m) for m in messages}
    out: list[BaseMessage] = []
    for item in group_messages(messages):
        if isinstance(item, list):
            out.extend(item)
        elif orphans and id(item) not in given:  # (the note group_messages wrote for the next orphan result)
            out.append(orphans.pop(0))
        else:
            out.append(item)
    return out


def _orphans(messages: Sequence[BaseMessage]) -> list[ToolMessage]:
    """The results whose id no earlier call made, in order (those :func:`group_messages` writes as user notes)."""
    made: set[str] = set()
    found: list[ToolMessage] = []
    for message in messages:
        if isinstance(message, AIMessage):
            made.update(str(call.get("id")) for call in assistant_calls(message))
        elif isinstance(message, ToolMessage) and message.tool_call_id not in made:
            found.append(message)
    return found


def template_calls(message: AIMessage) -> list[dict[str, Any]]:
    """The ``tool_calls`` entries of an assistant turn, in the order the model made its calls.

    Args:
        message: the assistant turn.

    Returns:
        OpenAI-shaped entries ``{"id", "type": "function", "function": {"name", "arguments"}}``: a valid call's
        arguments as a JSON object, an invalid call's as the text the model wrote (``{}`` when it wrote none), its
        name ``"unknown_tool"`` when it has none.
    """
    return [{"id": call.get("id") or "", "type": "function",
             "function": {"name": call.get("name") or "unknown_tool", "arguments": _arguments(call)}}
            for call in assistant_calls(message)]


def _arguments(call: ToolCall | InvalidToolCall) -> Any:
    if call.get("type") == "invalid_tool_call":
        raw = call.get("args")
        return raw if isinstance(raw, str) and raw else {}
    return json_form(call.get("args"))


def fit_to_rules(messages: list[dict[str, Any]], rules: TemplateRules) -> list[dict[str, Any]]:
    """Write the template messages so that the template's checks pass (see the module's text).

    Args:
        messages: the template messages, each call's results right after its turn (:func:`ordered_messages`).
        rules: the template's :class:`TemplateRules`.

    Returns:
        A new list: with ``later_system_dropped``, each system message after the first message added to the
        leading system message (one is put first when there is none; logged); ids mapped to
        ``rules.call_id_length`` letters and digits; and, with ``one_call_per_turn``, each turn of several calls
        split into single-call turns, each followed by its results.
    """
    if rules.later_system_dropped:
        messages = _fold_later_system(messages)
    if rules.call_id_length:
        short = _ShortIds(rules.call_id_length)
        messages = [_with_ids(m, short) for m in messages]
    if not rules.one_call_per_turn:
        return messages
    out: list[dict[str, Any]] = []
    at = 0
    while at < len(messages):
        message = messages[at]
        at += 1
        calls = message.get("tool_calls") or []
        if message.get("role") != "assistant" or len(calls) < 2:
            out.append(message)
            continue
        results: list[dict[str, Any]] = []
        while at < len(messages) and messages[at].get("role") == "tool":
            results.append(messages[at])
            at += 1
        for n, call in enumerate(calls):
            out.append({**message, "content": message.get("content", "") if n == 0 else "", "tool_calls": [call]})
            mine = next((r for r in results if r.get("tool_call_id") == call["id"]), None)
            if mine is not None:
                results.remove(mine)
                out.append(mine)
        out.extend(results)  # (none after grouping: each result answers one of the turn's calls)
    return out


def _fold_later_system(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each system message but a leading one added to the leading one (see :func:`fit_to_rules`)."""
    later = {n for n, m in enumerate(messages) if n > 0 and m.get("role") == "system"}
    if not later:
        return messages
    texts = [messages[n].get("content") or "" for n in sorted(later)]
    rest = [m for n, m in enumerate(messages) if n not in later]
    if not any(texts):  # (empty system messages: nothing to keep)
        return rest
    log.warning("ChatLlamaCpp: a SystemMessage after the conversation started is added to the leading system "
                "message (this model's chat template shows no other system message), not at its place")
    if rest and rest[0].get("role") == "system":
        joined = "\n\n".join(filter(None, (rest[0].get("content") or "", *texts)))
        return [{**rest[0], "content": joined}, *rest[1:]]
    return [{"role": "system", "content": "\n\n".join(filter(None, texts))}, *rest]


def _with_ids(message: dict[str, Any], short: _ShortIds) -> dict[str, Any]:
    if message.get("tool_calls"):
        return {**message, "tool_calls": [{**c, "id": short(c["id"])} for c in message["tool_calls"]]}
    if message.get("role") == "tool" and "tool_call_id" in message:
        return {**message, "tool_call_id": short(message["tool_call_id"])}
    return message


class _ShortIds:
    """Call ids mapped to ``length`` letters and digits: an id that already fits is kept, any other becomes the
    start of its sha256 (the same id always gives the same text); two ids never share one."""

    def __init__(self, length: int) -> None:
        self.length = length
        self.given: dict[str, str] = {}
        self.used: set[str] = set()

    def __call__(self, call_id: Any) -> str:
        key = str(call_id)
        if key in self.given:
            return self.given[key]
        short = key if len(key) == self.length and key.isascii() and key.isalnum() else ""
        n = 0
        while (not short or short in self.used) and n < 1000:  # (a short length may run out of new texts)
            short = hashlib.sha256((f"{key}#{n}" if n else key).encode()).hexdigest()[:self.length]
            n += 1
        self.given[key] = short
        self.used.add(short)
        return short
