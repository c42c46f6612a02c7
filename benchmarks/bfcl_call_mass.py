"""How sure is the model of calling a bound tool? The analysis behind ``min_call_probability``.

For each item of a BFCL folder (use the sample of ``bfcl_sample.py``) this renders the prompt exactly as
ChatLlamaCpp does (tool_choice auto), evaluates it, forces a ``[`` and sums the probability of the next
tokens (top 200) whose text starts a bound tool's name. Prints one JSON line per item; compare the
figures with a report's replies (``benchmarks/ACCURACY.md``, "Irrelevance: what was tried").

Usage: ``python benchmarks/bfcl_call_mass.py /tmp/bs [model] > mass.jsonl`` (about 4 s per item here); with
``--all`` every item of the five categories in the folder (for a folder of chosen items, ``bfcl_sample.py --ids``).
"""

from __future__ import annotations

import json
import sys

import numpy as np
from _bfcl_replay import next_token_probs

from toolwire.evals.bfcl import load_category
from toolwire.models import init_chat_model
from toolwire.models.base import to_tool_spec

CATEGORIES = (("irrelevance", 60), ("simple_python", 50), ("multiple", 25))
EVERY = tuple((c, None) for c in ("irrelevance", "simple_python", "multiple", "parallel", "parallel_multiple"))



def main(data: str, model: str | None = None, every: bool = False) -> None:
    chat_model = init_chat_model(model)
    chat_model.prompt_cache = False
    loaded = chat_model.load()
    llm = loaded.llm
    bracket = loaded.tokenize("[", bos=False)
    for category, limit in EVERY if every else CATEGORIES:
        try:
            chosen = load_category(data, category)[:limit]
        except (OSError, ValueError):  # a folder of chosen items may lack a category
            continue
        for item in chosen:
            specs = [to_tool_spec(t) for t in item.toolset().tools]
            names = [s.name for s in specs]
            dialect = chat_model.dialect_for(loaded, len(specs))
            tokens = loaded.tokenize(loaded.render(dialect.render(item.messages(), specs, tool_choice="auto")))
            llm.reset()
            llm.eval(tokens)
            first = next_token_probs(llm)
            llm.eval(bracket)
            after = next_token_probs(llm)
            top = np.argsort(-after)[:200]
            mass = sum(float(after[i]) for i in top
                       if (piece := loaded.piece(int(i)).decode("utf-8", "replace"))
                       and any(n.startswith(piece) for n in names))
            print(json.dumps({"id": item.id, "category": category,
                              "first": loaded.piece(int(first.argmax())).decode("utf-8", "replace"),
                              "p_bracket": float(sum(first[i] for i in bracket)), "name_mass": mass}), flush=True)


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--all"]
    main(args[0], args[1] if len(args) > 1 else None, every="--all" in sys.argv)
