"""Review 98 (a skeptic reading the thirty-eighth session's diff): fixes outside the Anthropic lowering (those are in
``tests/providers/test_anthropic_strict.py``) and the LangChain APIs (``tests/test_langchain_*``)."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolwire import ToolExecutor, UserError
from toolwire.cli_models import app
from toolwire.examples.book import get_weather

GGUF = b"GGUF" + bytes(range(200)) * 3


# -- 7: a link loop in the models folder ------------------------------------------------------------------------------


def test_pull_with_a_path_replaces_a_link_loop_instead_of_crashing(monkeypatch: pytest.MonkeyPatch,
                                                                   tmp_path: Path) -> None:
    from _llama_fixtures import fake_entry
    from toolwire.models.registry import REGISTRY

    monkeypatch.setenv("TOOLWIRE_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("TOOLWIRE_MODEL_PATH", raising=False)
    entry = fake_entry([GGUF], name="review98-model")
    monkeypatch.setitem(REGISTRY, entry.name, entry)
    folder = tmp_path / "home" / "models"
    folder.mkdir(parents=True)
    (folder / entry.filename).symlink_to(folder / "other.gguf")
    (folder / "other.gguf").symlink_to(folder / entry.filename)  # a -> b -> a
    mine = tmp_path / "model.gguf"
    mine.write_bytes(GGUF)
    result = CliRunner().invoke(app, ["pull", entry.name, "--path", str(mine), "-q"])
    assert result.exit_code == 0, result.output  # (was: a RuntimeError traceback from Path.resolve)
    assert (folder / entry.filename).resolve() == mine and "Linked" in result.stderr


# -- 8: conversations in the other forms -------------------------------------------------------------------------------


@pytest.mark.parametrize(("conversation", "held"), [
    ([{"role": "user", "content": "q"}], "a {'role': 'user', ...} message"),
    ([("user", "q")], "the (role, text) pair ('user', 'q')"),
])
def test_a_conversation_of_role_dicts_or_pairs_is_refused_too(conversation: list, held: str) -> None:
    executor = ToolExecutor([get_weather])
    with pytest.raises(UserError, match=r"^execute\(\) takes the model's reply .*it holds " + re.escape(held)):
        executor.execute(conversation)
    with pytest.raises(UserError, match=r"^call\(\) takes the model's reply"):  # named after the method called
        executor.call(conversation)
    with pytest.raises(UserError, match=r"^call\(\) takes"):
        asyncio.run(executor.acall(conversation))
    call = {"name": "get_weather", "args": {"city": "Paris"}, "id": "c1", "type": "tool_call"}
    assert executor.execute([call])[0].status == "success"  # a list of calls still runs
    assert executor.execute((call,))[0].status == "success"


# -- 3: an edited copy of a reply that kept its provider blocks ----------------------------------------------------


ORIGINAL, EDITED = "My card is 4111-1111", "My card is [REDACTED]"


def test_an_edited_claude_reply_sends_its_edit_and_keeps_the_thinking_blocks() -> None:
    from toolwire import AIMessage, HumanMessage
    from toolwire.models.lowering.anthropic import lower_messages

    blocks = [{"type": "thinking", "thinking": "hmm", "signature": "sig"}, {"type": "text", "text": ORIGINAL}]
    reply = AIMessage(ORIGINAL, provider_data={"anthropic": {"content": blocks}})
    for message, text in ((reply, ORIGINAL), (reply.model_copy(update={"content": EDITED}), EDITED),
                          (reply.copy(content=EDITED), EDITED)):
        sent = lower_messages([HumanMessage("q"), message, HumanMessage("next")])[1][1]["content"]
        assert sent == [blocks[0], {"type": "text", "text": text}]
        assert ORIGINAL not in str(sent) or text == ORIGINAL


def test_an_edited_responses_reply_says_its_edit_in_the_kept_message_item() -> None:
    from toolwire import AIMessage
    from toolwire.models.lowering._openai_turns import responses_turn_items

    message_item = {"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
                    "content": [{"type": "output_text", "text": ORIGINAL, "annotations": []}]}
    kept = {"openai": {"reasoning": [{"type": "reasoning", "id": "rs_1", "summary": []}],
                       "output": [{"type": "reasoning", "index": 0}, message_item]}}
    reply = AIMessage(ORIGINAL, provider_data=kept)
    assert responses_turn_items(reply)[1] == message_item
    items = responses_turn_items(reply.model_copy(update={"content": EDITED}))
    assert [i.get("id") for i in items] == ["rs_1", "msg_1"]  # the reasoning item still followed by its message
    assert items[1]["content"] == [{"type": "output_text", "text": EDITED, "annotations": []}]
    assert ORIGINAL not in str(items)


def test_an_edited_gemini_reply_replaces_its_text_parts_and_keeps_the_signed_call() -> None:
    from toolwire import AIMessage
    from toolwire.models.lowering.gemini import lower_messages

    parts = [{"text": "thinking...", "thought": True}, {"text": ORIGINAL},
             {"function_call": {"name": "get_weather", "args": {"city": "Paris"}}, "thought_signature": "c2ln"}]
    reply = AIMessage(ORIGINAL, tool_calls=[{"name": "get_weather", "args": {"city": "Paris"}, "id": "c1"}],
                      provider_data={"gemini": {"parts": parts}})
    edited = reply.model_copy(update={"content": EDITED})
    sent = lower_messages([edited])[1][0]["parts"]
    assert ORIGINAL not in str(sent) and EDITED in str(sent)
    assert sent[0].get("thought") is True and "thought_signature" in sent[-1]  # thoughts and the signed call kept
    assert str(lower_messages([reply])[1][0]["parts"]).count(ORIGINAL) == 1  # an unedited reply: as kept


# -- 9: strict-mode warnings at the bind line, once (OpenAI too) -------------------------------------------------------


def test_openai_strict_warnings_come_at_the_bind_line_and_not_again_at_the_call_or_in_an_agent() -> None:
    import warnings

    providers = pytest.importorskip("providers.conftest")
    from providers.wire_servers import Reply, WireServer
    from toolwire import Agent, tool
    from toolwire.models.lowering.openai import StrictSchemaWarning

    @tool
    def loose(d: dict[str, int]) -> str:
        """Loose."""
        return "ok"

    with WireServer(providers.ADAPTERS["openai-chat"]()) as wire:
        wire.queue(Reply(text="a"), Reply(text="b"))
        with pytest.warns(StrictSchemaWarning, match="Tool 'loose' cannot use OpenAI strict mode") as caught:
            bound = providers.build_model("openai-chat", wire.url).bind_tools([loose], strict=True)
        assert caught[0].filename == __file__ and len(caught) == 1
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            bound.invoke("x")
            Agent(bound, [loose]).invoke("y")  # the Agent binds the same tools again: nothing new to say
    assert not wire.problems
