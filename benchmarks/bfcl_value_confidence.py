"""Do the model's own token probabilities tell made-up tool calls from right ones? Signal analysis only.

For calls from a finished report (irrelevance items where a call was made although none fits, and right
calls from the other categories), the conversation is rendered as ChatLlamaCpp renders it and the reply
the run produced (its calls, written as the pythonic dialect writes them) is fed back token by token; for
every token the model's (unconstrained) probability is read. Per call it prints the smallest probability
among the tokens of the argument values, and the smallest per-value joint probability (the product over one
value's tokens), so the two groups can be compared before building a decline rule on either figure.

Usage: ``python benchmarks/bfcl_value_confidence.py REPORT.json.gz ../shared/bfcl [--every K] > out.jsonl``
(irrelevance failures all, right items of the other categories every K-th; about 5 s per item here).
"""

from __future__ import annotations

import argparse
import ast
import gzip
import json

import llama_cpp
import numpy as np

from toolwire.evals.bfcl import load_category
from toolwire.models import init_chat_model
from toolwire.models.base import to_tool_spec
from toolwire.models.dialects import format_calls

CATEGORIES = ("irrelevance", "simple_python", "multiple", "parallel", "parallel_multiple")


def _probs(llm: llama_cpp.Llama) -> np.ndarray:
    logits = np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(llm._ctx.ctx, -1), shape=(llm.n_vocab(),))
    p = np.exp(logits.astype(np.float64) - float(logits.max()))
    return p / p.sum()


def _value_spans(text: str) -> list[list[tuple[str, int, int]]] | None:
    """Per call of a pythonic call list: ``(keyword, start, end)`` character spans of its values, or None if
    the text is not such a list."""
    start = text.find("[")
    try:
        tree = ast.parse(text[start:].strip().rstrip("`").strip(), mode="eval")
    except SyntaxError:
        return None
    if not isinstance(tree.body, ast.List):
        return None
    spans = []
    for call in tree.body.elts:
        if not isinstance(call, ast.Call):
            return None
        spans.append([(k.arg or "", start + k.value.col_offset, start + k.value.end_col_offset) for k in call.keywords
                      if k.value.lineno == 1 and k.value.end_lineno == 1])
    return spans


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
    by_id = {it.id: it for cat in CATEGORIES for it in load_category(ns.data, cat)}
    chat_model = init_chat_model(ns.model)
    chat_model.prompt_cache = False
    loaded = chat_model.load()
    dialect = chat_model.dialect_for(loaded)
    llm = loaded.llm
    for x in chosen:
        item = by_id[x["id"]]
        toolset = item.toolset()
        specs = [to_tool_spec(t) for t in toolset.tools]
        sent = {original: name for name, original in toolset.names.items()}
        calls = [{"name": sent.get(c["name"], c["name"]), "args": c["args"], "id": f"c{i}", "type": "tool_call"}
                 for i, c in enumerate(x["actual"])]
        text = format_calls(calls, "pythonic", specs)  # the report keeps calls, not the reply's text
        spans = _value_spans(text)
        if not spans or not any(spans):
            continue
        prompt = loaded.render(dialect.render(list(item.messages()), specs, tool_choice="auto"))
        prompt_tokens = loaded.tokenize(prompt)
        reply_tokens = loaded.tokenize(text, bos=False)
        llm.reset()
        llm.eval(prompt_tokens)
        offsets, pos, probs = [], 0, []
        for tok in reply_tokens:
            p = _probs(llm)
            probs.append(float(p[tok]))
            piece = loaded.piece(tok).decode("utf-8", "replace")
            offsets.append((pos, pos + len(piece)))
            pos += len(piece)
            llm.eval([tok])
        per_call = []
        required = {t.name: set(t.parameters.get("required") or ()) for t in specs}
        for call, call_spans in zip(calls, spans, strict=False):
            values = []
            for key, a, b in call_spans:
                inside = [probs[i] for i, (s, e) in enumerate(offsets) if s < b and e > a]
                if inside:
                    values.append({"key": key, "required": key in required.get(call["name"], ()),
                                   "min": round(min(inside), 4), "joint": round(float(np.prod(inside)), 4)})
            per_call.append({"token_min": min((v["min"] for v in values), default=1.0),
                             "value_min": min((v["joint"] for v in values), default=1.0), "values": values})
        print(json.dumps({"id": x["id"], "category": x["category"], "valid": x["valid"], "calls": per_call}),
              flush=True)


if __name__ == "__main__":
    main()
