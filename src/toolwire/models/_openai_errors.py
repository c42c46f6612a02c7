"""The hints :class:`~toolwire.models.openai.ChatOpenAI` gives the errors of OpenAI-compatible servers.

A server of the user's own (:func:`own_server`) answers a 404 when ``base_url`` misses its ``/v1`` and a 5xx when it
fails itself: those point at ``base_url`` and at the server's log (:func:`server_hint`), however the error came (an
HTTP status, an error event in a stream, an ``{"error"}`` body sent with HTTP 200; review 177 #6). A server started
without tool calling refuses every request with tools, and says which flag it needs: vLLM without
``--enable-auto-tool-choice --tool-call-parser``, llama.cpp's ``llama-server`` without ``--jinja``
(:func:`setup_hint`: not retried, since every try gets the same refusal; review 177 #1); Ollama refuses tools for a
model whose template has none ("... does not support tools": :data:`OLLAMA_HINT`, review 214 #5). llama-server
answers 503 "Loading model" while it loads its model, which passes (:func:`loading_hint`: retried, and said to be
temporary; review 214 #5). LM Studio answers a path
it does not serve with HTTP 200 and ``{"error": "Unexpected endpoint or method. (POST ...)"}``
(:func:`unknown_endpoint`: a ``base_url`` without ``/v1``; review 177 #3). A Mistral model served under a name toolwire
does not know as Mistral's refuses toolwire's own call ids ("Tool call id was ... but must be a-z, A-Z, 0-9, with a
length of 9"): :func:`call_id_hint` names ``mistral_call_ids=True`` (review 269 #5).
"""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import urlsplit

from toolwire._secrets import redact_url
from toolwire.errors import ProviderError
from toolwire.models._retry import _RETRY_ADVICE, NOT_FOUND_HINT, SERVER_FAILED_HINT
from toolwire.models._status_hints import SPECIFIC_HINTS

__all__ = ["MISTRAL_IDS_ADVICE", "MISTRAL_IDS_HINT", "SERVER_KEY_HINT", "adapt_error", "call_id_hint", "loading_hint",
           "own_server", "server_hint", "setup_hint", "unknown_endpoint"]

SERVER_KEY_HINT = ("Pass this server's own API key as ChatOpenAI(..., api_key=...) (the key it was started with, "
                   "such as vLLM's --api-key) and check its permissions.")
"""The hint of a 401/403 from an OpenAI-compatible server (docs/providers.md: "use ``api_key=`` for a server that
needs its own"); ``OPENAI_API_KEY`` would go to that host too."""

_VLLM_NO_PARSER = re.compile(r"--enable-auto-tool-choice|--tool-call-parser")
"""vLLM's refusal of tools without a parser (``serving_chat``: '"auto" tool choice requires
--enable-auto-tool-choice and --tool-call-parser to be set', HTTP 400)."""
_LLAMA_NO_JINJA = re.compile(r"requires\s+--jinja")
"""llama.cpp server's refusal of tools without its Jinja templates (``oaicompat_chat_params_parse``: "tools param
requires --jinja flag", "tool_choice param requires --jinja flag", HTTP 500)."""
_OLLAMA_NO_TOOLS = re.compile(r"\bdoes not support tools\b", re.IGNORECASE)
"""Ollama's refusal of tools for a model whose chat template has none (HTTP 400 "registry.ollama.ai/library/gemma:2b
does not support tools")."""
_LOADING = re.compile(r"^\s*Loading model\b", re.IGNORECASE)
"""llama-server's answer while it loads its model (HTTP 503, ``ERROR_TYPE_UNAVAILABLE``: "Loading model")."""
_UNKNOWN_ENDPOINT = re.compile(r"^\s*Unexpected endpoint or method\b", re.IGNORECASE)
"""LM Studio's answer to a path it does not serve (HTTP 200)."""

_MISTRAL_IDS = re.compile(r"\btool[ _]?call[ _]?ids?\b[\s\S]{0,400}?\blength (?:of )?9\b", re.IGNORECASE)
"""How a Mistral-family server refuses a call id that is not 9 letters and digits: mistral_common's "Tool call id was
call_4284f39e1 but must be a-z, A-Z, 0-9, with a length of 9." (Mistral's API, vLLM in Mistral mode: HTTP 400), and
Mistral's Hugging Face chat templates' "Tool call IDs should be alphanumeric strings with length 9!" (vLLM with the
template, llama-server ``--jinja``)."""
MISTRAL_IDS_ADVICE = "pass ChatOpenAI(..., mistral_call_ids=True), or "
"""The clause of :data:`MISTRAL_IDS_HINT` that names a Python argument (its ``api_advice``: the command line has no
such option, and says the rest)."""
MISTRAL_IDS_HINT = ("This server takes tool call ids only as 9 letters and digits (a Mistral model's chat format): "
                    f"{MISTRAL_IDS_ADVICE}give the model a name with mistral in it where the server does not check the "
                    "name (llama-server with one model), so that toolwire sends its ids in that form.")
"""The hint of :func:`call_id_hint`: the ids are toolwire's own, so the user cannot change them, only how they are
sent (docs/providers.md, "Tool call ids on Mistral-family servers")."""

VLLM_HINT = ("Start vLLM with tool calling on: --enable-auto-tool-choice --tool-call-parser NAME (the parser of the "
             "model's call format, such as hermes for Qwen or llama3_json for Llama 3.1), or call the model "
             "without tools.")
LLAMA_HINT = ("Start llama-server with --jinja (its chat template's tool calling), or call the model without "
              "tools.")
OLLAMA_HINT = ("This model does not support tool calling (its chat template has no tools): use a model with tool "
               "support (Ollama's library marks them \"tools\"), or call this one without tools.")


def setup_hint(message: str) -> str | None:
    """The hint of a server refusing tools because it was started without tool calling, from its ``message``:
    vLLM's "requires --enable-auto-tool-choice and --tool-call-parser" (:data:`VLLM_HINT`) or llama.cpp's
    "requires --jinja" (:data:`LLAMA_HINT`), or a model that cannot call tools: Ollama's "... does not support tools"
    (:data:`OLLAMA_HINT`); None for any other message."""
    if _VLLM_NO_PARSER.search(message):
        return VLLM_HINT
    if _LLAMA_NO_JINJA.search(message):
        return LLAMA_HINT
    if _OLLAMA_NO_TOOLS.search(message):
        return OLLAMA_HINT
    return None


def call_id_hint(message: str) -> str | None:
    """The hint of a Mistral-family server's refusal of a tool call id that is not 9 letters and digits, from its
    ``message`` (mistral_common's "Tool call id was ... but must be a-z, A-Z, 0-9, with a length of 9", a Mistral chat
    template's "Tool call IDs should be alphanumeric strings with length 9!"): :data:`MISTRAL_IDS_HINT`, which says to
    pass ``mistral_call_ids=True``; None for any other message."""
    return MISTRAL_IDS_HINT if _MISTRAL_IDS.search(message) else None


def loading_hint(status: int | None, message: str, base_url: str | None) -> str | None:
    """The hint of llama-server's 503 "Loading model", sent while it loads its model: that passes, so wait and try
    again (the hint ends with :data:`~toolwire.models._retry._RETRY_ADVICE`); None for any other error."""
    if status != 503 or not _LOADING.match(message):
        return None
    shown = redact_url(base_url) if base_url else "base_url"
    return (f"The server at {shown} is still loading its model, which passes: wait until it is ready and try "
            f"again{_RETRY_ADVICE}.")


def unknown_endpoint(message: str) -> bool:
    """Whether ``message`` is LM Studio's "Unexpected endpoint or method. (POST /chat/completions)", which it sends
    with HTTP 200 for a path it does not serve."""
    return bool(_UNKNOWN_ENDPOINT.match(message))


def server_hint(status: int, base_url: str | None) -> str | None:
    """The hint of an OpenAI-compatible server's 404 (the URL's path, most often: servers serve ``/v1``) or 5xx
    (the server itself failed, often the same way each time: its log says why); None for other statuses."""
    shown = redact_url(base_url) if base_url else "base_url"
    if status == 404:
        return (f"Check base_url ({shown}): OpenAI-compatible servers answer under /v1 (such as "
                "http://127.0.0.1:8000/v1, without /chat/completions), and some check the model name too.")
    if status >= 500:
        return (f"The server at {shown} failed while answering: its log says why (a request it cannot serve, such "
                "as a tool_choice its chat format does not support, fails the same way each time).")
    return None


_PRIVATE_SUFFIXES = (".localhost", ".local", ".internal", ".lan", ".home.arpa")
"""Host name endings of machines on a private network (RFC 6761, RFC 6762, RFC 8375; ``host.docker.internal``)."""


def own_server(base_url: str | None) -> bool:
    """Whether ``base_url`` is a server of the user's own, whose log the user can read: a host name with no dot (a
    docker-compose service such as ``vllm``, ``localhost``), one ending in :data:`_PRIVATE_SUFFIXES`, or an address
    that is not a global one (loopback, RFC 1918, link-local, carrier-grade NAT such as Tailscale's). Hosted APIs
    are not."""
    host = ((urlsplit(base_url).hostname or "") if base_url else "").rstrip(".")
    if not host:
        return False
    try:
        return not ipaddress.ip_address(host).is_global
    except ValueError:
        return "." not in host or host.endswith(_PRIVATE_SUFFIXES)


def adapt_error(error: ProviderError, base_url: str | None, *, compatible: bool) -> ProviderError:
    """``error`` (translated from any failure of a ChatOpenAI request) with the hint of the server it came from.

    Args:
        error: the ProviderError; changed in place.
        base_url: the model's ``base_url``.
        compatible: the server is an OpenAI-compatible one, not OpenAI (or Azure).

    Returns:
        ``error``: a refusal of tools by a server started without tool calling, or of a model that cannot call
        tools (:func:`setup_hint`), gets the hint naming the flag or the model and is not retryable; so does a
        Mistral-family server's refusal of a call id that is not 9 letters and digits, whatever its status
        (:func:`call_id_hint`, its ``api_advice`` :data:`MISTRAL_IDS_ADVICE`: the same ids get the same refusal); on a
        compatible
        server llama-server's 503 "Loading model" gets :func:`loading_hint`'s (retryable), a 401/403
        :data:`SERVER_KEY_HINT` (unless its hint says the account or location is the problem:
        :data:`~toolwire.models._status_hints.SPECIFIC_HINTS`), and on a server of the user's own a 404 or 5xx
        that kept its status's usual hint gets :func:`server_hint`'s.
    """
    message = str(error.args[0]) if error.args else ""
    hint = setup_hint(message)
    ids = call_id_hint(message) if hint is None else None
    loading = loading_hint(error.status, message, base_url) if compatible else None
    if hint is not None:
        error.hint, error.retryable, error.api_advice = hint, False, None
    elif ids is not None:  # (review 269 #5: "the message above says which field", of ids the user cannot change)
        error.hint, error.retryable, error.api_advice = ids, False, MISTRAL_IDS_ADVICE
    elif loading is not None:  # temporary: retried as any 5xx, the hint saying so
        error.hint, error.retryable, error.api_advice = loading, True, _RETRY_ADVICE
    elif compatible and error.status in (401, 403) and error.hint not in SPECIFIC_HINTS:  # (not a location's: 263 #1)
        error.hint = SERVER_KEY_HINT
    elif (compatible and error.status is not None and error.hint in (NOT_FOUND_HINT, SERVER_FAILED_HINT)
          and own_server(base_url)):
        error.hint = server_hint(error.status, base_url)
    return error
