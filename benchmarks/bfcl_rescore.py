"""Score a finished ``toolwire eval bfcl`` report again with today's checker, without the model.

    python benchmarks/bfcl_rescore.py REPORT.json[.gz] [--data DIR] [--list] [--out NEW.json]

Each item's stored calls are checked again against the answer key (``toolwire.evals.bfcl_checker``); for
irrelevance, a reply without calls whose stored text is a call list counts as a call
(``toolwire.parsing.call_lists.text_calls``, BFCL's reading). Calls toolwire could not read were not stored for
irrelevance items, so their raw text is not read again here (a live run reads it). Prints, per category, the
accuracy stored and the accuracy now, with the number of items that changed; ``--list`` prints those ids;
``--out`` writes the report with the new verdicts (its folder made when missing).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from _report_file import load_json, not_a_report

from toolwire.errors import UserError
from toolwire.evals.bfcl import load_category
from toolwire.evals.bfcl_checker import category_kind, check_calls
from toolwire.evals.report import Report, _atomic_write
from toolwire.parsing.call_lists import text_calls


def rescore(report: dict[str, Any], data: Path) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """``[(stored item, rescored item)]`` for every item of ``report`` (rescored: a copy with new verdicts)."""
    categories = sorted({item["category"] for item in report["items"]})
    items = {it.id: it for cat in categories for it in load_category(data, cat)}
    out = []
    for stored in report["items"]:
        item = items.get(stored["id"])
        if item is None:
            raise UserError(f"The report's item {stored['id']!r} is not in the BFCL data in {str(data)!r}: pass the "
                            "--data folder the report was scored on.")
        calls = list(stored.get("actual") or [])
        if category_kind(item.category) == "irrelevance" and not calls:
            names = item.toolset().names
            calls = [{"name": names.get(c["name"], c["name"]), "args": c["args"]}
                     for c in text_calls(stored.get("text") or "")]
        new = dict(stored)
        if stored.get("reason") != "error":
            result = check_calls(item.category, item.functions, item.ground_truth, calls)
            new.update(valid=result.valid, reason=result.reason, message=result.message, actual=calls)
        out.append((stored, new))
    return out


def read_report(path: Path) -> dict[str, Any]:
    """The JSON object of the report at ``path`` (a ``.gz`` file is read through gzip), checked to be a report
    ``toolwire eval bfcl --out`` wrote (:meth:`toolwire.evals.report.Report.from_dict` reads it).

    Raises:
        SystemExit: the file cannot be read, or is not such a report; its message is one line starting with
            ``error:`` (review 238 #4: a wrong path or file ended in a traceback).
    """
    report = load_json(path)
    try:
        Report.from_dict(report)
    except UserError:
        raise SystemExit(not_a_report(path, "no 'model' and 'items'")) from None
    except (TypeError, AttributeError, ValueError) as exc:  # items that are not objects, or lack fields
        raise SystemExit(not_a_report(path, f"{type(exc).__name__}: {exc}")) from None
    for item in report["items"]:  # (review 244 #7: a hand-edited call that is not an object was a traceback)
        actual = item.get("actual")
        bad = [actual] if actual is not None and not isinstance(actual, list) else [
            call for call in actual or () if not isinstance(call, dict)]
        if bad:
            shown = json.dumps(bad[0], ensure_ascii=False)[:60]
            raise SystemExit(not_a_report(path, f"item {item.get('id')!r} has the stored call {shown}, not a "
                                                 "{\"name\", \"args\"} object"))
    return report


def main() -> None:
    """Parse the command line, rescore, print one row per category."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", type=Path)
    parser.add_argument("--data", type=Path, help="the BFCL data folder (default: the report's data_dir when it "
                        "exists, else the shared/bfcl folder beside the repo)")
    parser.add_argument("--list", action="store_true", help="print the ids whose verdict changed")
    parser.add_argument("--out", type=Path, help="write the rescored report here (JSON)")
    args = parser.parse_args()
    report = read_report(args.report)
    data = args.data or next((folder for folder in (Path(str(report.get("data_dir") or "-")),
                                                   Path(__file__).resolve().parents[2] / "shared" / "bfcl")
                              if folder.is_dir()), Path("../shared/bfcl"))  # (review 117: only from the repo root)
    try:
        pairs = rescore(report, data)
    except UserError as exc:
        raise SystemExit(f"error: {exc}") from None
    print("| category | items | stored | now | changed |")
    print("|---|---|---|---|---|")
    for category in dict.fromkeys(stored["category"] for stored, _ in pairs):
        rows = [(a, b) for a, b in pairs if a["category"] == category]
        before = sum(a["valid"] for a, _ in rows)
        after = sum(b["valid"] for _, b in rows)
        changed = [a["id"] for a, b in rows if a["valid"] != b["valid"]]
        print(f"| {category} | {len(rows)} | {100 * before / len(rows):.2f} | {100 * after / len(rows):.2f} "
              f"| {len(changed)} |")
        if args.list and changed:
            print("  " + " ".join(changed))
    if args.out:  # (written as toolwire eval bfcl --out writes: a missing folder is made, a failure is one line,
        report = dict(report, items=[b for _, b in pairs])  # review 244 #7)
        try:
            _atomic_write(args.out, json.dumps(report, ensure_ascii=False, indent=1))
        except UserError as exc:
            raise SystemExit(f"error: {exc}") from None


if __name__ == "__main__":
    main()
