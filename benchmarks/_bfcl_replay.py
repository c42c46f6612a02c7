"""Shared by the BFCL signal scripts: a finished report's reply written back as the pythonic dialect writes it,
and the item's prompt as ChatLlamaCpp renders it."""

from __future__ import annotations

from typing import Any

import numpy as np

from toolwire.models.base import ToolSpec, to_tool_spec
from toolwire.models.dialects import format_calls


def replayed_reply(item: Any, actual: list[dict[str, Any]]) -> tuple[list[ToolSpec], list[dict[str, Any]], str]:
    """``(the item's tool specs as sent, the report's calls as sent, those calls as pythonic text)``: the report
    keeps calls, not the reply's text; names are given back as they were sent (BFCL's dotted names renamed)."""
    toolset = item.toolset()
    specs = [to_tool_spec(t) for t in toolset.tools]
    sent = {original: name for name, original in toolset.names.items()}
    calls = [{"name": sent.get(c["name"], c["name"]), "args": c["args"], "id": f"c{i}", "type": "tool_call"}
             for i, c in enumerate(actual)]
    return specs, calls, format_calls(calls, "pythonic", specs)


def prompt_tokens(loaded: Any, dialects: Any, item: Any, specs: list[ToolSpec]) -> list[int]:
    """The item's prompt tokens, rendered as a reply with ``tool_choice`` auto is, in the dialect
    ``dialects(len(specs))`` (the model's default for that many tools)."""
    dialect = dialects(len(specs))
    return loaded.tokenize(loaded.render(dialect.render(list(item.messages()), specs, tool_choice="auto")))


def load_for_replay(data: str, categories: tuple[str, ...], model: str | None) -> tuple[dict[str, Any], Any, Any]:
    """``(BFCL items by id, the loaded model, its dialects)``: the model without its disk prompt cache;
    ``dialects(n)`` is the dialect it uses with ``n`` tools bound."""
    from toolwire.evals.bfcl import load_category
    from toolwire.models import init_chat_model

    by_id = {it.id: it for cat in categories for it in load_category(data, cat)}
    chat_model = init_chat_model(model)
    chat_model.prompt_cache = False
    loaded = chat_model.load()
    return by_id, loaded, lambda count: chat_model.dialect_for(loaded, count)



def next_token_probs(llm: Any) -> np.ndarray:
    """The model's probability of each vocabulary token after the tokens evaluated so far (a softmax of the last
    logits, in float64)."""
    import llama_cpp

    logits = np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(llm._ctx.ctx, -1), shape=(llm.n_vocab(),))
    p = np.exp(logits.astype(np.float64) - float(logits.max()))
    return np.asarray(p / p.sum())


def go_and_stop(p: np.ndarray, vocab: list[bytes], prefix: bytes, go: bytes, stop: bytes,
                cache: dict[bytes, tuple[np.ndarray, np.ndarray]]) -> tuple[float, float]:
    """``(probability of the tokens that start with prefix + go, of those that start with prefix + stop)``: the
    two choices at a token that begins with ``prefix`` (the bytes of the reply's token before the character
    that decides); ``cache`` keeps each prefix's token lists."""
    if prefix not in cache:
        cache[prefix] = tuple(  # type: ignore[assignment]
            np.array([t for t, b in enumerate(vocab) if b.startswith(prefix + c)], dtype=int) for c in (go, stop))
    going, stopping = cache[prefix]
    return float(p[going].sum()), float(p[stopping].sum())
