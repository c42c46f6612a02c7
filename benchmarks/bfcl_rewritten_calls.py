"""Replies with no call that open with a bound call in other punctuation (``.f(``, ``(f(``, `` [`f( ``, ``[[f(``).

    python benchmarks/bfcl_rewritten_calls.py DATA_DIR REPORT.json[.gz] [REPORT.json[.gz] ...]

After a declined call opening, a local model may write the same call again in other punctuation, which is text.
This lists every such reply of the reports (a later report's item replaces an earlier one's, so reruns can be
patched in), with its category and verdict, and counts them per category, to judge whether reading them as
calls could raise accuracy (ACCURACY.md, sixteenth session). A tool name matches in any spelling: ASCII letter
case and the separators ``.``, ``-``, ``_`` do not count.
"""

from __future__ import annotations

import argparse
import collections
import json
import re
from pathlib import Path

from bfcl_diff import load_items

_OPENING = re.compile(r"[\s.(\[`'\"]*([A-Za-z_][\w.\-]*)\s*\(")


def _fold(name: str) -> str:
    return name.lower().replace(".", "_").replace("-", "_")


def main() -> None:
    """Parse the command line, read the data's function names and the reports, and print the replies found."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, help="the BFCL data folder (its BFCL_*.json files)")
    parser.add_argument("reports", type=Path, nargs="+")
    args = parser.parse_args()
    names: dict[str, set[str]] = {}
    for path in args.data.glob("BFCL_*.json"):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                item = json.loads(line)
                names[item["id"]] = {_fold(f["name"]) for f in item["function"]}
    items: dict[str, dict] = {}
    for report in args.reports:
        items.update(load_items(report))
    found: collections.Counter[tuple[str, bool]] = collections.Counter()
    for item_id, item in sorted(items.items()):
        match = _OPENING.match(item.get("text") or "")
        if item["actual"] or not match or _fold(match.group(1)) not in names.get(item_id, set()):
            continue
        found[(item["category"], item["valid"])] += 1
        print(f"{item['category']} {item_id} {'right' if item['valid'] else 'wrong'}: {item['text'][:100]!r}")
    print(f"{len(items)} items; such replies by (category, right): {dict(found)}")


if __name__ == "__main__":
    main()
