"""Writing an assistant turn back to OpenAI: call ids cut to the APIs' limits (and mapped to the form Mistral-family
servers demand), a Responses API turn as its items, and a Responses request's call ids used once each
(:func:`unique_responses_ids`, which ``ChatOpenAI`` applies to every Responses request).

Pure functions, no I/O; :mod:`toolwire.models.lowering.openai` uses them in ``lower_messages`` and
``lower_responses_messages``. What the Responses API reader keeps on a reply (``provider_data["openai"]``: the
``reasoning`` items, the ``function_call`` items' ids, the order of the output) is described in
:mod:`~toolwire.models.lowering._openai_replies`; :func:`responses_turn_items` sends it back.
"""

from __future__ import annotations

import copy
import hashlib
import re
from typing import Any

from toolwire.messages import AIMessage, InvalidToolCall, ToolCall
from toolwire.models._template_conversation import TemplateRules, fit_to_rules
from toolwire.models.lowering._common import arguments_json, assistant_calls, sent_text
from toolwire.models.lowering._turn_ids import TurnIds

__all__ = ["CHAT_ID_LIMIT", "MISTRAL_ID_LENGTH", "RESPONSES_ID_LIMIT", "capped_call_id", "mistral_call_ids",
           "mistral_family", "responses_turn_items", "unique_responses_ids"]

CHAT_ID_LIMIT = 40
"""The longest tool call id Chat Completions takes: OpenAI answers 400 "Invalid 'messages[N].tool_calls[0].id':
string too long. Expected a string with maximum length 40" (review 57)."""

RESPONSES_ID_LIMIT = 64
"""The longest ``call_id`` the Responses API takes (the same check, with 64)."""


def capped_call_id(call_id: str, limit: int = CHAT_ID_LIMIT) -> str:
    """``call_id`` cut to at most ``limit`` characters for OpenAI, which refuses longer ids (ids from other
    providers or proxies run longer: ``call_0_<uuid>``, 43; ``fc_<48 hex>``, 51).

    Kept when it fits; else its first ``limit - 9`` characters, ``_`` and 8 hex digits of its SHA-256, so the
    same id always gives the same text (a call and its result still match) and two long ids that share a
    beginning stay apart.

    Args:
        call_id: a tool call's id (the call's ``id`` or a result's ``tool_call_id``).
        limit: the most characters the API takes: :data:`CHAT_ID_LIMIT` or :data:`RESPONSES_ID_LIMIT`.

    Returns:
        The id as sent.
    """
    if len(call_id) <= limit:
        return call_id
    digest = hashlib.sha256(call_id.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{call_id[:limit - 9]}_{digest}"


MISTRAL_ID_LENGTH = 9
"""The length of every tool call id a Mistral-family server takes, in letters and digits only: Mistral's API and
mistral_common (vLLM's Mistral mode) answer 400 "Tool call id was ... but must be a-z, A-Z, 0-9, with a length of 9",
and the Mistral v3 chat templates (llama.cpp's ``--jinja``) raise "Tool call IDs should be alphanumeric strings with
length 9!" (review 262 #1)."""

_MISTRAL_NAMES = re.compile(r"(?i)mistral|mixtral|codestral|ministral|devstral|magistral|pixtral|voxtral|mathstral")
_MISTRAL_RULES = TemplateRules(call_id_length=MISTRAL_ID_LENGTH)


def mistral_family(model: Any) -> bool:
    """Whether the model name ``model`` names a Mistral AI model (``mistral-small-latest``, ``open-mixtral-8x22b``,
    ``codestral-latest``, ``ministral-8b-latest``, ``devstral-small-2507``, ``magistral-medium-latest``,
    ``pixtral-12b``, ``voxtral-mini-latest``, ``mistralai/Mistral-7B-Instruct-v0.3``, a GGUF file name...), read
    case-insensitively anywhere in the name; False for a name that is not text. A fine-tune that keeps the base
    model's name counts too, which costs nothing: the ids it is sent fit every server."""
    return isinstance(model, str) and _MISTRAL_NAMES.search(model) is not None


def mistral_call_ids(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Lowered Chat Completions ``messages`` with each call id (an assistant turn's ``tool_calls[].id``, a tool
    result's ``tool_call_id``) as a Mistral-family server takes it: :data:`MISTRAL_ID_LENGTH` letters and digits.

    The mapping is the one ``ChatLlamaCpp`` uses for a chat template that demands a fixed id length
    (:func:`~toolwire.models._template_conversation.fit_to_rules`): an id that already fits is kept, any other becomes
    the start of its SHA-256 in hex, so the same conversation always gives the same bytes (a longer one begins with
    the shorter one's, and prompt caching still works) and a call and its results still match; two ids never share
    one (a repeat of the hash's text is hashed again), and an id used twice maps to one text everywhere.

    Args:
        messages: the ``messages`` of a Chat Completions body (:func:`~toolwire.models.lowering.openai.
            lower_messages`).

    Returns:
        A new list; a message with an id to map is a new dict, any other the one given. The given list and dicts are
        not changed (nor, so, toolwire's own messages).
    """
    return fit_to_rules(messages, _MISTRAL_RULES)


def unique_responses_ids(items: list[Any]) -> list[Any]:
    """Responses API ``input`` items with each ``function_call`` item's ``call_id`` used once, and each
    ``function_call_output`` item with the id of the call it answers (review 279 #1).

    The Responses API refuses a repeated ``call_id`` (400 "Duplicate function_call_output for call_id '...'. Each
    function_call must have exactly one matching function_call_output"), which a conversation holds when its replies
    came from a server that numbers each reply's calls ``call_0``... (llama.cpp, vLLM) or was written by hand. The
    renaming is the Anthropic lowering's (:class:`~toolwire.models.lowering._turn_ids.TurnIds`): the first use of an id
    keeps it, a repeat becomes ``<id>_2``... (cut again to :data:`RESPONSES_ID_LIMIT` when that makes it longer,
    :func:`capped_call_id`), and the outputs after a turn's calls take the ids of that turn's calls, in call order.
    A turn begins at its first ``function_call`` item after an output (the outputs of a turn follow its items:
    :func:`~toolwire.models.lowering._common.group_messages`). Ids already unique are kept, so a second pass changes
    nothing.

    Args:
        items: the ``input`` of a Responses API request, as
            :func:`~toolwire.models.lowering.openai.lower_responses_messages` gives it.

    Returns:
        A new list: an item whose ``call_id`` changes is a new dict, any other the one given. The given items (and so
        toolwire's own messages) are not changed.
    """
    ids = TurnIds()
    answered = True  # whether the items so far ended with outputs: the next call then begins a turn
    out: list[Any] = []
    for item in items:
        kind = item.get("type") if isinstance(item, dict) else None
        old = item.get("call_id") if kind in ("function_call", "function_call_output") else None
        if not isinstance(old, str):
            out.append(item)
            continue
        if kind == "function_call":
            if answered:
                ids.turn()
                answered = False
            new = ids.call(old)
        else:
            answered = True
            new = ids.answer(old)
        new = capped_call_id(new, RESPONSES_ID_LIMIT)
        out.append(item if new == old else {**item, "call_id": new})
    return out


def _function_call_item(call: ToolCall | InvalidToolCall, item_ids: Any, item_id: Any = None) -> dict[str, Any]:
    """A call as a Responses API ``function_call`` input item, with its item ``id`` (``item_id``, else the one
    ``item_ids`` keeps for its call id) when the reply gave one."""
    item: dict[str, Any] = {"type": "function_call", "call_id": capped_call_id(call["id"], RESPONSES_ID_LIMIT),
                            "name": call.get("name") or "unknown_tool",
                            "arguments": arguments_json(call)}
    if not isinstance(item_id, str) and isinstance(item_ids, dict):
        item_id = item_ids.get(call["id"])
    if isinstance(item_id, str) and item_id:
        item["id"] = item_id
    return item


def _item_text(item: dict[str, Any]) -> str:
    """The text a kept ``message`` item says (its ``output_text`` and ``refusal`` parts, as the reply's content was
    made of them)."""
    return "".join(str(part.get("text") or "") if part.get("type") == "output_text" else str(part.get("refusal") or "")
                   for part in item.get("content") or () if isinstance(part, dict))


def responses_turn_items(message: AIMessage) -> list[dict[str, Any]]:
    """An assistant turn as Responses API ``input`` items.

    A reply kept with the order of its output (``provider_data["openai"]["output"]``, from a reply with reasoning
    items) goes back in that order: each ``reasoning`` item unchanged, each ``message`` item with its ``id`` and
    ``status``, each ``function_call`` item with its ``id`` and the call as the AIMessage holds it, any other item
    (a built-in tool's call, ``web_search_call``...) unchanged; when the AIMessage's text is no longer what the kept
    message items say (an edited copy), the first of them says the new text and the others are left out. OpenAI
    requires
    it: a reasoning item must be followed by the item that followed it in the output, or the request is refused
    ("Item 'rs_...' of type 'reasoning' was provided without its required following item"; OpenAI reasoning guide,
    "Keeping reasoning items in context"). The turn's text, when no message item was kept, and calls the output did
    not list (calls read from the text, say) follow, as an assistant message and ``function_call`` items.

    Without that order (an AIMessage of another provider, or of an older toolwire): the kept ``reasoning`` items,
    then one ``function_call`` item per call (with its item id when ``function_call_ids`` keeps one), the text as an
    assistant message before them (one per message item of the reply, each with its ``phase`` and before the call it
    stood before, when ``provider_data["openai"]["messages"]`` keeps them: see :func:`_said`).

    Args:
        message: the assistant turn.

    Returns:
        The input items, in order (invalid calls included: a result answers each; their arguments as valid JSON,
        see :func:`~toolwire.models.lowering._calls.arguments_json`).
    """
    kept = (message.provider_data or {}).get("openai") or {}
    reasoning = kept.get("reasoning") if isinstance(kept.get("reasoning"), list) else []
    item_ids = kept.get("function_call_ids")
    output = kept.get("output")
    waiting = assistant_calls(message)
    items: list[dict[str, Any]] = []
    said = False
    if not isinstance(output, list):
        items.extend(copy.deepcopy(reasoning))
        output = []
    kept_text = "".join(_item_text(ref) for ref in output if isinstance(ref, dict) and ref.get("type") == "message")
    edited = kept_text != message.text  # model_copy(update={"content": ...}): the edit is sent (review 98 #3)
    for ref in output:
        kind = ref.get("type") if isinstance(ref, dict) else None
        if kind == "reasoning":
            index = ref.get("index")
            if isinstance(index, int) and 0 <= index < len(reasoning):
                items.append(copy.deepcopy(reasoning[index]))
        elif kind == "message" and not (edited and said):
            item = copy.deepcopy(ref)
            if edited:  # the first message item (its id keeps the reasoning item's pairing) says the edited text
                item["content"] = [{"type": "output_text", "text": sent_text(message), "annotations": []}]
            items.append(item)
            said = True
        elif kind == "function_call":
            call = next((c for c in waiting if c.get("id") == ref.get("call_id")), None)
            if call is not None:
                waiting.remove(call)
                items.append(_function_call_item(call, item_ids, ref.get("id")))
        elif isinstance(kind, str):  # a built-in tool's item (web_search_call...), unchanged
            items.append(copy.deepcopy(ref))
    pending = _said(text, kept.get("messages"), message.text) if (text := sent_text(message)) and not said else []
    for number, call in enumerate(waiting):  # each message before the call it stood before (review 219 #3)
        while pending and pending[0][0] <= number:
            items.append(pending.pop(0)[1])
        items.append(_function_call_item(call, item_ids))
    items.extend(item for _, item in pending)
    return items


def _said(text: str, kept: Any, said: str) -> list[tuple[int, dict[str, Any]]]:
    """The turn's ``text`` as assistant messages, each with its ``phase`` when the reply's message items had one
    (``kept``: ``provider_data["openai"]["messages"]``, ``[{"text", "phase", "after_calls"}]``; the API reference asks
    to send the phase back on every assistant message, review 216 #2): one message per kept item that says something,
    while the AIMessage still says what they said (``said``, its text); an edited text goes as one message, with the
    phase the kept items share (none when they differ).

    Returns:
        ``[(calls before it, message)]`` in order: each kept item's ``after_calls`` (the number of ``function_call``
        items before it in the reply, so it goes back between the calls where it stood: review 219 #3), else 0.
    """
    entries = [e for e in kept if isinstance(e, dict)] if isinstance(kept, list) else []
    phases = {e.get("phase") if isinstance(e.get("phase"), str) else None for e in entries}
    if not entries or phases == {None}:
        return [(0, {"role": "assistant", "content": text})]
    if "".join(str(e.get("text") or "") for e in entries) == said:
        out = []
        for e in entries:
            if isinstance(e.get("text"), str) and e["text"]:
                item = {"role": "assistant", "content": e["text"], "phase": e.get("phase")}
                after = e.get("after_calls")
                out.append((after if type(after) is int and after > 0 else 0,
                            {k: v for k, v in item.items() if v is not None}))
        return out
    phase = phases.pop() if len(phases) == 1 else None
    return [(0, {"role": "assistant", "content": text, **({"phase": phase} if phase else {})})]
