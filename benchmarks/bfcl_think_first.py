"""Does a line of reasoning before the call list help? A measurement, not a toolwire feature.

The default model's remaining BFCL ``simple`` failures are mostly values the request gives in another form than
the function wants (``11 PM`` for a 24-hour ``23``, ``100µF`` for farads, ``50 million`` for an integer, a
west longitude as a negative number). This asks the model, in the ``pythonic`` prompt the default writes, to
first write one ``Thought:`` line working out each argument's value in the units and format the function's
description asks for, and then the call list; the text after the thought is read as a pythonic reply and
scored with toolwire's BFCL checker. Plain greedy decoding, no grammar, no call bar, so the figures compare
with the stored default replies only on call items (the thought path has none of the default's declines).

Usage: ``python benchmarks/bfcl_think_first.py ../shared/bfcl IDS_FILE BASELINE_REPORT.json.gz [thought|arguments]
> out.jsonl``
(one JSON line per item, then a summary line; about 10 s per item here).
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

from _bfcl_replay import load_for_replay

from toolwire.evals.bfcl_checker import check_calls
from toolwire.models.base import to_tool_spec
from toolwire.models.dialects import parse_reply

ORIGINAL = "To call functions, reply with only a Python list of calls and nothing else, for example:"
THINK = {
    "thought": ("To call functions, first write one line starting with \"Thought:\" that works out the value of each "
                "argument from the request, in the units and the format the function's description asks for; then, "
                "on the next line, write only a Python list of calls, for example:"),
    "arguments": ("To call functions, first write one line starting with \"Arguments:\" that gives each argument the "
                  "request sets as name = value, the value in the units and the format the parameter's description "
                  "asks for; then, on the next line, write only a Python list of calls, for example:"),
}


def main(data: str, ids_file: str, baseline: str, variant: str = "thought") -> None:
    ids = [line.strip() for line in Path(ids_file).read_text().splitlines() if line.strip()]
    with gzip.open(baseline, "rt") as f:
        before = {i["id"]: i["valid"] for i in json.load(f)["items"]}
    categories = tuple(sorted({i.rsplit("_", 1)[0] for i in ids}))
    by_id, loaded, dialects = load_for_replay(data, categories, None)
    won = lost = right = 0
    for item_id in ids:
        item = by_id[item_id]
        toolset = item.toolset()
        specs = [to_tool_spec(t) for t in toolset.tools]
        rendered = dialects(len(specs)).render(list(item.messages()), specs, tool_choice="auto")
        system = rendered.messages[0]
        assert system["role"] == "system" and ORIGINAL in system["content"], "the pythonic prompt changed"
        rendered.messages[0] = {**system, "content": system["content"].replace(ORIGINAL, THINK[variant])}
        loaded.llm.reset()
        out = loaded.llm.create_completion(loaded.tokenize(loaded.render(rendered)), max_tokens=300,
                                           temperature=0.0, top_k=1)
        text = out["choices"][0]["text"]
        start = text.find("[")
        parsed = parse_reply(text[start:] if start >= 0 else "", specs, "pythonic")
        calls = [{"name": toolset.names.get(c["name"], c["name"]), "args": c["args"]} for c in parsed.tool_calls]
        result = check_calls(item.category, item.functions, item.ground_truth, calls)
        right += result.valid
        won += result.valid and not before.get(item_id, False)
        lost += before.get(item_id, False) and not result.valid
        print(json.dumps({"id": item_id, "valid": result.valid, "before": before.get(item_id), "reason": result.reason,
                          "calls": calls, "text": text}, ensure_ascii=False), flush=True)
    print(json.dumps({"items": len(ids), "right": right, "won": won, "lost": lost}), flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:5])
