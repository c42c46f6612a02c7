"""How sure is the model of calling a bound tool? The analysis behind ``min_call_probability``.

For each item of a BFCL folder (use the sample of ``bfcl_sample.py``) this renders the prompt exactly as
ChatLlamaCpp does (tool_choice auto), evaluates it, forces a ``[`` and sums the probability of the next
tokens (top 200) whose text starts a bound tool's name. Prints one JSON line per item; compare the
figures with a report's replies (``benchmarks/ACCURACY.md``, "Irrelevance: what was tried").

Usage: ``python benchmarks/bfcl_call_mass.py /tmp/bs [model] > mass.jsonl`` (about 4 s per item here).
"""

from __future__ import annotations

import json
import sys

import llama_cpp
import numpy as np

from toolwire.evals.bfcl import load_category
from toolwire.models import init_chat_model
from toolwire.models.base import to_tool_spec

CATEGORIES = (("irrelevance", 60), ("simple_python", 50), ("multiple", 25))


def _softmax_last(llm: llama_cpp.Llama) -> np.ndarray:
    logits = np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(llm._ctx.ctx, -1), shape=(llm.n_vocab(),))
    p = np.exp(logits.astype(np.float64) - float(logits.max()))
    return p / p.sum()


def main(data: str, model: str | None = None) -> None:
    chat_model = init_chat_model(model)
    chat_model.prompt_cache = False
    loaded = chat_model.load()
    dialect = chat_model.dialect_for(loaded)
    llm = loaded.llm
    bracket = loaded.tokenize("[", bos=False)
    for category, limit in CATEGORIES:
        for item in load_category(data, category)[:limit]:
            specs = [to_tool_spec(t) for t in item.toolset().tools]
            names = [s.name for s in specs]
            tokens = loaded.tokenize(loaded.render(dialect.render(item.messages(), specs, tool_choice="auto")))
            llm.reset()
            llm.eval(tokens)
            first = _softmax_last(llm)
            llm.eval(bracket)
            after = _softmax_last(llm)
            top = np.argsort(-after)[:200]
            mass = sum(float(after[i]) for i in top
                       if (piece := loaded.piece(int(i)).decode("utf-8", "replace"))
                       and any(n.startswith(piece) for n in names))
            print(json.dumps({"id": item.id, "category": category,
                              "first": loaded.piece(int(first.argmax())).decode("utf-8", "replace"),
                              "p_bracket": float(sum(first[i] for i in bracket)), "name_mass": mass}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None)
