"""Review 304 #3: a toolwire-style ``cached_tokens`` given in ``usage_metadata=`` is read as ``usage=`` reads it: a
None left out, a whole number kept as an int, anything else refused with a UserError; the same dict given as both
keywords is accepted."""

import pytest

from toolwire.chunks import AIMessageChunk
from toolwire.errors import UserError
from toolwire.messages import AIMessage

BASE = {"input_tokens": 10, "output_tokens": 2}


@pytest.mark.parametrize("cls", [AIMessage, AIMessageChunk])
@pytest.mark.parametrize("cached", [None, 0, 4, 4.0])
def test_usage_metadata_reads_cached_tokens_as_usage_does(cls, cached):
    usage = {**BASE, "cached_tokens": cached}
    by_usage = cls("x", usage=dict(usage))
    by_metadata = cls("x", usage_metadata=dict(usage))
    assert by_metadata.usage == by_usage.usage
    if cached is not None:
        assert type(by_metadata.usage["cached_tokens"]) is int
    assert cls("x", usage=dict(usage), usage_metadata=dict(usage)).usage == by_usage.usage


@pytest.mark.parametrize("cls", [AIMessage, AIMessageChunk])
@pytest.mark.parametrize("bad", [-5, "junk", 2.5, True])
def test_a_bad_cached_tokens_is_refused(cls, bad):
    usage = {**BASE, "cached_tokens": bad}
    for keyword in ("usage", "usage_metadata"):
        with pytest.raises(UserError, match=r"cached_tokens .*not a whole number of tokens"):
            cls("x", **{keyword: dict(usage)})


def test_cache_read_wins_over_cached_tokens():
    usage = {**BASE, "cached_tokens": 1, "input_token_details": {"cache_read": 3}}
    assert AIMessage("x", usage_metadata=usage).usage == AIMessage("x", usage=usage).usage
    assert AIMessage("x", usage_metadata=usage).usage["cached_tokens"] == 3
