"""Could running two dialects on each item, and choosing between their replies, beat either alone?

The default model has two dialects whose whole runs are stored: ``pythonic`` (Python call lists) and ``json``
(call objects). Per category each wins items the other loses. This replays, without the model, the ways of
combining two replies that need no third signal: each item's verdict under a rule that sees only whether each
reply made a call, scored as the stored verdicts (greedy decoding makes a reply the same whenever it is asked
again, so a combination's verdict is one of the two stored ones, or "no call"):

* ``A``, ``B``: each dialect alone.
* ``A then B``: A's reply, or B's where A made no call (and the other way round, ``B then A``).
* ``both call``: a call only when both made one (A's), else no call (what an irrelevance item wants).
* ``either right``: the item counted right when either reply is: the ceiling of any rule choosing between the
  two replies, whatever signal it used.

``python benchmarks/bfcl_dialect_union.py --a REPORT... --b REPORT...`` (reports as ``toolwire eval bfcl --out``
writes them, ``.json`` or ``.json.gz``; an item's newest verdict is the one in the last report naming it), e.g.
``--a benchmarks/bfcl-runs/q15-paths-one.json.gz benchmarks/bfcl-runs/q15-irr28.json.gz --b
benchmarks/bfcl-runs/q15-json-bv-full.json.gz``. Prints, per category both hold, items right out of n per rule.
"""

from __future__ import annotations

import argparse
import gzip
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

Verdict = tuple[bool, bool]  # (made a call, scored right)


def verdicts(paths: list[Path]) -> dict[str, tuple[str, Verdict]]:
    """``{item id: (category, (made a call, right))}`` from reports, a later report's item replacing an earlier's."""
    out: dict[str, tuple[str, Verdict]] = {}
    for path in paths:
        opener: Callable[..., Any] = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rt", encoding="utf-8") as handle:
            report = json.load(handle)
        for item in report["items"]:
            out[item["id"]] = (item["category"], (bool(item.get("actual")), bool(item["valid"])))
    return out


def no_call_right(category: str) -> bool:
    """Whether a reply with no call is right in ``category`` (BFCL: only irrelevance wants none)."""
    return category.startswith("irrelevance") or category.startswith("live_irrelevance")


RULES: dict[str, Callable[[str, Verdict, Verdict], bool]] = {
    "A": lambda cat, a, b: a[1],
    "B": lambda cat, a, b: b[1],
    "A then B": lambda cat, a, b: a[1] if a[0] else b[1],
    "B then A": lambda cat, a, b: b[1] if b[0] else a[1],
    "both call": lambda cat, a, b: a[1] if a[0] and b[0] else no_call_right(cat),
    "either right": lambda cat, a, b: a[1] or b[1],
}


def main() -> None:
    """Print the table of items right per rule and category."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--a", nargs="+", type=Path, required=True, help="reports of the first dialect")
    parser.add_argument("--b", nargs="+", type=Path, required=True, help="reports of the second dialect")
    args = parser.parse_args()
    first, second = verdicts(args.a), verdicts(args.b)
    categories = sorted({cat for cat, _ in first.values()} & {cat for cat, _ in second.values()})
    print("| rule | " + " | ".join(categories) + " |")
    print("|---|" + "---|" * len(categories))
    for rule, right in RULES.items():
        cells = []
        for cat in categories:
            ids = [key for key, (c, _) in first.items() if c == cat and key in second]
            won = sum(right(cat, first[key][1], second[key][1]) for key in ids)
            cells.append(f"{won} / {len(ids)} ({100 * won / len(ids):.2f})")
        print(f"| {rule} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
