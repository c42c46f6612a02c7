"""Does the model's own probability say when it stopped a call list too early? Signal only.

For each item of a finished report whose reply made calls, the conversation is rendered as ChatLlamaCpp renders
it, the reply is fed back (written as the model's dialect writes a call list: ``[f(a=1), f(a=2)]`` or
``[{"name": ..., "arguments": ...}, ...]``), and at the token that closes the list the model's (unconstrained)
probability of going on with ``,`` (another call) is compared with that of closing with ``]``. Each item is
printed with that share, its verdict and how many calls it made and BFCL expected, so the items that made too
few calls can be compared with the right ones (which a "go on when the share is high" rule would put at risk)
before any rule is built.

Usage: ``python benchmarks/bfcl_call_gap.py REPORT.json.gz ../shared/bfcl [--model NAME] [--every K] > out.jsonl``
(every wrong-count failure with fewer calls than expected; right items every K-th).
"""

from __future__ import annotations

import argparse
import gzip
import json

import numpy as np
from _bfcl_replay import go_and_stop, load_for_replay, next_token_probs, prompt_tokens, replayed_reply

from toolwire.models.dialects import format_calls

CATEGORIES = ("simple_python", "multiple", "parallel", "parallel_multiple")



def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("report")
    parser.add_argument("data")
    parser.add_argument("--every", type=int, default=2)
    parser.add_argument("--model", default=None)
    ns = parser.parse_args()
    opener = gzip.open if ns.report.endswith(".gz") else open
    with opener(ns.report, "rt", encoding="utf-8") as handle:
        items = [x for x in json.load(handle)["items"] if x["category"] in CATEGORIES and x["actual"]]
    chosen = [x for x in items if x["reason"] == "wrong_count" and len(x["actual"]) < len(x["expected"])]
    chosen += [x for x in items if x["valid"]][:: ns.every]
    by_id, loaded, dialects = load_for_replay(ns.data, CATEGORIES, ns.model)
    llm = loaded.llm
    vocab = [loaded.piece(t) for t in range(llm.n_vocab())]
    split: dict[bytes, tuple[np.ndarray, np.ndarray]] = {}
    for x in chosen:
        item = by_id[x["id"]]
        specs, calls, text = replayed_reply(item, x["actual"])
        fmt = dialects(len(specs)).formats[0]
        if fmt == "json":  # the list the prompt asks for, one call or several
            text = "[" + ", ".join(format_calls([c], "json", specs) for c in calls) + "]"
        elif fmt != "pythonic":
            raise SystemExit(f"no call list in the {fmt} format")
        raw = text.encode()
        at = len(raw) - 1  # the list's ``]``
        reply = loaded.tokenize(text, bos=False)
        starts, pos = [], 0
        for tok in reply:
            starts.append(pos)
            pos += len(vocab[tok])
        i = max(k for k, s in enumerate(starts) if s <= at)
        llm.reset()
        llm.eval(prompt_tokens(loaded, dialects, item, specs) + reply[:i])
        go, stop = go_and_stop(next_token_probs(llm), vocab, raw[starts[i]:at], b",", b"]", split)
        print(json.dumps({"id": x["id"], "category": x["category"], "valid": x["valid"], "reason": x["reason"],
                          "made": len(x["actual"]), "expected": len(x["expected"]),
                          "go": round(go, 4), "stop": round(stop, 4),
                          "share": round(go / (go + stop), 4) if go + stop else None}), flush=True)


if __name__ == "__main__":
    main()
