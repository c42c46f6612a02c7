"""Which stored value-check declines does the multi-word rule of ``in_context`` turn into accepted values?

Review 69 had a search query composed from the user's words (``"Copa do Mundo 2022"`` for "a Copa do Mundo de
2022") declined as made up; ``toolwire.models._call_checks.in_context`` now counts a value of two or more words
written with spaces as found when each word is in the conversation. This reads every declined value the stored
reports record (``decoding.made_up_values``, ``"keyword=literal"``), keeps the ones holding a multi-word string, and
says per report and category how many are now found (every multi-word string in them found: the decline would not
happen) and how many still made up, with the ids of the former (to run again with ``bfcl_sample.py --ids``). The
item's question is the context, as BFCL items are single-turn.

``python benchmarks/bfcl_multiword_declines.py REPORT...`` (``.json`` or ``.json.gz``), e.g.
``benchmarks/bfcl-runs/q15-irr28.json.gz benchmarks/bfcl-runs/q05-pair-251.json.gz``.

``--dates`` (first on the command line) does the same for the date rule of the thirty-first session (review 71:
``2025-05-02T09:00`` for "on 2025-05-02 at 09:00", :mod:`toolwire.models._date_values`): it keeps the declined values
holding an ISO date, time or date-time string instead, and judges them with the question's numbers too (the year).
"""

from __future__ import annotations

import ast
import collections
import json
import sys
from pathlib import Path
from typing import Any

from bfcl_declined_values import _items, _leaves  # (the report reader and value walk that script already has)

from toolwire.models._call_checks import context_numbers, context_words, in_context
from toolwire.models._date_values import date_time_in_context


def literal(text: str) -> Any:
    """The value of a ``"keyword=literal"`` record's literal (JSON or Python), else the text itself."""
    for read in (json.loads, ast.literal_eval):
        try:
            return read(text)
        except (ValueError, SyntaxError):
            continue
    return text


def _kept(value: Any, dates: bool) -> bool:
    if not isinstance(value, str):
        return False
    if dates:
        return date_time_in_context(" ".join(value.casefold().split()), "", set()) is not None
    return len(value.split()) >= 2


def main(paths: list[Path], dates: bool = False) -> None:
    """Print the counts per report and category, and the ids whose decline the rule lifts (``dates``: the date
    rule's values rather than multi-word strings)."""
    for path in paths:
        counts: collections.Counter[tuple[str, str]] = collections.Counter()
        lifted: list[str] = []
        for item in _items(path).values():
            words = context_words([item["question"]])
            numbers = context_numbers([item["question"]]) if dates else set()
            for record in (item.get("decoding") or {}).get("made_up_values") or []:
                strings = [v for v in _leaves(literal(record.partition("=")[2])) if _kept(v, dates)]
                if not strings:
                    continue
                found = all(in_context(v, words, numbers) for v in strings)
                counts[(item["category"], "now found" if found else "still made up")] += 1
                if found:
                    lifted.append(f"{item['id']} ({record})")
        print(path.name, dict(sorted(counts.items())))
        for line in lifted:
            print("   ", line)


if __name__ == "__main__":
    with_dates = sys.argv[1:2] == ["--dates"]
    main([Path(arg) for arg in sys.argv[1 + with_dates:]], dates=with_dates)
