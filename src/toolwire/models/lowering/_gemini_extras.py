"""What a Gemini reply says beside its parts: token usage, the sources of a grounded answer, and logprobs.

From the Gemini API reference (``GenerateContentResponse``, ``Candidate``, ``UsageMetadata``):

* ``usageMetadata``: ``promptTokenCount``, ``toolUsePromptTokenCount`` (the prompt of a server tool's use, such as
  ``google_search``: input tokens, billed as input and counted in ``totalTokenCount``), ``candidatesTokenCount``,
  ``thoughtsTokenCount`` (also ``output_token_details["reasoning"]``), ``cachedContentTokenCount``,
  ``totalTokenCount`` (:func:`gemini_usage`).
* a candidate's ``groundingMetadata`` (``google_search``: ``groundingChunks`` with the source URIs,
  ``groundingSupports``, ``webSearchQueries``, ``searchEntryPoint.renderedContent``: the Search Suggestions Google
  requires an app that shows grounded results to show), ``urlContextMetadata`` (``url_context``) and
  ``citationMetadata``: kept in ``response_metadata`` under their snake_case names (``grounding_metadata``...), keys
  in snake_case whichever form the reply came in. They are never sent back (a ``Content`` has no such field).
* a candidate's ``avgLogprobs`` and ``logprobsResult`` (asked for with ``response_logprobs``): kept as
  ``response_metadata["logprobs"]`` = ``{"avg_logprobs"?, "logprobs_result"?: {"top_candidates", "chosen_candidates"}}``
  (LangChain's key). A stream's pieces are joined: the lists of ``logprobs_result`` in order, ``avg_logprobs`` the
  mean of the chunks' averages weighted by their chosen tokens (or the last one given, when a chunk gives no tokens).
"""

from __future__ import annotations

import re
from typing import Any

from toolwire.messages import Usage
from toolwire.models.lowering._common import usage

__all__ = ["SOURCE_KEYS", "ReplyExtras", "gemini_usage", "snake_keys"]

SOURCE_KEYS = ("grounding_metadata", "url_context_metadata", "citation_metadata")
"""The candidate's fields that name the sources of its answer, kept in ``response_metadata`` as they are."""

_CAMEL = re.compile(r"(?<=[a-z0-9])([A-Z])")


def _get(data: dict[str, Any], snake: str) -> Any:
    if snake in data:
        return data[snake]
    head, *rest = snake.split("_")
    return data.get(head + "".join(w.title() for w in rest))


def snake_keys(value: Any) -> Any:
    """``value`` with every dict key in snake_case (``renderedContent`` -> ``rendered_content``), recursively: the
    REST form of a reply read as the google-genai SDK's."""
    if isinstance(value, dict):
        return {_CAMEL.sub(r"_\1", k).lower() if isinstance(k, str) else k: snake_keys(v) for k, v in value.items()}
    if isinstance(value, list):
        return [snake_keys(v) for v in value]
    return value


def gemini_usage(raw: Any) -> Usage | None:
    """The :class:`~toolwire.messages.Usage` of a ``usageMetadata`` (REST or SDK form; ``None`` when absent).

    Input is the prompt's tokens plus the tool-use prompt's (``toolUsePromptTokenCount``, review 179 #4), output the
    candidates' plus the thoughts', so ``input_tokens + output_tokens`` is Gemini's ``totalTokenCount``; the thoughts'
    (``thoughtsTokenCount``, when more than 0) are also ``output_token_details["reasoning"]``, as OpenAI's reasoning
    tokens are and as langchain-google-genai maps them (review 298 #1).
    """
    if not isinstance(raw, dict):
        return None
    prompt, tool_use = _get(raw, "prompt_token_count"), _get(raw, "tool_use_prompt_token_count")
    given = prompt is not None or tool_use is not None
    thoughts = _get(raw, "thoughts_token_count")
    out = (_get(raw, "candidates_token_count") or 0) + (thoughts or 0)
    return usage((prompt or 0) + (tool_use or 0) if given else None, out, _get(raw, "total_token_count"),
                 _get(raw, "cached_content_token_count"), reasoning=thoughts)


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


class ReplyExtras:
    """Collects the sources and logprobs of a reply's first candidate, over one reply or a stream's chunks.

    :meth:`add` each chunk's candidate (a whole reply is one chunk); :meth:`metadata` gives the
    ``response_metadata`` entries (see the module docs), the same for a reply and for the stream of it.
    """

    def __init__(self) -> None:
        self.sources: dict[str, Any] = {}
        self.averages: list[tuple[float, int]] = []  # (avg_logprobs, chosen tokens) of each chunk that gave one
        self.result: dict[str, Any] = {}

    def add(self, candidate: dict[str, Any]) -> None:
        """Read one candidate (REST or SDK form): its source fields (a later chunk's keys update an earlier one's),
        its ``avgLogprobs`` and its ``logprobsResult`` (lists joined in order)."""
        for key in SOURCE_KEYS:
            found = snake_keys(_get(candidate, key))
            if isinstance(found, dict) and found:
                kept = self.sources.get(key)
                self.sources[key] = {**kept, **found} if isinstance(kept, dict) else found
        result = snake_keys(_get(candidate, "logprobs_result"))
        chosen = 0
        if isinstance(result, dict):
            for key, value in result.items():
                if isinstance(value, list):
                    self.result[key] = [*(self.result.get(key) or []), *value]
                else:
                    self.result[key] = value
            chosen = len(result.get("chosen_candidates") or [])
        average = _get(candidate, "avg_logprobs")
        if _number(average):
            self.averages.append((average, chosen))

    def _average(self) -> float | None:
        if not self.averages:
            return None
        if len(self.averages) == 1 or any(n == 0 for _, n in self.averages):
            return self.averages[-1][0]
        return sum(a * n for a, n in self.averages) / sum(n for _, n in self.averages)

    def metadata(self) -> dict[str, Any]:
        """The ``response_metadata`` entries: ``grounding_metadata``, ``url_context_metadata``, ``citation_metadata``
        and ``logprobs``, each only when the reply had it."""
        out: dict[str, Any] = dict(self.sources)
        logprobs: dict[str, Any] = {}
        if (average := self._average()) is not None:
            logprobs["avg_logprobs"] = average
        if self.result:
            logprobs["logprobs_result"] = self.result
        if logprobs:
            out["logprobs"] = logprobs
        return out
