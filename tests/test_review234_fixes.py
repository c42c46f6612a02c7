"""Review 234: error messages a newcomer hits.

#1: ``tool.run()``/``arun()`` called every leftover keyword "LangChain's", a misspelled ``tool_call_id`` included,
with no close match; #2: ``Agent.invoke(q, temperature=0)`` and a bare ``recursion_limit=`` were refused without
saying what to do; #3: ``init_chat_model`` and ``toolwire ask --model`` gave no close registry name (ChatLlamaCpp
did), and the file name ``toolwire models list`` shows was refused as "no file" without its registry name. No model
is loaded.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolwire import Agent, tool
from toolwire.errors import UserError
from toolwire.testing import ScriptedChatModel


@tool
def double(n: int) -> int:
    """Double n."""
    return n * 2


# -- 1: tool.run()'s unknown keywords -------------------------------------------------------------------------------


def test_run_names_the_close_match_of_a_misspelled_keyword() -> None:
    with pytest.raises(UserError) as info:
        double.run({"n": 2}, tool_call_di="c1")
    text = str(info.value)
    assert "did you mean 'tool_call_id'?" in text and "LangChain" not in text
    with pytest.raises(UserError, match=r"^Unknown Tool\.arun\(\) option 'tool_call_di': did you mean "):
        asyncio.run(double.arun({"n": 2}, tool_call_di="c1"))


def test_run_calls_an_unknown_keyword_unknown_not_langchains() -> None:
    for call in (lambda: double.run({"n": 2}, bogus=1), lambda: asyncio.run(double.arun({"n": 2}, bogus=1))):
        with pytest.raises(UserError) as info:
            call()
        text = str(info.value)
        assert "'bogus'" in text and "LangChain's" not in text and "tool_call_id=" in text, text
        assert text.count(". ") == 0 and text.endswith("."), text  # one sentence


def test_run_still_calls_langchains_own_options_langchains() -> None:
    with pytest.raises(UserError, match=r"^Tool\.run\(\) takes the input .*callbacks is LangChain's"):
        double.run({"n": 2}, callbacks=[object()])
    with pytest.raises(UserError, match=r"run_id is LangChain's"):
        double.run({"n": 2}, run_id="r1")
    assert double.run({"n": 2}, callbacks=None, config={}, verbose=True, color="green") == 4  # empty values pass
    with pytest.raises(UserError, match="'bogus'"):  # an unknown name is named before LangChain's
        double.run({"n": 2}, tags=["t"], bogus=1)


# -- 2: an Agent's run given a model's option or LangGraph's recursion_limit ----------------------------------------


@pytest.fixture
def agent() -> Agent:
    return Agent(ScriptedChatModel(["a"] * 5), [double])


def test_a_generation_option_given_to_invoke_says_to_bind_it_on_the_model(agent: Agent) -> None:
    with pytest.raises(UserError) as info:
        agent.invoke("x", temperature=0)
    text = str(info.value)
    assert "not temperature=" in text and "Agent(model.bind(temperature=0), tools)" in text, text
    with pytest.raises(UserError, match=r"did you mean temperature=\?.*Agent\(model\.bind\(temperature=0\), tools\)"):
        agent.invoke("x", temprature=0)
    with pytest.raises(UserError, match=r"Agent\(model\.bind\(max_tokens=64\), tools\)"):
        asyncio.run(agent.ainvoke("x", max_tokens=64))
    with pytest.raises(UserError, match=r"Agent\(model\.bind\(temperature=0\.2\), tools\)"):
        list(agent.stream("x", temperature=0.2))


def test_a_bare_recursion_limit_gets_the_max_steps_advice(agent: Agent) -> None:
    with pytest.raises(UserError, match=r"recursion_limit=.*Agent\(model, tools, max_steps=2\)"):
        agent.invoke("x", recursion_limit=5)
    with pytest.raises(UserError, match=r"Agent\(model, tools, max_steps=10\)"):
        asyncio.run(agent.ainvoke("x", recursion_limit="many"))


def test_the_agents_own_options_keep_their_advice(agent: Agent) -> None:
    with pytest.raises(UserError, match=r"max_steps is an option of the Agent"):
        agent.invoke("x", max_steps=3)
    with pytest.raises(UserError, match=r"\('max_steps' is an option of Agent\(\.\.\.\)\)"):
        agent.invoke("x", max_step=3)
    with pytest.raises(UserError) as info:
        agent.invoke("x", bogus=1)
    assert "bind" not in str(info.value)


# -- 3: a model name's close registry name on every entry point; a registry model's file name ------------------------


def test_init_chat_model_names_the_close_registry_name() -> None:
    from toolwire.models import init_chat_model

    with pytest.raises(UserError, match=r"did you mean the registry name 'qwen2\.5-coder-1\.5b'\?$"):
        init_chat_model("qwen2.5-coder-1.5")
    with pytest.raises(UserError) as info:
        init_chat_model("nothing-like-it")
    assert "did you mean" not in str(info.value)


def test_the_close_registry_name_is_one_implementation() -> None:
    from toolwire.models.registry import close_registry_name

    assert close_registry_name("qwen2.5-coder-1.5") == "qwen2.5-coder-1.5b"
    assert close_registry_name("Qwen/Qwen2.5-Coder-0.5b") == "qwen2.5-coder-0.5b"
    assert close_registry_name("qwen2.5-coder-0.5b-instruct-q4_k_m.gguf") == "qwen2.5-coder-0.5b"  # its file
    assert close_registry_name("SmolLM2-135M-Instruct.Q4_1.gguf") == "smollm2-135m"
    assert close_registry_name("gpt-9") is None


def test_cli_model_typo_names_the_close_registry_name(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from toolwire.cli import app

    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["ask", "hi", "--model", "qwen2.5-coder-1.5"])
    assert result.exit_code == 1, result.output
    assert "did you mean the registry name 'qwen2.5-coder-1.5b'?" in result.output


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setenv("TOOLWIRE_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    return tmp_path / "home" / "models"


def test_a_registry_models_file_name_is_named_with_its_registry_name(home: Path) -> None:
    from toolwire.models.registry import model_file

    name = "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
    with pytest.raises(UserError) as info:
        model_file(name)
    text = str(info.value)
    assert "registry model 'qwen2.5-coder-0.5b'" in text and str(home) not in text, text
    home.mkdir(parents=True)
    (home / name).write_bytes(b"GGUF")
    with pytest.raises(UserError) as info:
        model_file(name)
    assert "registry model 'qwen2.5-coder-0.5b'" in str(info.value) and str(home / name) in str(info.value)
    with pytest.raises(UserError, match=r"There is no file at nope\.gguf: pass the path"):  # (unchanged)
        model_file("nope.gguf")


def test_cli_given_a_registry_models_file_name_names_its_registry_name(home: Path) -> None:
    from toolwire.cli import app

    result = CliRunner().invoke(app, ["ask", "hi", "--model", "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"])
    assert result.exit_code == 1, result.output
    assert "registry model 'qwen2.5-coder-0.5b'" in result.output, result.output
