"""Would asking again in ``json`` help where ``pythonic`` answered with a list of values instead of calls?

With one tool bound the default model writes ``pythonic`` call lists, and sometimes a Python list of values
(``['BRCA1']``, ``[1494]``) where a call was wanted; the ``json`` dialect, shown JSON Schemas, rarely does.
This replays the idea on two stored whole runs, without the model: for every one-tool item whose ``pythonic``
reply made no call and is a bracketed list, take the ``json`` run's verdict instead, and count the items won
and lost per category.

``python benchmarks/bfcl_value_list_fallback.py PYTHONIC_REPORT JSON_REPORT [--grounded DATA_DIR]`` (reports as
``toolwire eval bfcl --out`` writes them, ``.json`` or ``.json.gz``), e.g.
``benchmarks/bfcl-runs/q15-paths-one.json.gz`` and ``benchmarks/bfcl-runs/q15-json-bv-full.json.gz``. With
``--grounded ../shared/bfcl`` a ``json`` call is taken only when the question holds every one of its values (the
value check's own test, ``in_context``); the other replies keep ``pythonic``'s verdict.
"""

from __future__ import annotations

import argparse
import gzip
import json
from pathlib import Path
from typing import Any


def _items(path: Path) -> dict[str, dict[str, Any]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return {item["id"]: item for item in json.load(handle)["items"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pythonic", type=Path)
    parser.add_argument("json", type=Path)
    parser.add_argument("--grounded", metavar="DATA_DIR", help="take only json calls whose values the question holds")
    args = parser.parse_args()
    first, second = _items(args.pythonic), _items(args.json)
    if args.grounded:
        second = {k: v for k, v in second.items() if k not in _ungrounded(args.grounded, second)}
    print("| category | value-list replies | won | lost | right before | right after | n |")
    print("|---|---|---|---|---|---|---|")
    for category in sorted({item["category"] for item in first.values()}):
        items = [i for i in first.values() if i["category"] == category]
        lists = [i for i in items if not i["actual"] and (i.get("text") or "").strip().startswith("[")
                 and i["id"] in second]
        won = sum(1 for i in lists if second[i["id"]]["valid"] and not i["valid"])
        lost = sum(1 for i in lists if i["valid"] and not second[i["id"]]["valid"])
        before = sum(1 for i in items if i["valid"])
        print(f"| {category} | {len(lists)} | {won} | {lost} | {100 * before / len(items):.2f} | "
              f"{100 * (before + won - lost) / len(items):.2f} | {len(items)} |")


def _ungrounded(data: str, items: dict[str, dict[str, Any]]) -> set[str]:
    """The ids of ``items`` whose calls hold a value the item's conversation does not."""
    from bfcl_ungrounded import ungrounded  # (this folder is on the path of a script run from it)

    return {item_id for _, item_id in ungrounded(data, items, tuple(sorted({i["category"] for i in items.values()})))}


if __name__ == "__main__":
    main()
