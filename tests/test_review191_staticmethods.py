"""``@staticmethod`` above ``@tool`` read right after a reload and without a source file (review 191 #2, #3)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

import pytest

from toolwire import _staticmethods

STATIC = '''from toolwire import tool
class K:
    @staticmethod
    @tool
    def run(self, x: int) -> int:
        "Echo x."
        return x
'''
METHOD = '''from toolwire import tool
class K:
    @tool
    def run(self, x: int) -> int:
        "Echo x."
        return x
'''


def _params(module: ModuleType) -> list[str]:
    held = module.K.__dict__["run"]
    return sorted(getattr(held, "__func__", held).spec.parameters["properties"])


@pytest.mark.parametrize("from_source", [False, True], ids=["bytecode", "source"])
@pytest.mark.parametrize(("first", "second", "after"), [(STATIC, METHOD, ["x"]), (METHOD, STATIC, ["self", "x"])],
                         ids=["static-removed", "static-added"])
def test_a_reloaded_module_is_read_as_it_now_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, from_source: bool,
                                                first: str, second: str, after: list[str]) -> None:
    if from_source:  # (the source path alone: its cached lines must be checked against the edited file)
        monkeypatch.setattr(_staticmethods, "_static_in_bytecode", lambda target: None)
    name = f"review191_reload_{'src' if from_source else 'code'}_{len(first)}"
    path = tmp_path / f"{name}.py"
    path.write_text(first)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    try:
        module = importlib.import_module(name)
        assert _params(module) == (["self", "x"] if first is STATIC else ["x"])
        path.write_text(second)
        module = importlib.reload(module)
        assert _params(module) == after
        if after == ["x"]:
            assert module.K().run.invoke({"x": 3}) == 3
        else:
            assert module.K.run.invoke({"self": 1, "x": 3}) == 3
    finally:
        sys.modules.pop(name, None)


NO_SOURCE = '''
import builtins
from toolwire import tool
class Text:
    @staticmethod
    @tool
    def shout(self: str) -> str:
        """Upper-case a text."""
        return self.upper()

    @builtins.staticmethod  # a comment
    @tool(
        name="whisper",
    )
    def low(cls: str) -> str:
        """Lower-case a text."""
        return cls.lower()

    @tool
    def echo(self, text: str) -> str:
        """Echo a text."""
        return text
'''


def test_staticmethod_above_tool_without_a_source_file_keeps_its_first_argument() -> None:
    space: dict[str, object] = {"__name__": "review191_no_source"}
    exec(compile(NO_SOURCE, "<cell-review191>", "exec"), space)
    text = space["Text"]
    assert sorted(text.shout.spec.parameters["properties"]) == ["self"]  # type: ignore[attr-defined]
    assert text.shout.invoke({"self": "hi"}) == "HI"  # type: ignore[attr-defined]
    assert sorted(text.low.spec.parameters["properties"]) == ["cls"]  # type: ignore[attr-defined]
    assert text.low.invoke({"cls": "HI"}) == "hi"  # type: ignore[attr-defined]
    assert sorted(text.__dict__["echo"].spec.parameters["properties"]) == ["text"]  # type: ignore[attr-defined]
    assert text().echo.invoke({"text": "x"}) == "x"  # type: ignore[operator]
