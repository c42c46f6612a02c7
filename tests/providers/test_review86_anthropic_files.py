"""Anthropic's Files API: a document or image whose source is an uploaded file id needs the
``anthropic-beta: files-api-2025-04-14`` header, which the user had to set by hand (review 86, "known, not fixed");
toolwire now adds it to a request that holds such a block, keeping any beta the user set."""

from __future__ import annotations

import pytest

from toolwire import HumanMessage, ToolMessage
from toolwire.messages import AIMessage
from toolwire.models.anthropic import FILES_BETA, with_files_beta

from .conftest import build_model
from .wire_anthropic import Anthropic
from .wire_servers import Reply, WireServer

PDF_BY_ID = {"type": "file", "file_id": "file_011CNha8iCJcU1wXNR6q4V8w", "mime_type": "application/pdf"}


def test_a_file_id_gets_the_beta_header() -> None:
    with WireServer(Anthropic()) as wire:
        wire.queue(Reply(text="a summary"), Reply(text="plain"))
        model = build_model("anthropic", wire.url)
        reply = model.invoke([HumanMessage([{"type": "text", "text": "Summarise this."}, PDF_BY_ID])])
        model.invoke("no file here")
    assert reply.text == "a summary"
    assert not wire.problems, wire.problems  # (was: a request the API refuses for want of the beta header)
    assert wire.requests[0].headers["anthropic-beta"] == FILES_BETA
    assert "anthropic-beta" not in wire.requests[1].headers


def test_a_file_id_inside_a_tool_result_and_the_users_own_betas() -> None:
    call = {"name": "fetch", "args": {}, "id": "toolu_1", "type": "tool_call"}
    messages = [HumanMessage("Read it."), AIMessage("", tool_calls=[call]),
                ToolMessage([{"type": "text", "text": "here"}, PDF_BY_ID], tool_call_id="toolu_1")]
    with WireServer(Anthropic()) as wire:
        wire.queue(Reply(text="read"))
        model = build_model("anthropic", wire.url,
                            model_kwargs={"extra_headers": {"Anthropic-Beta": "context-1m-2025-08-07"}})
        model.invoke(messages)
    assert not wire.problems, wire.problems
    assert wire.requests[0].headers["anthropic-beta"] == f"context-1m-2025-08-07,{FILES_BETA}"


@pytest.mark.parametrize(("given", "expected"), [
    (None, FILES_BETA),
    ({"anthropic-beta": FILES_BETA}, FILES_BETA),
    ({"anthropic-beta": f"a-1, {FILES_BETA}"}, f"a-1, {FILES_BETA}"),  # already there: left as given
    ({"ANTHROPIC-BETA": "a-1"}, f"a-1,{FILES_BETA}"),
])
def test_with_files_beta_keeps_what_was_set(given: dict[str, str] | None, expected: str) -> None:
    body = {"messages": [{"role": "user", "content": [{"type": "document",
                                                         "source": {"type": "file", "file_id": "f"}}]}]}
    if given is not None:
        body["extra_headers"] = given
    headers = with_files_beta(body)["extra_headers"]
    assert list(headers.values()) == [expected]
    plain = {"messages": [{"role": "user", "content": "hi"}], "extra_headers": {"x": "1"}}
    assert with_files_beta(plain) is plain
