"""Review 97 (a fresh reviewer checking the docs against behaviour): the fixes that changed code."""

from __future__ import annotations

import enum

import pytest

from toolwire import AIMessage, HumanMessage, ToolExecutor, UserError, tool
from toolwire.chunks import AIMessageChunk
from toolwire.examples.book import get_weather

CALL = {"name": "get_weather", "args": {"city": "Paris"}, "id": "c1"}


# -- 1: a conversation given to ToolExecutor.execute ------------------------------------------------------------------


PIECE = {"name": "get_weather", "args": '{"city": "Paris"}', "id": "c1", "index": 0}


@pytest.mark.parametrize("reply", [AIMessage("", tool_calls=[CALL]), AIMessageChunk("", tool_call_chunks=[PIECE])])
def test_a_conversation_given_to_execute_is_refused_with_what_to_pass(reply: object) -> None:
    executor = ToolExecutor([get_weather])
    with pytest.raises(UserError, match=r"not a list of messages .* pass the reply whose calls should run, such as "
                                        r"messages\[-1\]\."):
        executor.execute([HumanMessage("Como está o clima em Paris?"), reply])
    (answer,) = executor.execute(reply)  # the reply itself still runs
    assert answer.status == "success" and answer.content == "It's always sunny in Paris!"
    assert executor.execute([CALL])[0].status == "success"  # and so does a list of its calls


def test_a_langchain_conversation_given_to_execute_is_refused_too() -> None:
    messages = pytest.importorskip("langchain_core.messages")
    ai = messages.AIMessage("", tool_calls=[CALL])
    with pytest.raises(UserError, match="it holds a LangChain HumanMessage"):
        ToolExecutor([get_weather]).execute([messages.HumanMessage("q"), ai])
    assert ToolExecutor([get_weather]).execute(ai)[0].status == "success"


# -- 2: Enum | str (README) -------------------------------------------------------------------------------------------


def test_an_enum_or_str_parameter_gets_the_text_as_pydantic_reads_it() -> None:
    class Color(enum.Enum):
        RED = "red"

    @tool
    def paint(color: Color | str) -> str:
        """Paint."""
        return repr(color)

    # pydantic's JSON mode (toolwire._schema_json) matches the text exactly as str first: the README says so now
    assert paint.invoke({"color": "red"}) == "'red'"
    assert paint.invoke({"color": "blue"}) == "'blue'"


# -- 6: from_langchain_messages says what to pass instead --------------------------------------------------------------


def test_from_langchain_messages_refuses_with_the_advice_the_other_entry_points_give() -> None:
    messages = pytest.importorskip("langchain_core.messages")
    from toolwire.interop.langchain import from_langchain_messages

    with pytest.raises(UserError, match="Cannot use a LangChain FunctionMessage as a message: it answers OpenAI's "
                                        r"legacy function_call.*send the result as a ToolMessage"):
        from_langchain_messages([messages.FunctionMessage("r", name="f")])
    with pytest.raises(UserError, match="RemoveMessage as a message: it tells LangGraph to delete a message"):
        from_langchain_messages([messages.RemoveMessage(id="m1")])
    with pytest.raises(UserError, match="ChatMessage with the role 'critic' as a message: give it the role"):
        from_langchain_messages([messages.ChatMessage("x", role="critic")])


# -- 3: models pull NAME --path FILE makes the file the model's copy ---------------------------------------------------

GGUF = b"GGUF" + bytes(range(200)) * 3


@pytest.fixture
def fake_model(monkeypatch: pytest.MonkeyPatch, tmp_path):  # type: ignore[no-untyped-def]
    from _llama_fixtures import fake_entry
    from toolwire.models.registry import REGISTRY

    monkeypatch.setenv("TOOLWIRE_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("TOOLWIRE_MODEL_PATH", raising=False)
    made = fake_entry([GGUF], name="review97-model")
    monkeypatch.setitem(REGISTRY, made.name, made)
    return made


def test_pull_with_a_path_links_the_file_so_later_runs_find_it(fake_model, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from typer.testing import CliRunner

    from toolwire.cli_models import app

    mine = tmp_path / "downloads" / "model.gguf"
    mine.parent.mkdir()
    mine.write_bytes(GGUF)
    runner = CliRunner()
    assert runner.invoke(app, ["path", fake_model.name]).exit_code == 1  # not pulled yet
    result = runner.invoke(app, ["pull", fake_model.name, "--path", str(mine), "-q"])
    assert result.exit_code == 0 and result.stdout.strip() == str(mine)
    link = tmp_path / "home" / "models" / fake_model.filename
    assert f"Linked {link} to {mine}" in result.stderr and link.is_symlink() and link.resolve() == mine
    found = runner.invoke(app, ["path", fake_model.name])
    assert found.exit_code == 0 and found.stdout.strip() == str(link)  # (was: "not pulled", exit 1)
    listed = runner.invoke(app, ["list"])
    assert "review97-model" in listed.stdout and "yes" in listed.stdout
    assert mine.read_bytes() == GGUF  # the file stays where it is, untouched
    again = runner.invoke(app, ["pull", fake_model.name, "--path", str(mine), "-q"])
    assert again.exit_code == 0 and "already links to" in again.stderr


def test_a_file_in_the_way_is_kept_and_the_user_told_what_to_do(fake_model, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from typer.testing import CliRunner

    from toolwire.cli_models import app

    mine = tmp_path / "model.gguf"
    mine.write_bytes(GGUF)
    damaged = tmp_path / "home" / "models" / fake_model.filename
    damaged.parent.mkdir(parents=True)
    damaged.write_bytes(b"GGUF broken")
    result = CliRunner().invoke(app, ["pull", fake_model.name, "--path", str(mine), "-q"])
    assert result.exit_code == 0 and result.stdout.strip() == str(mine)
    assert f"{damaged} is in the way and is not the model's file: delete it" in result.stderr
    assert f"TOOLWIRE_MODEL_PATH={mine}" in result.stderr
    assert damaged.read_bytes() == b"GGUF broken" and not damaged.is_symlink()  # nothing deleted
