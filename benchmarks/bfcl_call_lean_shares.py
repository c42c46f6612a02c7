"""Where would going on to another call (``parallel_call_share``) act, on a BFCL run that recorded the shares?

A local model's replies carry ``parallel_call_shares`` in ``response_metadata`` (the share of going on the
model gave where its call list closed, :mod:`toolwire.models._call_lean`), which ``toolwire eval bfcl`` keeps
per item (``decoding``). For each bar this prints, per category, on how many items the rule would act: items
whose calls were fewer than the answer key's (the rule may win them), items scored right (it may lose them,
unless the call it adds is refused as a repeat or a made-up value), and the others. It reads a report run
with ``--parallel-call-share 1`` (the shares are recorded, and the rule acts only where closing has no probability
at all), so the figures are upper bounds on wins and losses.

Run: ``python benchmarks/bfcl_call_lean_shares.py REPORT.json[.gz] [--bars 0.05,0.1,0.2,0.3]``.
"""

from __future__ import annotations

import argparse
import gzip
import json
from collections import Counter
from pathlib import Path
from typing import Any


def load(path: Path) -> list[dict[str, Any]]:
    """The items of a BFCL report (gzipped or not)."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return json.load(handle)["items"]


def kind(item: dict[str, Any]) -> str:
    """``"right"``, ``"fewer"`` (fewer calls than the key), or ``"other"`` (another failure)."""
    if item["valid"]:
        return "right"
    expected = item.get("expected") or []
    return "fewer" if item.get("actual") and len(item["actual"]) < len(expected) else "other"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", type=Path)
    parser.add_argument("--bars", default="0.02,0.05,0.1,0.15,0.2,0.3,0.5")
    args = parser.parse_args()
    items = [i for i in load(args.report) if i.get("decoding", {}).get("parallel_call_shares")]
    bars = [float(b) for b in args.bars.split(",")]
    print(f"{len(items)} items with a recorded share")
    for category in sorted({i["category"] for i in items}):
        mine = [i for i in items if i["category"] == category]
        totals = Counter(kind(i) for i in mine)
        print(f"\n{category}: {len(mine)} items ({dict(totals)})")
        print("bar    acts  fewer(may win)  right(may lose)  other")
        for bar in bars:
            acting = Counter(kind(i) for i in mine if max(i["decoding"]["parallel_call_shares"]) >= bar)
            counts = f"{acting['fewer']:>14}  {acting['right']:>15}  {acting['other']:>5}"
            print(f"{bar:<6} {sum(acting.values()):>4}  {counts}")


if __name__ == "__main__":
    main()
