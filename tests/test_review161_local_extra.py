"""Review 161 #1: ``from toolwire.models import ChatLlamaCpp`` without numpy (no ``[local]`` extra) failed with
``No module named 'numpy'``; it now raises the one-sentence UserError naming the ``[local]`` extra, and so do
``toolwire.models.llamacpp`` and ``init_chat_model("local")``.

A missing package is simulated in a child process with ``sys.modules[name] = None`` (the project's venv has them).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from _blocked import run_without

LIBRARY = """
from toolwire.errors import UserError
for how in ("package", "module", "factory"):
    try:
        if how == "package":  # (without numpy the import fails; without llama-cpp-python, making the model)
            from toolwire.models import ChatLlamaCpp
            ChatLlamaCpp(model="qwen2.5-coder-0.5b")
        elif how == "module":
            from toolwire.models.llamacpp import ChatLlamaCpp
            ChatLlamaCpp(model="qwen2.5-coder-0.5b")
        else:
            from toolwire.models import init_chat_model
            init_chat_model("local")
    except UserError as exc:
        print(how, "UserError", exc)
    else:
        print(how, "no error")
"""


@pytest.mark.parametrize(("blocked", "named"), [(("numpy",), "numpy"), (("llama_cpp",), "llama-cpp-python"),
                                                 (("numpy", "llama_cpp"), "llama-cpp-python")])
def test_the_local_model_without_its_extra_is_one_user_error(tmp_path: Path, blocked: tuple[str, ...],
                                                             named: str) -> None:
    done = run_without(blocked, LIBRARY, tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert [line.split(" ", 2)[:2] for line in lines] == [["package", "UserError"], ["module", "UserError"],
                                                         ["factory", "UserError"]], done.stdout
    for line in lines:
        assert f"Local models need {named}, toolwire's [local] extra: run pip install 'llama-cpp-python==" in line


def test_hosted_providers_still_import_without_numpy(tmp_path: Path) -> None:
    done = run_without(("numpy", "llama_cpp"), "from toolwire.models import ChatOpenAI, init_chat_model\nprint('ok')",
                       tmp_path)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


GUARDS = """
import toolwire.models
from toolwire.errors import MissingExtraError, UserError
print("hasattr", hasattr(toolwire.models, "ChatLlamaCpp"))
namespace = {}
exec("from toolwire.models import *", namespace)
print("star", "ChatOpenAI" in namespace)
try:
    from toolwire.models import ChatLlamaCpp
    ChatLlamaCpp(model="qwen2.5-coder-0.5b")
except ImportError as exc:
    print("guard", isinstance(exc, UserError) and isinstance(exc, MissingExtraError), exc)
"""


def test_without_llama_cpp_the_models_package_imports_and_the_import_guard_catches_the_model(tmp_path: Path) -> None:
    """Review 165 #3: with numpy but no llama-cpp-python (an install for hosted providers), ``toolwire.models``
    imports, lists and star-imports as before, and making the model raises an ImportError that is the UserError."""
    done = run_without(("llama_cpp",), GUARDS, tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:2] == ["hasattr True", "star True"], done.stdout
    assert lines[2].startswith("guard True Local models need llama-cpp-python"), done.stdout


def test_without_numpy_the_import_is_an_import_error_naming_the_extra(tmp_path: Path) -> None:
    code = ("try:\n    from toolwire.models import ChatLlamaCpp\nexcept ImportError as exc:\n"
            "    print(type(exc).__name__, exc)\n")
    done = run_without(("numpy",), code, tmp_path)
    assert done.stdout.startswith("MissingExtraError Local models need "), done.stdout + done.stderr


def test_without_numpy_star_imports_and_dir_leave_the_local_model_out(tmp_path: Path) -> None:
    """Review 168 #2: an install for hosted providers has no numpy; ``from toolwire.models import *``, ``dir()`` and
    ``inspect.getmembers`` work there, and naming ``ChatLlamaCpp`` is still the one-sentence error."""
    code = """
import inspect
import toolwire.models
namespace = {}
exec("from toolwire.models import *", namespace)
print("star", "ChatOpenAI" in namespace, "ChatLlamaCpp" in namespace)
print("dir", "ChatLlamaCpp" in dir(toolwire.models), len(inspect.getmembers(toolwire.models)) > 0)
try:
    from toolwire.models import ChatLlamaCpp
except ImportError as exc:
    print("named", type(exc).__name__)
"""
    done = run_without(("numpy", "llama_cpp"), code, tmp_path)
    assert done.stdout.splitlines() == ["star True False", "dir False True", "named MissingExtraError"], (
        done.stdout + done.stderr)
