"""The hints of the hosted providers' HTTP errors: what a :class:`~toolwire.errors.ProviderError` advises for its
status, read with the error's own code or type where the provider's API reference documents one, so that the advice
fits the error (review 263 #1) rather than the status alone:

* **Billing** (:data:`BILLING_CODES`: OpenAI's ``insufficient_quota``, Anthropic's ``billing_error``; any HTTP 402;
  and Anthropic's "credit balance is too low", which it sends as 400 ``invalid_request_error``): add credit; retrying
  will not help.
* **Location** (OpenAI's 403 ``unsupported_country_region_territory``, or a 400/403 whose message says the country,
  region or location is not supported): the API key is not the problem.
* **A precondition** (Gemini's 400 ``FAILED_PRECONDITION``, a ``google.rpc`` status name: the request is valid, but the
  project cannot use the API from where it is, as the free tier in a country it is not offered in): the location or
  the plan, not a field.
* Then by status: a context window too small (400/413/422), the key (401/403), the model name (404), a body too
  large (413), a rate limit (429), the provider's failure (5xx), a content filter (400 ``content_filter``), and a
  malformed request (400/422: "the message above says which field" when it does, :func:`names_field`; review 290 #1).

:func:`named_field` adds OpenAI's ``error.param`` (the request field an error is about; API reference, the error
object: ``message``, ``type``, ``param``, ``code``) to a message that does not name it already.

:mod:`toolwire.models._retry` re-exports the names it always gave (``api_key_hint``, ``NOT_FOUND_HINT``...).
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["BILLING_CODES", "NOT_FOUND_HINT", "SERVER_FAILED_HINT", "SPECIFIC_HINTS", "api_key_hint", "billing_code",
           "named_field", "names_field", "status_hint"]

# the hints' clauses that name a Python argument (``ToolwireError.api_advice``: the CLI has no such option)
_RETRY_ADVICE = ", or raise max_retries"
_TIMEOUT_ADVICE = ", or raise timeout / max_retries"

BILLING_CODES = frozenset({"insufficient_quota", "billing_error"})
"""Error codes and types that waiting cannot fix: OpenAI's ``insufficient_quota`` (a 429: "You exceeded your current
quota, please check your plan and billing details"; OpenAI's "Error codes" guide) and Anthropic's ``billing_error``
(a 402: "There's an issue with your billing or payment information"; Anthropic's "Errors")."""

_LOCATION_CODES = frozenset({"unsupported_country_region_territory"})
"""Codes of a request refused for where it comes from: OpenAI's 403 "Country, region, or territory not supported"."""

_PRECONDITION_CODES = frozenset({"failed_precondition"})
"""Gemini's ``google.rpc`` status of a valid request the project cannot make: ``FAILED_PRECONDITION`` (Gemini API
"Troubleshooting": "Gemini API free tier is not available in your country. Please enable billing on your project in
Google AI Studio"; also "User location is not supported for the API use")."""

_BILLING_TEXT = re.compile(r"\bcredit balance\b|\binsufficient (?:credits?|funds|balance)\b", re.IGNORECASE)
"""How a billing refusal reads when its type is a general one: Anthropic's 400 ``invalid_request_error`` "Your credit
balance is too low to access the Anthropic API" (many public reports), a gateway's "Insufficient credits"."""

_LOCATION_TEXT = re.compile(r"\b(?:country|countries|region|territory|location)\b[^.]{0,40}?\bnot (?:supported|"
                            r"available)\b", re.IGNORECASE)
"""How a refusal for the caller's location reads without a code (a gateway that passes only the message on)."""

_BILLING_HINT = ("The account has run out of credit or reached its spending limit: add credit or raise the limit in "
                 "the provider's billing settings; retrying will not help.")
_LOCATION_HINT = ("The provider does not serve the country or region this request comes from (the API key is not the "
                  "problem): call it from a location it supports; retrying will not help.")
_PRECONDITION_HINT = ("The API cannot be used from this location or on this plan (FAILED_PRECONDITION, not a field of "
                      "the request): the Gemini API free tier is not offered in every country, so call it from a "
                      "supported location or enable billing on the project in Google AI Studio; retrying will not "
                      "help.")

SPECIFIC_HINTS = frozenset({_BILLING_HINT, _LOCATION_HINT, _PRECONDITION_HINT})
"""The hints that say the error is about the account or its location, which a server-specific hint (such as an
OpenAI-compatible server's "pass this server's own key") must not replace."""


def api_key_hint(key_env: str = "") -> str:
    """The hint of an error that a bad API key caused: check the key (the environment variables ``key_env`` names,
    e.g. ``"OPENAI_API_KEY"``) and its permissions."""
    return f"Check the API key{f' ({key_env})' if key_env else ''} and its permissions."


def billing_code(code: Any) -> bool:
    """Whether ``code`` (an error body's code or type, any case) is one of :data:`BILLING_CODES`."""
    return isinstance(code, str) and code.strip().lower() in BILLING_CODES


_CONTEXT_FULL = re.compile(
    r"context_length_exceeded|context[ _](?:length|window|size)|prompt is too long|input token count"
    r"|exceeds? the maximum number of tokens|too many (?:input )?tokens"
    r"|`?inputs`? tokens \+ `?max_new_tokens`? must be|`?inputs`? must have less than \d+ tokens", re.IGNORECASE)
"""How providers say a request is longer than the model's context (OpenAI's and vLLM's ``context_length_exceeded``,
"maximum context length"; Anthropic's "prompt is too long"; Gemini's "The input token count ... exceeds the maximum
number of tokens allowed"; llama.cpp's "exceeds the available context size"; TGI's HTTP 422 "`inputs` tokens +
`max_new_tokens` must be <= 4096" and "`inputs` must have less than 4096 tokens": review 214 #5)."""
_CONTEXT_HINT = ("The conversation is longer than the model's context window: shorten it (fewer or shorter messages "
                 "and tool results), lower max_tokens, or use a model with a larger context window.")


# the usual hints of a 404 and a 5xx (a server of the user's own gets its own: toolwire.models._openai_errors)
NOT_FOUND_HINT = "Check the model name (and base_url)."
SERVER_FAILED_HINT = "The provider failed on its side: try again later."

_TOO_LARGE_HINT = ("The request is larger than the server takes: shorten the conversation, the tool results or "
                   "the images and files sent, or raise the server's (or proxy's) body-size limit.")

_FILTER_CODES = frozenset({"content_filter", "content_policy_violation"})
"""Error codes of a prompt a content filter refused: Azure OpenAI's ``content_filter`` (status 400, its "Content
filtering" guide) and OpenAI's ``content_policy_violation``."""

_FILTER_HINT = ("The provider's content filter refused the prompt, not its form: rephrase the request (the message "
                "above may say why), or ask the deployment's owner about its filter settings.")


_NAME = r"[A-Za-z_$][\w$-]*(?:\.[A-Za-z_$][\w$-]*|\.?\[[^\]\s]*\]|\.\d+)*"
"""A request field's name as messages write it: ``temperature``, ``reasoning.effort``, ``messages[1].content``,
``messages.[1].role``, ``contents.0.parts``."""
_PATH = r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$-]*|\.?\[[^\]\s]*\]|\.\d+)*(?:\.?\[[^\]\s]*\]|\.\d+)"
"""A field's path with an index in it (``tools[0].function.name``, ``messages.0.content``); a plain dotted name
(``api.example.com``, ``gpt-4.1``) may be a host or a model, so it names a field only where a name is expected."""
_IDENT = rf"(?:[A-Za-z$]\w*_\w*|[a-z]+[A-Z]\w*|{_PATH}|[A-Za-z_$]\w*(?:\.[A-Za-z_$]\w*)+)"
"""A name that can only be an identifier, not a word: ``max_tokens``, ``functionCall``, ``ChatRequest.messages``."""

_FIELD_TEXT = re.compile(
    r"\(field: "  # named_field's (field: reasoning.effort)
    rf"|(?i:\b(?:param(?:eter)?|field|argument|property|key|name|attribute)s?\b(?:\s+supplied)?"
    rf"(?:\s*:\s*(?:['\"`]{_NAME}['\"`]|{_NAME})"  # Unknown parameter: 'x', argument supplied: foo
    rf"|\s+(?:['\"`]{_NAME}['\"`]|(?-i:{_IDENT}))))"  # Unknown name "x", struct field ChatRequest.messages
    rf"|(?i:\b(?:invalid|for|at|in|each)\s+(?:(?:type|value)\s+for\s+)?['\"`]{_NAME}['\"`])"  # Invalid 'x.y'
    rf"|^['\"`]{_NAME}['\"`]"  # 'messages' must contain the word 'json'
    rf"|`{_NAME}`"  # Anthropic's `max_tokens` must be greater than `thinking.budget_tokens`
    rf"|\b{_PATH}"  # tools[0].function_declarations[0]..., messages.0.content
    rf"|(?:^|\s)[A-Za-z_][\w-]*(?:\.[\w-]+)+\s*:"  # body.parallel_tool_calls: (a location)
    r"|(?:^|\s\*\s+)(?!(?:error|warning|note|invalid|bad)\b)[a-z_][a-z0-9_]*\s*:\s"  # messages: too long
    r"|(?i:\btool[ _]call[ _]ids?\b)")  # mistral_common's "Tool call id was ... but must be..."
"""How an error message names the request field it is about: a quoted name where one is expected (OpenAI's "Unknown
parameter: 'x'", "Invalid 'messages[1].content'", "Invalid type for 'temperature'"; Gemini's "Unknown name \"x\" at
'contents'"), an unquoted one after "parameter", "argument" or "field" ("Unrecognized request argument supplied: foo",
Go's "struct field ChatRequest.messages"), a backquoted one (Anthropic's `` `max_tokens` ``), a path with an index
(``tools[0].function.name``), a location before a colon (Anthropic's and FastAPI's ``messages.0.content: Field
required``, ``messages: ...``, Gemini's ``* contents: ...``), :func:`named_field`'s ``(field: x)`` and the "tool call
id". The bare words argument, parameter, field, id or key name none (Gemini's "Request contains an invalid
argument.", "Missing required parameter.", "Invalid request id": review 302 #2), nor does OpenAI's "Invalid value:
'xhigh'. Supported values are...", which names only a value."""

_FIELD_HINT = "The provider rejected the request; the message above says which field."
_REQUEST_HINT = ("The provider rejected the request: check the options, tools and messages sent against the message "
                 "above.")


def names_field(message: str) -> bool:
    """Whether an error ``message`` names the request field it is about (:data:`_FIELD_TEXT`)."""
    return _FIELD_TEXT.search(message) is not None


_NO_FIELD = frozenset({"none", "null"})
"""A ``param`` that names no field: Python's ``None`` and JSON's ``null`` written as text (LiteLLM's ``ProxyException``
sends ``"param": "None"``)."""


def named_field(message: str, param: Any) -> str:
    """``message`` with `` (field: <param>)`` after it when ``param`` (OpenAI's ``error.param``: ``"reasoning.effort"``,
    ``"messages[1].content"``) is text the message does not hold already; else ``message`` unchanged (``param``
    ``None``, as other providers and many errors give it, or the text ``"None"``, ``"null"`` or ``""``, as LiteLLM's
    proxy writes a missing one: review 310 #1). The field is one line of at most 200 characters."""
    if not isinstance(param, str) or not (field := " ".join(param.split())[:200]) or field in message \
            or field.lower() in _NO_FIELD:
        return message
    return f"{message.rstrip()} (field: {field})"


def _account_hint(status: int, message: str, code: str) -> str | None:
    """The hint of an error about the account or where the request comes from, not the request: by its code or type
    (billing, location, Gemini's ``FAILED_PRECONDITION``), a 402, or, for a 400/403 with no such code, its message
    (Anthropic's "credit balance is too low", a location "not supported"); None for any other error."""
    if code in BILLING_CODES or status == 402:
        return _BILLING_HINT
    if code in _LOCATION_CODES:
        return _LOCATION_HINT
    if code in _PRECONDITION_CODES and status == 400:
        return _PRECONDITION_HINT
    if status in (400, 403) and _BILLING_TEXT.search(message):
        return _BILLING_HINT
    if status in (400, 403) and _LOCATION_TEXT.search(message):
        return _LOCATION_HINT
    return None


def status_hint(status: int, key_env: str, message: str = "", code: Any = None) -> str | None:
    """The hint of an HTTP error status, fitted to the error.

    Args:
        status: the HTTP status (or the one an error event stands for).
        key_env: the API key's environment variables, named in a key's hint (``"OPENAI_API_KEY"``).
        message: the server's message.
        code: the error body's code or type as the provider's reference documents it (OpenAI's ``code``,
            Anthropic's ``error.type``, Gemini's ``google.rpc`` status name such as ``"FAILED_PRECONDITION"``), or
            None.

    Returns:
        One sentence that says what to do, or None for a status that has no advice.
    """
    kind = code.strip().lower() if isinstance(code, str) else ""
    if status in (400, 413, 422) and _CONTEXT_FULL.search(f"{kind} {message}"):
        return _CONTEXT_HINT
    if (status < 500 and status != 429) or kind in BILLING_CODES:
        found = _account_hint(status, message, kind)
        if found is not None:
            return found
    if status in (401, 403):
        return api_key_hint(key_env)
    if status == 404:
        return NOT_FOUND_HINT
    if status == 413:  # a body-size limit (Anthropic's request_too_large, nginx or a proxy): review 170 #10
        return _TOO_LARGE_HINT
    if status == 429:
        return f"You hit a rate limit or quota: wait, send fewer requests at once{_RETRY_ADVICE}."
    if status >= 500:
        return SERVER_FAILED_HINT
    if status == 400 and kind in _FILTER_CODES:
        return _FILTER_HINT
    if status in (400, 422):
        return _FIELD_HINT if names_field(message) else _REQUEST_HINT
    return None
