"""Item-by-item comparison of two ``toolwire eval bfcl`` reports (greedy decoding: same item, same reply).

    python benchmarks/bfcl_diff.py BASE.json[.gz] [--patch PATCH.json[.gz] ...] NEW.json[.gz] [--list]

``BASE`` is the baseline report; each ``--patch`` report replaces the baseline's result for the items it holds
(a rerun of some items at a later commit). For every category the items present in both baseline and ``NEW``
are compared: accuracy of each on those items, and how many items ``NEW`` won (wrong before, right now) and
lost (right before, wrong now). ``--list`` also prints the ids of the won and lost items with the new reason.
Reports may be gzip-compressed (``benchmarks/bfcl-runs/*.json.gz``).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from _report_file import load_json, not_a_report


def read_report(path: Path) -> dict[str, Any]:
    """The JSON object of the report at ``path`` (a ``.gz`` file is read through gzip), checked to be a report
    ``toolwire eval bfcl --out`` wrote: a ``model`` and an ``items`` list of objects, each with a string ``id`` and
    ``category`` and a boolean ``valid``.

    Raises:
        SystemExit: the file cannot be read, or is not such a report; its message is one line starting with
            ``error:`` (review 238 #4: a wrong path or file ended in a traceback).
    """
    report = load_json(path)
    items = report.get("items") if isinstance(report, dict) else None
    if not isinstance(report, dict) or "model" not in report or not isinstance(items, list):
        raise SystemExit(not_a_report(path, "no 'model' and 'items'"))
    for item in items:
        if not (isinstance(item, dict) and isinstance(item.get("id"), str) and isinstance(item.get("category"), str)
                and isinstance(item.get("valid"), bool)):
            raise SystemExit(not_a_report(path, f"an item that is not an object with 'id', 'category' and 'valid': "
                                                 f"{json.dumps(item)[:80]}"))
    return report


def load_items(path: Path) -> dict[str, dict[str, Any]]:
    """The report's items by id (:func:`read_report`; its errors)."""
    return {item["id"]: item for item in read_report(path)["items"]}


def main() -> None:
    """Parse the command line, compare the reports and print one table row per category."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--patch", type=Path, action="append", default=[])
    parser.add_argument("--list", action="store_true", help="print the won and lost item ids")
    args = parser.parse_args()
    base = load_items(args.base)
    for patch in args.patch:
        base.update(load_items(patch))
    new = load_items(args.new)
    categories: dict[str, list[str]] = {}
    for item_id, item in new.items():
        if item_id in base:
            categories.setdefault(item["category"], []).append(item_id)
    print(f"{'category':<20} {'items':>5} {'base %':>7} {'new %':>7} {'won':>4} {'lost':>4}")
    for category, ids in categories.items():
        won = [i for i in ids if new[i]["valid"] and not base[i]["valid"]]
        lost = [i for i in ids if base[i]["valid"] and not new[i]["valid"]]
        base_acc = 100 * sum(base[i]["valid"] for i in ids) / len(ids)
        new_acc = 100 * sum(new[i]["valid"] for i in ids) / len(ids)
        print(f"{category:<20} {len(ids):>5} {base_acc:>7.2f} {new_acc:>7.2f} {len(won):>4} {len(lost):>4}")
        if args.list:
            for label, group in (("won", won), ("lost", lost)):
                for item_id in group:
                    reason = new[item_id].get("reason") or base[item_id].get("reason")
                    print(f"    {label:<4} {item_id:<24} {reason}")


if __name__ == "__main__":
    main()
