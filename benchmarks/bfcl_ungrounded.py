"""List the items of finished BFCL reports whose calls hold a value the conversation does not hold.

``min_value_probability`` (``toolwire.models._call_checks``) can only decline a call with such a value, so
with greedy decoding these are the only items whose replies a value bar can change: running just them
with the bar on, and taking the other items' verdicts from the full run, gives the full categories'
figures (the same rule of "the only items that can change" that ``bfcl_sample.py --changed`` uses for
prompt changes). The test is the implementation's own (``in_context``), with the same context
(``conversation_texts`` of the item's messages).

Usage: ``python benchmarks/bfcl_ungrounded.py ../shared/bfcl REPORT.json.gz [PATCH.json.gz ...] > ids.txt``
(later reports replace earlier ones item by item, as ``bfcl_diff.py --patch`` does); then
``python benchmarks/bfcl_sample.py ../shared/bfcl /tmp/ung --ids ids.txt``.
"""

from __future__ import annotations

import gzip
import json
import sys
from collections.abc import Iterator

from toolwire.evals.bfcl import load_category
from toolwire.models._call_checks import _leaves, context_numbers, context_words, conversation_texts, in_context

CATEGORIES = ("simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance")


def ungrounded(data: str, items: dict[str, dict],
               categories: tuple[str, ...] = CATEGORIES) -> Iterator[tuple[str, str]]:
    """``(category, id)`` of each of ``items`` (a report's items by id) whose calls hold a value the item's
    conversation does not, in the data's order."""
    for category in categories:
        for item in load_category(data, category):
            done = items.get(item.id)
            if done is None or not done["actual"]:
                continue
            context = conversation_texts(item.messages())
            words, numbers = context_words(context), context_numbers(context)
            if any(not in_context(leaf, words, numbers)
                   for call in done["actual"] for leaf in _leaves(call["args"])):
                yield category, item.id


def main(data: str, reports: list[str]) -> None:
    """Print the ids, one per line (and a count per category on stderr)."""
    items: dict[str, dict] = {}
    for path in reports:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8") as handle:
            items.update({x["id"]: x for x in json.load(handle)["items"]})
    counts: dict[str, int] = {}
    for category, item_id in ungrounded(data, items):
        print(item_id)
        counts[category] = counts.get(category, 0) + 1
    print(counts, file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
