"""Review 316 #1: every TypedDict given to ``bind_tools``/``with_structured_output`` (one made per request, say) was
kept for good in ``_schema_compat``'s cache with its rebuilt copy; the cache is emptied past 1,024 entries, as the
other schema caches are."""

from __future__ import annotations

from typing import Annotated

from typing_extensions import TypedDict

from toolwire import _schema_compat
from toolwire._schema_compat import _compat


def test_the_typeddict_cache_is_bounded() -> None:
    for _ in range(1100):
        class Answer(TypedDict):  # (a new class each time, as one made per request; rebuilt: a text description)
            city: Annotated[str, "The city."]

        described = Answer
        rebuilt = _compat(described)
        assert rebuilt is not described and _compat(described) is rebuilt  # (cached while it is kept)
        assert len(_schema_compat._td_cache) <= 1024
