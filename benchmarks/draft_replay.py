"""Where the defaults of the prompt-lookup drafts come from (``toolwire.models._decoding``).

1. ``python benchmarks/draft_replay.py collect OUT.json [--model NAME] [--per-category 4]``: answer the first
   BFCL items of four categories with drafts off, recording each generation's prompt and reply tokens.
2. ``python benchmarks/draft_replay.py replay OUT.json [--step-ms 73 --token-ms 29]``: replay those replies
   offline for several draft settings and print the decoding time relative to no drafts, with a step
   costing ``step-ms`` plus ``token-ms`` per extra token in the batch (measure both on your machine by
   timing ``llama_decode`` of 1 and 3 tokens; 73 and 29 ms were qwen2.5-coder-1.5b on 2 cores).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path

from toolwire.models._decoding import lookup_draft

DATA = Path(__file__).resolve().parents[2] / "shared" / "bfcl"


def collect(out: Path, model: str, per_category: int) -> None:
    import toolwire.models._decoding as decoding
    import toolwire.models._generation as generation
    import toolwire.models.llamacpp as llamacpp
    from toolwire.evals.bfcl import load_category
    from toolwire.evals.bfcl_runner import score_item

    records: list[dict[str, list[int]]] = []
    real = decoding.greedy_tokens

    def recording(lib, llm, prompt, **kw):  # type: ignore[no-untyped-def]
        reply: list[int] = []
        records.append({"prompt": list(prompt) + list(kw.get("forced", ())), "out": reply})
        for token in real(lib, llm, prompt, **kw):
            reply.append(token)
            yield token

    generation.greedy_tokens = recording
    chat = llamacpp.ChatLlamaCpp(model, draft_tokens=0, prompt_cache=False)
    for category in ("simple_python", "multiple", "parallel", "parallel_multiple"):
        for item in load_category(DATA, category, limit=per_category):
            score_item(chat, item)
    out.write_text(json.dumps(records))
    print(f"{len(records)} generations written to {out}")


def replay(path: Path, step_ms: float, token_ms: float) -> None:
    records = [r for r in json.loads(path.read_text()) if r["out"]]
    plain = sum(len(r["out"]) for r in records) * step_ms
    rows = []
    for max_ngram, min_ngram, size in itertools.product((2, 3, 4), (1, 2, 3), (1, 2, 3, 4, 8)):
        if min_ngram > max_ngram:
            continue
        total = 0.0
        for record in records:
            history, reply = [*record["prompt"], record["out"][0]], record["out"]
            i = 1
            while i < len(reply):
                draft = lookup_draft(history, max_ngram=max_ngram, min_ngram=min_ngram, max_tokens=size)
                kept = 0
                while kept < len(draft) and i + kept < len(reply) and draft[kept] == reply[i + kept]:
                    kept += 1
                total += step_ms + token_ms * len(draft)
                history.extend(reply[i:i + kept + 1])
                i += kept + 1
        rows.append((total / plain, max_ngram, min_ngram, size))
    for ratio, max_ngram, min_ngram, size in sorted(rows)[:10]:
        print(f"n-gram {min_ngram}-{max_ngram}, drafts of at most {size}: {ratio:.3f} of the time without drafts")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=("collect", "replay"))
    parser.add_argument("path", type=Path)
    parser.add_argument("--model", default="qwen2.5-coder-1.5b")
    parser.add_argument("--per-category", type=int, default=4)
    parser.add_argument("--step-ms", type=float, default=73.0)
    parser.add_argument("--token-ms", type=float, default=29.0)
    opts = parser.parse_args()
    if opts.mode == "collect":
        collect(opts.path, opts.model, opts.per_category)
    else:
        replay(opts.path, opts.step_ms, opts.token_ms)
    return 0


if __name__ == "__main__":
    sys.exit(main())
