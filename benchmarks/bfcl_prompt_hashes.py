"""Whether a change reaches what the embedded model is asked on BFCL: each item's rendered prompt and call grammar,
hashed, for two source trees, without loading the model.

    python benchmarks/bfcl_prompt_hashes.py --before /path/to/old/src [--after src] [--data ../shared/bfcl]

For every item of the five categories (simple_python, multiple, parallel, parallel_multiple, irrelevance), each
tree builds the GBNF grammar of a reply of calls (``call_grammar``) in the ``pythonic`` and ``json`` formats, in
both argument orders, and the ``pythonic`` and ``json`` dialects' rendered prompt, and writes the sha256 of them
together. The script then lists the items whose hash differs between the trees; none means no reply can change
(greedy decoding of the same prompt under the same grammar), so the stored BFCL figures stand. ``--ignore-exponent``
reads the number rules' exponent as one name in both trees, so a tree from before the finite-number bound (review 94:
exponents up to ``e+284``, where the thirty-sixth session's grammar allowed ``e999``) compares on everything else;
``--max-calls N`` gives both trees' grammars the same limit on calls per reply (``call_grammar(max_calls=N)``), so a
tree from before the limit went from 8 to 32 (review 110) compares on everything else.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

CATEGORIES = ("simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance")

_WORKER = r"""
import hashlib, json, re, sys
from toolwire.evals.bfcl import load_category
from toolwire.models.base import to_tool_spec
from toolwire.models.dialects import get_dialect
from toolwire.models.grammar import call_grammar

data, out, categories, ignore = sys.argv[1], sys.argv[2], sys.argv[3].split(","), sys.argv[4] == "1"
limit = {"max_calls": int(sys.argv[5])} if sys.argv[5] != "0" else {}

def grammar(specs, fmt, signature=False):
    text = call_grammar(specs, fmt, signature=signature, **limit)
    if ignore:  # the exponent, as a rule of its own or written inline, reduced to one name in both trees
        text = re.sub(r"^exponent ::= .*\n", "", text, flags=re.M)
        text = text.replace("([eE] [-+]? [0-9]{1,3})", "exponent").replace("[eE] [-+]? [0-9]{1,3}", "exponent")
    return text

hashes = {}
for category in categories:
    for item in load_category(data, category):
        specs = [to_tool_spec(tool) for tool in item.toolset().tools]
        parts = []
        for fmt in ("pythonic", "json"):
            parts += [grammar(specs, fmt), grammar(specs, fmt, True)]
            parts.append(json.dumps(get_dialect(fmt).render(item.messages(), specs).messages, sort_keys=True,
                                    default=str))
        hashes[item.id] = hashlib.sha256("\n".join(parts).encode()).hexdigest()
json.dump(hashes, open(out, "w"))
"""


def hashes(src: str, data: str, ignore_exponent: bool, max_calls: int = 0) -> dict[str, str]:
    """The per-item hashes of the tree at ``src`` (a ``src`` folder holding ``toolwire``), in a process of its own
    (``max_calls``: the grammars' call limit both trees are given, 0 for each tree's own)."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "hashes.json"
        env = {**os.environ, "PYTHONPATH": str(Path(src).resolve())}
        subprocess.run([sys.executable, "-c", _WORKER, data, str(out), ",".join(CATEGORIES),
                        "1" if ignore_exponent else "0", str(max_calls)], check=True, env=env)
        return json.loads(out.read_text())  # type: ignore[no-any-return]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", required=True, help="the older tree's src folder")
    parser.add_argument("--after", default=str(Path(__file__).resolve().parent.parent / "src"))
    parser.add_argument("--data", default=str(Path(__file__).resolve().parent.parent.parent / "shared" / "bfcl"))
    parser.add_argument("--ignore-exponent", action="store_true")
    parser.add_argument("--max-calls", type=int, default=0, help="give both trees' grammars this call limit")
    args = parser.parse_args()
    before = hashes(args.before, args.data, args.ignore_exponent, args.max_calls)
    after = hashes(args.after, args.data, args.ignore_exponent, args.max_calls)
    changed = sorted(item for item in before.keys() | after.keys() if before.get(item) != after.get(item))
    print(f"{len(before)} items; {len(changed)} with another prompt or grammar")
    for item in changed:
        print(" ", item)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
