"""Does the model's own probability say when it left out an optional argument it should have passed? Signal only.

For each call of a finished report's reply (pythonic dialect) that closes while its function still has optional
parameters after the last argument written (in signature order, the grammar's order), the conversation is
rendered as ChatLlamaCpp renders it, the reply is fed back, and at the token that closes the call the model's
(unconstrained) probability of going on with ``,`` is compared with that of closing with ``)``. Each call is
printed with that share and with the item's verdict, so the calls that lost a point for a missing parameter
can be compared with the calls of right items (which a "go on when the share is high" rule would put at risk)
before any rule is built.

Usage: ``python benchmarks/bfcl_optional_gap.py REPORT.json.gz ../shared/bfcl [--every K] > out.jsonl``
(every missing-parameter failure; right items every K-th from ``--offset``; about 4 s per item on 2 cores).
"""

from __future__ import annotations

import argparse
import ast
import gzip
import json

import numpy as np
from _bfcl_replay import go_and_stop, load_for_replay, next_token_probs, prompt_tokens, replayed_reply

from toolwire.parsing.pythonic import signature_order

CATEGORIES = ("simple_python", "multiple", "parallel", "parallel_multiple")



def _closes(text: str, specs: dict) -> list[tuple[int, str, list[str]]]:
    """Byte offset of each call's ``)``, its function name and the optional parameters it could still take."""
    tree = ast.parse(text, mode="eval").body
    out = []
    for node in tree.elts if isinstance(tree, ast.List) else []:
        if not isinstance(node, ast.Call) or node.end_col_offset is None:
            continue
        name = ast.unparse(node.func)
        spec = specs.get(name)
        if spec is None:
            continue
        order = signature_order(spec.parameters)
        given = [k.arg for k in node.keywords if k.arg in order]
        last = max((order.index(g) for g in given), default=-1)
        required = set(spec.parameters.get("required") or [])
        left = [n for n in order[last + 1:] if n not in required]
        if left:
            out.append((node.end_col_offset - 1, name, left))
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("report")
    parser.add_argument("data")
    parser.add_argument("--every", type=int, default=2)
    parser.add_argument("--offset", type=int, default=0, help="the first right item taken (0 to every-1)")
    parser.add_argument("--no-missing", action="store_true", help="leave out the missing-parameter failures")
    parser.add_argument("--model", default=None)
    ns = parser.parse_args()
    opener = gzip.open if ns.report.endswith(".gz") else open
    with opener(ns.report, "rt", encoding="utf-8") as handle:
        items = [x for x in json.load(handle)["items"] if x["category"] in CATEGORIES and x["actual"]]
    chosen = [] if ns.no_missing else [x for x in items if x["reason"] == "missing_parameter"]
    chosen += [x for x in items if x["valid"]][ns.offset:: ns.every]
    by_id, loaded, dialects = load_for_replay(ns.data, CATEGORIES, ns.model)
    llm = loaded.llm
    vocab = [loaded.piece(t) for t in range(llm.n_vocab())]
    split: dict[bytes, tuple[np.ndarray, np.ndarray]] = {}
    for x in chosen:
        item = by_id[x["id"]]
        specs, _calls, text = replayed_reply(item, x["actual"])
        if dialects(len(specs)).formats[0] != "pythonic":  # the replay writes pythonic calls: only those items
            continue
        try:
            closes = _closes(text, {s.name: s for s in specs})
        except SyntaxError:
            continue
        if not closes:
            continue
        raw = text.encode()
        reply = loaded.tokenize(text, bos=False)
        starts, pos = [], 0
        for tok in reply:
            starts.append(pos)
            pos += len(vocab[tok])
        llm.reset()
        llm.eval(prompt_tokens(loaded, dialects, item, specs))
        done = 0
        for at, name, left in closes:
            i = max(k for k, s in enumerate(starts) if s <= at)
            llm.eval(reply[done:i])
            done = i
            go, stop = go_and_stop(next_token_probs(llm), vocab, raw[starts[i]:at], b",", b")", split)
            print(json.dumps({"id": x["id"], "category": x["category"], "valid": x["valid"], "reason": x["reason"],
                              "message": x["message"][:120], "call": name, "left": left,
                              "go": round(float(go), 4), "stop": round(float(stop), 4),
                              "share": round(float(go / (go + stop)), 4) if go + stop else None},
                             ensure_ascii=False), flush=True)


if __name__ == "__main__":
    main()
