"""Would reading ``["name", {arguments}]`` replies as calls help the ``json`` dialect?

The 0.5b model, shown JSON call objects (``{"name": ..., "arguments": {...}}``), sometimes writes a call as a
two-item JSON list instead: the function's name, then its arguments (``["weather_humidity_forecast",
{"location": "Miami", "days": 7}]``). toolwire's ``json`` dialect does not open a call on that shape, so such
a reply is text. This replays the idea on stored whole runs, without the model: every reply that made no call
and decodes as one such pair (or a list of pairs) is read as those calls, scored with toolwire's BFCL checker,
and counted per category and verdict (a name that is no bound tool is counted apart; a reply whose JSON is cut
off or malformed is "unreadable").

``python benchmarks/bfcl_pair_replies.py DATA_DIR REPORT...`` (reports as ``toolwire eval bfcl --out`` writes
them, ``.json`` or ``.json.gz``), e.g. ``../shared/bfcl benchmarks/bfcl-runs/q05-json-v-calls.json.gz
benchmarks/bfcl-runs/q05-json-v-irrelevance.json.gz``. It is an upper bound: the calls the grammar would
generate after such an opening, and the value check on them, are not replayed.
"""

from __future__ import annotations

import argparse
import collections
import gzip
import json
from pathlib import Path
from typing import Any

from toolwire.evals.bfcl import BfclItem, load_category
from toolwire.evals.bfcl_checker import check_calls

_DECODER = json.JSONDecoder()


def pairs(text: str) -> list[tuple[str, dict[str, Any]]] | str | None:
    """The ``(name, arguments)`` pairs ``text`` holds, ``"unreadable"`` for a list whose JSON does not decode,
    None when it is no such list."""
    text = text.strip()
    if not text.startswith("["):
        return None
    try:
        value, _ = _DECODER.raw_decode(text)
    except ValueError:
        return "unreadable"

    def is_pair(item: Any) -> bool:
        return isinstance(item, list) and len(item) == 2 and isinstance(item[0], str) and isinstance(item[1], dict)

    if is_pair(value):
        return [(value[0], value[1])]
    if isinstance(value, list) and value and all(is_pair(item) for item in value):
        return [(item[0], item[1]) for item in value]
    return None


def _items(path: Path) -> list[dict[str, Any]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return list(json.load(handle)["items"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, help="the BFCL data folder")
    parser.add_argument("reports", type=Path, nargs="+")
    args = parser.parse_args()
    for report in args.reports:
        rows = _items(report)
        known: dict[str, BfclItem] = {}
        for category in sorted({row["category"] for row in rows}):
            known.update((item.id, item) for item in load_category(args.data, category))
        counts: collections.Counter[tuple[str, ...]] = collections.Counter()
        for row in rows:
            found = pairs(row.get("text") or "") if not row["actual"] else None
            if found is None:
                continue
            if isinstance(found, str):
                counts[(row["category"], "unreadable")] += 1
                continue
            item = known[row["id"]]
            toolset = item.toolset()
            calls = [{"name": toolset.original_name(name), "args": arguments} for name, arguments in found]
            verdict = check_calls(item.category, item.functions, item.ground_truth, calls)
            bound = "bound" if all(name in toolset.names for name, _ in found) else "no such tool"
            before = "was right" if row["valid"] else "was wrong"
            counts[(row["category"], bound, "right" if verdict.valid else "wrong", before)] += 1
        print(report)
        for key, count in sorted(counts.items()):
            print(f"  {' / '.join(key)}: {count}")


if __name__ == "__main__":
    main()
