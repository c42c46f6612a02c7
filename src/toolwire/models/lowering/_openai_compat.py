"""What OpenAI-compatible servers put in a Chat Completions reply beyond OpenAI's own shapes.

Read the same way for a whole reply (``choices[].message``) and a streamed one (``choices[].delta``), so
merged stream chunks equal the reply ``invoke`` returns:

* **content as a list of parts** (Mistral, magistral models through its OpenAI-compatible API):
  ``[{"type": "thinking", "thinking": [{"type": "text", "text": "hm"}]}, {"type": "text", "text": "Hi"}]``.
  Text parts are the answer's text (joined with no separator, as the parts of one text); thinking parts
  are reasoning; any other part (``reference``, ``image_url``...) is kept as a content block.
* **reasoning text** beside ``content``: ``reasoning_content`` (DeepSeek-R1 on DeepSeek's API, older vLLM
  reasoning parsers, llama.cpp server, SGLang) or ``reasoning`` (vLLM since late 2025, Ollama, OpenRouter,
  Groq, LM Studio). The vLLM releases of the change send both with the same text, so one message or delta
  gives ``reasoning_content`` if it has any, else ``reasoning``. The reasoning of a reply is kept in
  ``AIMessage.provider_data["openai"]["reasoning_content"]`` (one string: the field's text, then the
  ``thinking`` parts'). The Chat Completions lowering sends it back only on a turn with tool calls whose
  server sent it in ``reasoning_content`` (DeepSeek's and Kimi's thinking mode answer 400 "Missing
  reasoning_content field" without it; see :func:`~toolwire.models.lowering.openai.lower_messages`).
* **several choices**: the choice with ``index`` 0 is the reply (a choice without ``index`` counts as 0);
  when none has index 0, the first one (in a stream: the first index that came, read at its end).
* **an error as a stream event**: older vLLM writes ``data: {"object": "error", "message": ...,
  "code": 400}`` into the stream (the ``openai`` SDK raises only for ``{"error": ...}`` events).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from toolwire.errors import ProviderError
from toolwire.models._retry import status_error
from toolwire.models.lowering._stream_errors import error_status

__all__ = ["REASONING_KEY", "ContentParts", "is_first", "pick_choice", "raise_stream_error", "read_content",
           "reasoning_of", "same_choice"]

REASONING_KEY = "reasoning_content"
"""The key of a reply's reasoning text in ``provider_data["openai"]``."""


class ContentParts:
    """The pieces of one ``content`` value: answer text, reasoning text, other blocks."""

    __slots__ = ("blocks", "reasoning", "text")

    def __init__(self, text: str = "", reasoning: str = "", blocks: list[dict[str, Any]] | None = None) -> None:
        self.text = text
        self.reasoning = reasoning
        self.blocks = blocks or []


def _texts(value: Any) -> str:
    """The text of a thinking part's ``thinking``: a string, or a list of ``{"type": "text", "text"}``."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(p if isinstance(p, str) else str(p.get("text") or "") for p in value
                       if isinstance(p, str) or (isinstance(p, dict) and p.get("type", "text") == "text"))
    return ""


def read_content(content: Any) -> ContentParts:
    """Split a message's or delta's ``content``: ``None``, a string, or a list of parts.

    Returns:
        ``ContentParts(text, reasoning, blocks)``: the text of the string or of the ``text`` parts, the
        text of the ``thinking`` parts, and every other part unchanged, in order.
    """
    if content is None:
        return ContentParts()
    if isinstance(content, str):
        return ContentParts(content)
    if not isinstance(content, list):
        return ContentParts(str(content))
    text: list[str] = []
    reasoning: list[str] = []
    blocks: list[dict[str, Any]] = []
    for part in content:
        if isinstance(part, str):
            text.append(part)
        elif not isinstance(part, dict):
            continue
        elif part.get("type") == "text":
            text.append(str(part.get("text") or ""))
        elif part.get("type") == "thinking":
            reasoning.append(_texts(part.get("thinking")))
        else:
            blocks.append(part)
    return ContentParts("".join(text), "".join(reasoning), blocks)


def reasoning_of(message: dict[str, Any]) -> str:
    """The reasoning text a server put beside ``content`` in a message or delta (``""`` when none)."""
    for key in ("reasoning_content", "reasoning"):
        value = message.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def _index(choice: dict[str, Any]) -> Any:
    index = choice.get("index")
    return 0 if index is None else index


def pick_choice(choices: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """The reply's choice: the one with ``index`` 0, else the first, else ``{}``."""
    listed = [c for c in choices if isinstance(c, dict)]
    return next((c for c in listed if is_first(c)), listed[0] if listed else {})


def is_first(choice: dict[str, Any]) -> bool:
    """Whether a choice has ``index`` 0 (or none)."""
    return _index(choice) == 0


def same_choice(choice: dict[str, Any], other: dict[str, Any]) -> bool:
    """Whether two streamed choices have the same ``index``."""
    return bool(_index(choice) == _index(other))


def raise_stream_error(data: dict[str, Any]) -> None:
    """Raise the ProviderError of an error event in a stream (``{"object": "error", "message", "code"}``).

    Raises:
        ProviderError: ``data`` is such an event: with the HTTP status its ``code`` or ``type`` stands for
            (:func:`~toolwire.models.lowering._stream_errors.error_status`; retryable for a server error, as
            :func:`~toolwire.models._retry.status_error` says), else a server failure, retryable, that says
            to try the request again, like any stream that broke off (tried again only while no content was
            handed out, see :func:`~toolwire.models._retry.retry_stream`).
    """
    if data.get("object") != "error":
        return
    message = data.get("message")
    status = error_status(data.get("code"), data.get("type"))  # (a type too: "BadRequestError", review 136 #10)
    text = message if isinstance(message, str) and message else "The server reported an error in the stream."
    text = f"The server sent an error in the stream: {text}"
    if status is not None:
        raise status_error("openai", status, text)
    raise ProviderError(text, provider="openai", retryable=True, hint="Try the request again.")
