"""Review 208: the default thread count is held to :data:`MOST_THREADS` like a given one, and the advice for too many
names a count that is taken (#2); ``--tools nsp/tools.py`` of a namespace package (no ``__init__.py``) whose relative
import fails is told to pass ``--tools nsp.tools`` when that name imports it (#6)."""

from __future__ import annotations

import os
import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests._namespace_packages import fresh_namespace, namespace_package

from toolwire.cli_tools import load_tools
from toolwire.errors import UserError
from toolwire.models import _loaded
from toolwire.models._threads import MOST_THREADS, check_n_threads, default_n_threads

# -- #2: threads on a host with more cores than ggml's bound ---------------------------------------------------------


@pytest.mark.parametrize(("cores", "expected"), [(1024, MOST_THREADS), (513, MOST_THREADS), (512, 512), (2, 2),
                                                 (None, 1)])
def test_the_default_is_all_cores_up_to_the_most(monkeypatch: pytest.MonkeyPatch, cores: int | None,
                                                 expected: int) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: cores)
    assert default_n_threads() == expected


def test_load_model_hands_llama_cpp_at_most_the_most_threads_by_default(monkeypatch: pytest.MonkeyPatch,
                                                                       tmp_path: Path) -> None:
    """A host of 1024 cores gave llama.cpp 1024 threads by default while ``n_threads=1024`` was refused."""
    monkeypatch.setattr(os, "cpu_count", lambda: 1024)
    monkeypatch.setattr(_loaded, "_llama_cpp", lambda: object())
    given: list[int] = []

    def llama(llama_cpp: Any, path: Path, n_ctx: int, threads: int, n_batch: int, verbose: bool) -> Any:
        given.append(threads)
        raise UserError("stop here")

    monkeypatch.setattr(_loaded, "_llama", llama)
    model = tmp_path / f"m{uuid.uuid4().hex[:8]}.gguf"
    model.write_bytes(b"not a model")
    with pytest.raises(UserError, match="stop here"):
        _loaded.load_model(model, n_ctx=512)
    with pytest.raises(UserError, match="stop here"):
        _loaded.load_model(model, n_ctx=512, n_threads=7)
    assert given == [MOST_THREADS, 7]


def test_the_advice_for_too_many_threads_names_a_count_that_is_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: 1024)
    with pytest.raises(UserError) as info:
        check_n_threads(1024)
    text = str(info.value)
    advised = [int(n) for n in re.findall(r"pass n_threads=(\d+)", text)]
    assert advised == [MOST_THREADS] and "1024 cores here" in text and "\n" not in text
    assert "can run a model on" not in text  # (1024 did run: review 208 #2; only far more aborted)
    assert check_n_threads(advised[0]) == MOST_THREADS  # taken, and no warning: fewer than the cores
    with pytest.raises(UserError, match=r"such as 512, the most, with 1024 cores here"):
        check_n_threads(0)


def test_on_a_host_of_fewer_cores_the_advice_is_the_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    with pytest.raises(UserError, match=r"^n_threads=513 is more CPU threads than toolwire lets llama\.cpp use \(512 "
                                        r"at most, ggml's own bound\): pass n_threads=2 \(the cores here\) or fewer"):
        check_n_threads(513)


# -- #6: a module of a namespace package whose relative import fails -------------------------------------------------


@pytest.fixture
def namespace(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    yield from fresh_namespace(monkeypatch, "nsp208")


def test_a_namespace_package_file_is_told_to_pass_the_module_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  namespace: str) -> None:
    namespace_package(tmp_path, namespace)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UserError) as caught:
        load_tools(f"{namespace}/tools.py")
    text = str(caught.value)
    assert f"{namespace}/tools.py is a module of a package, which loads by its module name: pass --tools " \
           f"{namespace}.tools, then try again." in text and "fix the code there" not in text
    assert "\n" not in text
    tools = load_tools(f"{namespace}.tools")  # (what the advice says: it loads)
    assert [t.name for t in tools] == ["nst"] and tools[0].func(1) == f"{namespace}.util"


def test_a_namespace_package_two_levels_down_is_named_from_the_current_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, namespace: str) -> None:
    namespace_package(tmp_path / namespace, "inner")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UserError, match=rf"pass --tools {namespace}\.inner\.tools, then try again\.$"):
        load_tools(f"{namespace}/inner/tools.py")


def test_no_module_name_is_advised_when_it_does_not_import_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                    namespace: str) -> None:
    """The folder that holds the namespace package is neither the current one nor on the import path (nor under a
    folder that is): ``--tools nsp.tools`` from here would fail, so the advice names the folder to run it from, as a
    regular package's does (review 218 #5: it said "fix the code there")."""
    namespace_package(tmp_path / "elsewhere", namespace)
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    with pytest.raises(UserError) as caught:
        load_tools(f"../elsewhere/{namespace}/tools.py")
    assert "fix the code there" not in str(caught.value)
    folder = (tmp_path / "elsewhere").resolve()
    assert str(caught.value).endswith(f"pass --tools {namespace}.tools (from the folder {folder}, which holds the "
                                      "package), then try again.")


def test_a_namespace_package_under_a_plain_folder_is_named_from_the_current_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, namespace: str) -> None:
    """``elsewhere/nsp/tools.py``: ``elsewhere`` is a namespace package too, so ``elsewhere.nsp.tools`` loads it."""
    namespace_package(tmp_path / "elsewhere", namespace)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UserError, match=rf"pass --tools elsewhere\.{namespace}\.tools, then try again\.$"):
        load_tools(f"elsewhere/{namespace}/tools.py")


def test_no_module_name_is_advised_when_another_package_has_that_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                      namespace: str) -> None:
    """``json/tools.py`` here: ``import json.tools`` looks in the standard library's json, not in this folder."""
    namespace_package(tmp_path, "json")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UserError) as caught:
        load_tools("json/tools.py")
    assert "fix the code there" in str(caught.value) and "pass --tools" not in str(caught.value)
