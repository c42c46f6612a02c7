"""Which values did the declines act on? Irrelevance items one run called a tool on and a later run did not.

For every irrelevance item the first report made a call on and the second made none, this looks at the first
run's call: the values it holds that the question does not (the made-up values the value check is for), and
whether one of them is short (a number, or a string of 20 characters or fewer) or all are longer text. Used to
weigh the value check's rule for written text (``models/_call_checks.py``, ``written_text``) before building it.

``python benchmarks/bfcl_declined_values.py BEFORE AFTER`` (reports as ``toolwire eval bfcl --out`` writes them,
``.json`` or ``.json.gz``), e.g. ``benchmarks/bfcl-runs/q15-pythonic-bar25-full.json.gz
benchmarks/bfcl-runs/q15-paths-one.json.gz``.
"""

from __future__ import annotations

import argparse
import collections
import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def _items(path: Path) -> dict[str, dict[str, Any]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return {item["id"]: item for item in json.load(handle)["items"]}


def _leaves(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        for item in value.values():
            yield from _leaves(item)
    elif isinstance(value, list):
        for item in value:
            yield from _leaves(item)
    else:
        yield value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    args = parser.parse_args()
    before, after = _items(args.before), _items(args.after)
    counts: collections.Counter[str] = collections.Counter()
    for key, item in after.items():
        old = before.get(key)
        if item["category"] != "irrelevance" or old is None or not old["actual"] or item["actual"]:
            continue
        question = (item.get("question") or "").lower()
        made = [leaf for call in old["actual"] for leaf in _leaves(call["args"]) if str(leaf).lower() not in question]
        if not made:
            counts["no made-up value"] += 1
        elif any(not isinstance(leaf, str) or len(leaf) <= 20 for leaf in made):
            counts["a short made-up value"] += 1
        else:
            counts["only longer made-up text"] += 1
            print(f"{key}: {made}")
    for kind, count in sorted(counts.items()):
        print(f"{kind}: {count}")


if __name__ == "__main__":
    main()
