"""Review 297 #6: ``model_kwargs={"betas": [...]}`` (LangChain ChatAnthropic's ``betas=``, the SDK's
``beta.messages.create(betas=...)``) is sent as the ``anthropic-beta`` header, merged with the betas toolwire adds
(the Files API's) and the caller's own header, never as a request body field (the Messages API refuses one)."""

from __future__ import annotations

import pytest

from toolwire.errors import UserError
from toolwire.messages import HumanMessage
from toolwire.models.anthropic import FILES_BETA, ChatAnthropic
from toolwire.models.base import ChatRequest

PDF_BY_ID = {"type": "file", "file_id": "file_1", "mime_type": "application/pdf"}


def _body(*messages: object, options: dict | None = None, **kwargs: object) -> dict:
    pytest.importorskip("anthropic")
    model = ChatAnthropic("claude-x", api_key="sk-test", **kwargs)
    return model._lower(ChatRequest(list(messages) or [HumanMessage("hi")], options=options or {}))


def test_model_kwargs_betas_go_in_the_header() -> None:
    body = _body(model_kwargs={"betas": ["context-1m-2025-08-07", "interleaved-thinking-2025-05-14"]})
    assert "betas" not in body and "betas" not in (body.get("extra_body") or {})
    assert body["extra_headers"] == {"anthropic-beta": "context-1m-2025-08-07,interleaved-thinking-2025-05-14"}


def test_the_keyword_and_per_call_betas_too() -> None:
    assert _body(betas=["a-1"])["extra_headers"] == {"anthropic-beta": "a-1"}
    assert _body(options={"betas": "b-2"})["extra_headers"] == {"anthropic-beta": "b-2"}


def test_merged_with_the_callers_header_and_the_files_beta() -> None:
    body = _body(HumanMessage([{"type": "text", "text": "read"}, PDF_BY_ID]),
                 model_kwargs={"betas": ["a-1", "c-3"], "extra_headers": {"Anthropic-Beta": "c-3, b-2", "x": "1"}})
    assert body["extra_headers"] == {"Anthropic-Beta": f"c-3,b-2,a-1,{FILES_BETA}", "x": "1"}


def test_betas_of_the_wrong_kind_are_refused() -> None:
    with pytest.raises(UserError, match="betas"):
        _body(model_kwargs={"betas": [1]})
    with pytest.raises(UserError, match="betas"):
        ChatAnthropic("claude-x", api_key="sk-test", betas=["a-1"], model_kwargs={"betas": ["b-2"]})
