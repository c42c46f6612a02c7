"""Review 304 #4: a usage key toolwire has no field for (a custom model's ``cost_usd``) is kept, as it is, by
``usage=`` and ``usage_metadata=`` alike (as LangChain's ``usage_metadata`` keeps it), so a message made with it
equals itself after its dumps are read back."""

import pytest

from toolwire.chunks import AIMessageChunk
from toolwire.messages import AIMessage, messages_from_dict, messages_to_dict

USAGE = {"input_tokens": 10, "output_tokens": 2, "cost_usd": 3}


@pytest.mark.parametrize("cls", [AIMessage, AIMessageChunk])
def test_usage_and_usage_metadata_keep_it_alike(cls):
    by_usage = cls("x", usage=dict(USAGE))
    assert by_usage.usage == {**USAGE, "total_tokens": 12}
    assert cls("x", usage_metadata=dict(USAGE)).usage == by_usage.usage
    assert cls("x", usage=dict(USAGE), usage_metadata=dict(USAGE)).usage == by_usage.usage


def test_dumps_read_back_equal():
    msg = AIMessage("x", usage=dict(USAGE))
    assert AIMessage(**msg.model_dump()) == msg
    assert messages_from_dict(messages_to_dict([msg]))[0] == msg
    assert messages_from_dict([msg.model_dump()])[0] == msg
    pytest.importorskip("langchain_core")
    from toolwire.interop.langchain import from_langchain_messages, to_langchain_messages

    assert from_langchain_messages(to_langchain_messages([msg]))[0] == msg
    with_cache = AIMessage("x", usage={**USAGE, "cached_tokens": 4, "input_token_details": {"audio": 1}})
    assert AIMessage(**with_cache.model_dump()) == with_cache
