"""Review 304 #5: merging ``additional_kwargs`` stays linear in the pieces for list items that share an ``index`` but
have different ids, and for a text ``index`` key, with the same result as before (LangChain's ``merge_dicts``).
Work is counted (reads of held items' ids, joins of text), not timed."""

import copy
import itertools
import random

import pytest

from toolwire import _kwargs_merge
from toolwire._kwargs_merge import ExtraFields


def _merge(parts):
    fields = ExtraFields()
    for part in parts:
        fields.add(part)
    return fields.merged()


class _CountedId(str):
    """An id that counts how often it is compared."""

    compared = 0

    def __eq__(self, other):
        _CountedId.compared += 1
        return str.__eq__(self, other)

    __hash__ = str.__hash__


def test_items_of_one_index_with_new_ids_are_not_compared_one_by_one():
    n = 1000
    _CountedId.compared = 0
    parts = [{"annotations": [{"index": 0, "id": _CountedId(f"ann_{i}"), "text": "x"}]} for i in range(n)]
    merged = _merge(parts)
    assert [a["id"] for a in merged["annotations"]] == [f"ann_{i}" for i in range(n)]
    assert _CountedId.compared < 5 * n  # (was n * n / 2)


def test_a_text_index_key_is_not_joined_for_every_piece(monkeypatch):
    joins = itertools.count()
    original = _kwargs_merge._Text.value

    def counted(self):
        if len(self.pieces) > 1:
            next(joins)
        return original(self)

    monkeypatch.setattr(_kwargs_merge._Text, "value", counted)
    n = 5000
    merged = _merge([{"index": "ab"}] * n)
    assert merged == {"index": "ab" * n}
    assert next(joins) < 10  # (was one join of all the text so far per piece)
    assert _merge([{"index": "lc_0"}, {"index": "x"}, {"index": "y"}]) == {"index": "lc_0"}
    assert _merge([{"index": "l"}, {"index": "c_"}, {"index": "y"}]) == {"index": "lc_"}
    assert _merge([{"index": ""}, {"index": "lc_"}, {"index": "y"}]) == {"index": "lc_"}


IDS = [None, "", "a", "b", "c", 1, ["l"]]


def _random_parts(rng):
    parts = []
    for _ in range(rng.randint(1, 7)):
        items = []
        for _ in range(rng.randint(0, 3)):
            item = {"index": rng.choice([0, 1, "lc_0", "z"]), "text": rng.choice(["p", "q"])}
            if rng.random() < 0.8:
                item["id"] = rng.choice(IDS)
            if rng.random() < 0.3:
                item["type"] = rng.choice(["t", "u"])
            items.append(item)
        parts.append({"items": items})
    return parts


def test_the_result_is_langchains():
    merge_dicts = pytest.importorskip("langchain_core.utils._merge").merge_dicts
    rng = random.Random(304)
    for _ in range(3000):
        parts = _random_parts(rng)
        before = copy.deepcopy(parts)
        try:
            expected = merge_dicts(*copy.deepcopy(parts))
        except (TypeError, ValueError):
            continue
        assert _merge(parts) == expected, parts
        assert parts == before
