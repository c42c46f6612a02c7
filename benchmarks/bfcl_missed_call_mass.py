"""Where greedy decoding wrote text, how likely was a call? The analysis behind not making "missed" calls.

For every one-tool item (simple, parallel, irrelevance) whose reply in the stored pythonic whole runs made
no call, this renders the prompt as ChatLlamaCpp does, evaluates it and takes the probability of opening a
call to the bound tool at the reply's first token: a merged token such as ``[get`` (its probability), plus
``[`` times the mass after a forced ``[`` on tokens that start the tool's name. Prints one JSON line per item;
``benchmarks/ACCURACY.md`` ("Twenty-first session") gives what it showed.

Usage: ``python benchmarks/bfcl_missed_call_mass.py ../shared/bfcl > missed.jsonl`` (about 3 s per item here).
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import numpy as np
from _bfcl_replay import load_for_replay, next_token_probs, prompt_tokens

from toolwire.models.base import to_tool_spec

RUNS = Path(__file__).parent / "bfcl-runs"
BASELINE = ("q15-pythonic-full11", "q15-pythonic-full13", "q15-pythonic-unknown-73", "q15-pythonic-float-33")
CATEGORIES = ("simple_python", "parallel", "irrelevance")


def main(data: str) -> None:
    items: dict[str, dict] = {}
    for name in BASELINE:  # later runs replace the items they ran again
        with gzip.open(RUNS / f"{name}.json.gz", "rt") as f:
            items.update({i["id"]: i for i in json.load(f)["items"]})
    chosen = [i for i in items.values() if i["category"] in CATEGORIES and not i["actual"]]
    by_id, loaded, dialects = load_for_replay(data, CATEGORIES, None)
    llm = loaded.llm
    vocab = [loaded.piece(t).decode("utf-8", "replace") for t in range(llm.n_vocab())]
    bracket = loaded.tokenize("[", bos=False)
    for report in chosen:
        item = by_id[report["id"]]
        specs = [to_tool_spec(t) for t in item.toolset().tools]
        names = {n for s in specs for n in (s.name, s.name.replace(".", "_"))}
        openings = ["[" + n + "(" for n in names]
        llm.reset()
        llm.eval(prompt_tokens(loaded, dialects, item, specs))
        first = next_token_probs(llm)
        merged = sum(float(first[t]) for t in np.argsort(-first)[:50]
                     if len(s := vocab[int(t)].lstrip(" ")) >= 2 and any(o.startswith(s) for o in openings))
        p_bracket = float(first[bracket[0]])
        llm.eval(bracket)
        after = next_token_probs(llm)
        name_mass = sum(float(after[t]) for t in np.argsort(-after)[:200]
                        if (s := vocab[int(t)]) and any(n.startswith(s) for n in names))
        print(json.dumps({"id": report["id"], "category": report["category"], "valid": report["valid"],
                          "first": vocab[int(first.argmax())], "p_first": float(first.max()),
                          "p_bracket": p_bracket, "after_bracket": name_mass, "merged": merged,
                          "call": p_bracket * name_mass + merged}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
