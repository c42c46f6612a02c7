"""Would a yes/no self-check after a call tell made-up calls from right ones? Signal analysis only.

Idea (1) of ``benchmarks/ACCURACY.md`` ("Not yet measured"): once the model has called a bound tool,
ask it in the same conversation whether that function does what was asked, and decline the call when it
says no. Before building it, this measures the signal: for calls from a finished report (irrelevance
items where a call was made although none fits, and right calls from ``multiple`` and ``parallel``), it
renders the conversation exactly as ChatLlamaCpp does (the question, the model's own calls as its reply,
then the check as a user turn), evaluates it and prints the probability of "yes" and of "no" as the
next token. The check is only useful if the two groups' figures separate.

Usage: ``python benchmarks/bfcl_self_check.py REPORT.json ../shared/bfcl [model] > check.jsonl``
(every 4th irrelevance failure, every 7th right ``multiple`` and every 14th right ``parallel`` item; about
6 s per item here).
"""

from __future__ import annotations

import json
import sys

from _bfcl_replay import next_token_probs

from toolwire import AIMessage, HumanMessage
from toolwire.evals.bfcl import load_category
from toolwire.models import init_chat_model
from toolwire.models.base import to_tool_spec

CHECK = "Before these calls run: does {names} do exactly what I asked for? Answer yes or no."



def main(report: str, data: str, model: str | None = None) -> None:
    with open(report, encoding="utf-8") as handle:
        items = json.load(handle)["items"]
    made_up = [x for x in items if x["category"] == "irrelevance" and not x["valid"] and x["actual"]]
    right = [x for x in items if x["category"] == "multiple" and x["valid"]]
    right_parallel = [x for x in items if x["category"] == "parallel" and x["valid"]]
    chosen = made_up[::4] + right[::7] + right_parallel[::14]
    by_id = {it.id: it for cat in ("irrelevance", "multiple", "parallel") for it in load_category(data, cat)}
    chat_model = init_chat_model(model)
    chat_model.prompt_cache = False
    loaded = chat_model.load()
    llm = loaded.llm
    words = {t: loaded.piece(t).decode("utf-8", "replace").strip().lower() for t in range(llm.n_vocab())}
    yes = [t for t, w in words.items() if w == "yes"]
    no = [t for t, w in words.items() if w == "no"]
    for x in chosen:
        item = by_id[x["id"]]
        toolset = item.toolset()
        specs = [to_tool_spec(t) for t in toolset.tools]
        dialect = chat_model.dialect_for(loaded, len(specs))
        sent = {original: name for name, original in toolset.names.items()}
        calls = [{"name": sent.get(c["name"], c["name"]), "args": c["args"], "id": f"c{i}"}
                 for i, c in enumerate(x["actual"])]
        names = " and ".join(sorted({c["name"] for c in calls}))
        messages = [*item.messages(), AIMessage("", tool_calls=calls), HumanMessage(CHECK.format(names=names))]
        tokens = loaded.tokenize(loaded.render(dialect.render(messages, specs, tool_choice="auto")))
        llm.reset()
        llm.eval(tokens)
        p = next_token_probs(llm)
        print(json.dumps({"id": x["id"], "category": x["category"], "p_yes": round(float(p[yes].sum()), 3),
                          "p_no": round(float(p[no].sum()), 3)}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None)
