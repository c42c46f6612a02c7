"""Which stored value-check declines would a schema's own default lift? A replay without the model.

For every declined value (``made_up_values``) in the given stored BFCL reports (names under ``benchmarks/bfcl-runs``,
without ``.json.gz``), this checks whether the value is now found among the tool schemas' ``default``/``const``
values for the argument it names (``toolwire.models._tool_text.default_values``, read as the value check reads its
context; the record does not name the function, so any offered tool's argument of that name counts). A value that
holds objects is counted when its plain leaves are all found, so the list over-counts; the candidates then need a
run. ``benchmarks/ACCURACY.md`` ("Thirty-fourth session") gives what it showed.

Usage: ``python benchmarks/bfcl_default_declines.py q15-irr28 q05-irr26 ...`` (from the repository root, with
the BFCL data in ``../shared/bfcl``).
"""

from __future__ import annotations

import ast
import gzip
import json
import sys
from pathlib import Path
from typing import Any

from toolwire.evals.bfcl import load_category
from toolwire.models._call_checks import context_numbers, context_words, in_context
from toolwire.models._tool_text import default_values
from toolwire.models.base import to_tool_spec

RUNS = Path(__file__).parent / "bfcl-runs"
CATEGORIES = ("simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance")


def _value(literal: str) -> Any:
    """A declined value's literal as the report writes it (JSON, or a Python literal for pythonic calls)."""
    try:
        return json.loads(literal)
    except ValueError:
        return ast.literal_eval(literal)


def main(names: list[str], data: str = "../shared/bfcl") -> None:
    by_id = {item.id: item for category in CATEGORIES for item in load_category(data, category)}
    for name in names:
        with gzip.open(RUNS / f"{name}.json.gz", "rt") as f:
            items = json.load(f)["items"]
        declined = lifted = 0
        for report in items:
            for made_up in (report.get("decoding") or {}).get("made_up_values") or []:
                declined += 1
                specs = [to_tool_spec(t) for t in by_id[report["id"]].toolset().tools]
                key, literal = made_up.split("=", 1)  # (the record names no function: any tool's key counts)
                defaults = [text for args in default_values(specs).values() for text in args.get(key, ())]
                value = _value(literal)
                leaves = [v for v in (value if isinstance(value, list) else [value]) if not isinstance(v, dict | list)]
                words, numbers = context_words(defaults), context_numbers(defaults)
                if defaults and all(in_context(leaf, words, numbers) for leaf in leaves):
                    lifted += 1
                    print(f"  {name} {report['id']} right before: {report['valid']} {made_up} defaults {defaults[:6]}")
        print(f"{name}: {declined} declined values, {lifted} now found among the defaults")


if __name__ == "__main__":
    main(sys.argv[1:])
