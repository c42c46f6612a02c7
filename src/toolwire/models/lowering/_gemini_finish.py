"""How a Gemini candidate ended: its finish reason read by meaning (review 136 #5).

From google-genai's ``FinishReason`` (the Gemini API reference's ``Candidate.finishReason``): a content block is a
refusal, a call Gemini wrote but could not make is an InvalidToolCall answered so the model calls again, the function
call a reply cut at ``MAX_TOKENS`` ended on is an InvalidToolCall never run (:func:`cut_call`), and a request or reply
that failed is a :class:`~toolwire.errors.ProviderError` that says what to do. ``STOP``, ``MAX_TOKENS`` and the reasons
the Agent knows by name are left as they are.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any

from toolwire.errors import ProviderError
from toolwire.messages import InvalidToolCall, invalid_tool_call, new_tool_call_id
from toolwire.models.lowering._calls import CUT_OFF

__all__ = ["cut_call", "ended", "malformed_call", "no_candidate"]

# Finish reasons (google-genai's ``FinishReason``) of a candidate the server stopped for its content, beyond those
# the Agent reads as refusals by their own name (SAFETY, BLOCKLIST, PROHIBITED_CONTENT, SPII, IMAGE_SAFETY,
# IMAGE_PROHIBITED_CONTENT): "may be a recitation from a source", "flagged for using an unsupported language",
# blocked by Model Armor or an escalation rule, and OTHER ("stopped ... for a reason not otherwise specified": never a
# finished answer, which is STOP). Their reply's finish_reason is "refusal", the server's in server_finish_reason.
_BLOCKED = frozenset({"RECITATION", "IMAGE_RECITATION", "LANGUAGE", "OTHER", "IMAGE_OTHER", "MODEL_ARMOR",
                      "ESCALATION"})
# Finish reasons of a call Gemini wrote but could not make: answered with this error, so the model calls again.
_CALL_ERRORS = {
    "MALFORMED_FUNCTION_CALL": "Gemini could not read this function call (finish reason MALFORMED_FUNCTION_CALL). "
                               "Call the tool again as a function call with a JSON object of arguments matching its "
                               "parameters, not as code.",
    "UNEXPECTED_TOOL_CALL": "Gemini refused this function call as invalid (finish reason UNEXPECTED_TOOL_CALL). Call "
                            "only the tools you were given, by their exact names, with a JSON object of arguments "
                            "matching their parameters.",
}
# Finish reasons of a request or reply that failed: (what happened, what to do, worth another try).
_FAILED = {
    "MISSING_THOUGHT_SIGNATURE": (
        "Gemini refused the conversation: a function call in it lacks the thought signature Gemini gave it (finish "
        "reason MISSING_THOUGHT_SIGNATURE).", "Send Gemini's earlier replies back as toolwire returned them (their "
        "provider_data holds the signatures), or give the model's full name (gemini-3-...) so toolwire marks the "
        "calls Gemini did not make.", False),
    "MALFORMED_RESPONSE": ("Gemini ended the reply as malformed (finish reason MALFORMED_RESPONSE).",
                           "Try the request again; if it fails every time, try another Gemini model.", True),
    "TOO_MANY_TOOL_CALLS": (
        "Gemini's own tools (google_search, code_execution...) made too many calls before the model answered (finish "
        "reason TOO_MANY_TOOL_CALLS).", "Ask for less in one request, or split the task into several.", False),
    "PUP_LIMITED_DISABLED": (
        "Gemini stopped because the API key's account is limited or disabled under Google's Prohibited Use Policy "
        "(finish reason PUP_LIMITED_DISABLED).", "Check the account's status in Google AI Studio.", False),
}


def _reason(outcome: dict[str, Any]) -> str:
    """The outcome's finish reason as Gemini names it (``""`` when there is none)."""
    reason = outcome.get("finish_reason")
    return str(getattr(reason, "value", reason) or "").upper()


def ended(outcome: dict[str, Any]) -> dict[str, Any]:
    """``outcome`` (the reply's ``finish_reason``, ``finish_message``, ``block_reason``...), its finish reason
    read by meaning when it says the candidate is not an answer.

    Returns:
        ``outcome``, or a copy whose ``finish_reason`` is ``"refusal"`` (the Agent's name for a reply declined or
        blocked, with ``stop_reason="refusal"``) and ``server_finish_reason`` Gemini's, for a reason of
        ``_BLOCKED``.

    Raises:
        ProviderError: the reason is one of ``_FAILED`` (retryable for ``MALFORMED_RESPONSE``).
    """
    reason = _reason(outcome)
    if reason in _FAILED:
        message, hint, retryable = _FAILED[reason]
        raise ProviderError(message, provider="google", retryable=retryable, hint=hint)
    if reason in _BLOCKED:
        return {**outcome, "finish_reason": "refusal", "server_finish_reason": outcome["finish_reason"]}
    return outcome


_CALLED = re.compile(r"(?:default_api\.)?([A-Za-z_][A-Za-z0-9_.:-]{0,63})\s*\(")


def malformed_call(outcome: dict[str, Any], tool_names: Collection[str] | None,
                    calls: int = 0) -> InvalidToolCall | None:
    """The call of a reply that ended with ``MALFORMED_FUNCTION_CALL`` (Gemini wrote a call it could not
    parse, e.g. Python code, and sends no ``function_call``) or ``UNEXPECTED_TOOL_CALL`` (a call "semantically
    invalid", such as one to a function not declared): an InvalidToolCall whose ``args`` is the ``finishMessage``
    and whose ``error`` asks for the call again, so the executor answers it and the model retries. Its name is the
    bound tool the message calls (``default_api.<name>(``), else ``None``. None when the reply brought ``calls``
    function calls of its own (they are answered as they are)."""
    reason = _reason(outcome)
    if reason not in _CALL_ERRORS or calls:
        return None
    message = outcome.get("finish_message")
    text = message if isinstance(message, str) else None
    name = None
    for match in _CALLED.finditer(text or ""):
        if match.group(1) not in ("print", "default_api") and (tool_names is None or match.group(1) in tool_names):
            name = match.group(1)
            break
    return invalid_tool_call(name, text, new_tool_call_id(), _CALL_ERRORS[reason])


def cut_call(outcome: dict[str, Any], parts: list[dict[str, Any]], name: str | None, arguments: str,
             call_id: str | None) -> InvalidToolCall | None:
    """The function call a reply ended on when Gemini stopped it at the output token limit (finish reason
    ``MAX_TOKENS``), as an InvalidToolCall with the cut-off error (:data:`~toolwire.models.lowering._calls.CUT_OFF`,
    Anthropic's for a ``tool_use`` cut at ``max_tokens``), so it is answered with that error and never run (review
    193 #2). Gemini closes a call's arguments itself, so a cut leaves a well-formed call whose values may be cut
    short, or no ``args`` at all (googleapis/js-genai#1619: partial function call args under ``MAX_TOKENS``): the
    finish reason is the only sign. The model writes its calls one after another, so only the last can be cut; a call
    that text followed was finished.

    Args:
        outcome: the reply's finish reason and the rest (see :func:`ended`).
        parts: the candidate's kept parts (snake_case), in order.
        name, arguments, call_id: the reply's last call: its name, its arguments as JSON text (kept as the invalid
            call's ``args``) and its id.

    Returns:
        The InvalidToolCall, or ``None`` when the reply did not stop at ``MAX_TOKENS`` or its last part with content
        is not a function call.
    """
    if _reason(outcome) != "MAX_TOKENS":
        return None
    for part in reversed(parts):
        if "function_call" in part:
            return invalid_tool_call(name or None, arguments, call_id, CUT_OFF)
        if "text" in part and not part.get("text"):  # (an empty part, a thought signature's)
            continue
        return None
    return None


_OWN_FIELDS = ("usage_metadata", "usageMetadata", "model_version", "modelVersion", "response_id", "responseId")
"""Fields of Gemini's own ``GenerateContentResponse`` (SDK and REST names) that a reply without candidates still has."""


def no_candidate(data: dict[str, Any]) -> ProviderError | None:
    """The error of a Gemini reply that came with no candidate and no ``promptFeedback`` (``candidates`` is optional:
    Gemini 2.5 models answer at times with only ``usageMetadata``, ``modelVersion`` and ``responseId``; review 179
    #5), or ``None`` when ``data`` has none of Gemini's own fields (it is not a Gemini reply at all, for the caller's
    "check base_url" error).

    Returns:
        A retryable :class:`~toolwire.errors.ProviderError` from ``google`` (a second try usually gets an answer), or
        ``None``.
    """
    if not any(data.get(key) is not None for key in _OWN_FIELDS):
        return None
    return ProviderError("Gemini sent a reply with no candidate: no text, no call and no reason for stopping.",
                         provider="google", retryable=True,
                         hint="Try the request again; if Gemini keeps answering with nothing, rephrase the prompt or "
                              "try another Gemini model.")
