"""Do the model's own token probabilities tell made-up tool calls from right ones? Signal analysis only.

For calls from a finished report (irrelevance items where a call was made although none fits, and right
calls from the other categories), the conversation is rendered as ChatLlamaCpp renders it and the reply
the run produced (its calls, written as the pythonic dialect writes them) is fed back token by token; for
every token the model's (unconstrained) probability is read. Per value it prints the smallest probability
among its tokens and its joint probability (the product over its tokens), so the two groups can be compared
before building a decline rule on either figure. Value spans are the implementation's own
(``toolwire.models._call_checks``); before the seventh session's review the script used byte offsets as
character offsets, which shifted the spans of values after a non-ASCII character.

Usage: ``python benchmarks/bfcl_value_confidence.py REPORT.json.gz ../shared/bfcl [--every K] > out.jsonl``
(irrelevance failures all, right items of the other categories every K-th; about 5 s per item here).
"""

from __future__ import annotations

import argparse
import codecs
import gzip
import json

import numpy as np
from _bfcl_replay import load_for_replay, next_token_probs, prompt_tokens, replayed_reply

from toolwire.models._call_checks import _value_nodes
from toolwire.models.grammar import required_keys

CATEGORIES = ("irrelevance", "simple_python", "multiple", "parallel", "parallel_multiple")



def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("report")
    parser.add_argument("data")
    parser.add_argument("--every", type=int, default=3)
    parser.add_argument("--model", default=None)
    parser.add_argument("--skip", default=None, help="a previous output (JSON lines): its items are not run again")
    ns = parser.parse_args()
    opener = gzip.open if ns.report.endswith(".gz") else open
    with opener(ns.report, "rt", encoding="utf-8") as handle:
        items = json.load(handle)["items"]
    chosen = []  # right calls first (what a decline rule would lose), then the made-up ones
    for cat in CATEGORIES[1:]:
        chosen += [x for x in items if x["category"] == cat and x["valid"]][:: ns.every]
    chosen += [x for x in items if x["category"] == "irrelevance" and not x["valid"] and x["actual"]]
    if ns.skip:
        with open(ns.skip, encoding="utf-8") as handle:
            done = {json.loads(line)["id"] for line in handle if line.strip()}
        chosen = [x for x in chosen if x["id"] not in done]
    by_id, loaded, dialect = load_for_replay(ns.data, CATEGORIES, ns.model)
    llm = loaded.llm
    for x in chosen:
        item = by_id[x["id"]]
        specs, calls, text = replayed_reply(item, x["actual"])
        nodes = list(_value_nodes(text))  # the implementation's own spans (characters, any line)
        if not nodes:
            continue
        prompt = prompt_tokens(loaded, dialect, item, specs)
        reply_tokens = loaded.tokenize(text, bos=False)
        llm.reset()
        llm.eval(prompt)
        offsets, pos, probs = [], 0, []
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        for tok in reply_tokens:
            p = next_token_probs(llm)
            probs.append(float(p[tok]))
            piece = decoder.decode(loaded.piece(tok))
            offsets.append((pos, pos + len(piece)))
            pos += len(piece)
            llm.eval([tok])
        required = {k for t in specs if t.name in {c["name"] for c in calls} for k in required_keys(t.parameters)}
        values = []
        for _name, key, _node, a, b in nodes:
            inside = [probs[i] for i, (s, e) in enumerate(offsets) if s < b and e > a]
            if inside:
                values.append({"key": key, "text": text[a:b], "required": key in required,
                               "min": round(min(inside), 4), "joint": round(float(np.prod(inside)), 4)})
        print(json.dumps({"id": x["id"], "category": x["category"], "valid": x["valid"], "values": values},
                         ensure_ascii=False), flush=True)


if __name__ == "__main__":
    main()
