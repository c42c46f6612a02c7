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
