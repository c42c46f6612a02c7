"""Review 304 #2: the values of ``input_token_details``/``output_token_details`` are checked as the top-level token
counts are, on ``usage=`` and ``usage_metadata=`` alike: a whole number of 0 or more is kept (as an int), None is
left out, anything else refused with a UserError."""

import pytest

from toolwire.chunks import AIMessageChunk
from toolwire.errors import UserError
from toolwire.messages import AIMessage

BASE = {"input_tokens": 10, "output_tokens": 2}


@pytest.mark.parametrize("cls", [AIMessage, AIMessageChunk])
@pytest.mark.parametrize("keyword", ["usage", "usage_metadata"])
@pytest.mark.parametrize("where", ["input_token_details", "output_token_details"])
def test_none_is_left_out_and_whole_floats_are_ints(cls, keyword, where):
    msg = cls("x", **{keyword: {**BASE, where: {"cache_creation": None, "audio": 3.0, "reasoning": 0}}})
    assert msg.usage[where] == {"audio": 3, "reasoning": 0}
    assert type(msg.usage[where]["audio"]) is int
    msg = cls("x", **{keyword: {**BASE, where: {"cache_creation": None}}})
    assert where not in msg.usage
    msg = cls("x", **{keyword: {**BASE, "input_token_details": {"cache_read": None, "cache_creation": None}}})
    assert msg.usage == {**BASE, "total_tokens": 12}


@pytest.mark.parametrize("cls", [AIMessage, AIMessageChunk])
@pytest.mark.parametrize("keyword", ["usage", "usage_metadata"])
@pytest.mark.parametrize("bad", [2.5, -1, "3", True, [1], {"a": 1}])
def test_a_bad_detail_is_refused_as_a_bad_count_is(cls, keyword, bad):
    with pytest.raises(UserError, match="not a whole number of tokens") as detail:
        cls("x", **{keyword: {**BASE, "input_token_details": {"audio": bad}}})
    assert "audio" in str(detail.value)
    with pytest.raises(UserError, match="not a whole number of tokens"):
        cls("x", **{keyword: {**BASE, "output_token_details": {"reasoning": bad}}})
    with pytest.raises(UserError) as top:
        cls("x", **{keyword: {**BASE, "output_tokens": bad}})
    assert str(top.value).split(" which is ")[1] == str(detail.value).split(" which is ")[1]  # the same wording
    assert str(top.value)[:25] == str(detail.value)[:25]


def test_checked_details_reach_langchain():
    pytest.importorskip("langchain_core")
    from toolwire.interop.langchain import to_langchain_messages

    msg = AIMessage("x", usage={**BASE, "input_token_details": {"cache_read": None, "cache_creation": None,
                                                                "audio": 2.0}})
    assert to_langchain_messages([msg])[0].usage_metadata["input_token_details"] == {"audio": 2}
