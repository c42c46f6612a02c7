"""Review 161 #1: ``from toolwire.models import ChatLlamaCpp`` without numpy (no ``[local]`` extra) failed with
``No module named 'numpy'``; it now raises the one-sentence UserError naming the ``[local]`` extra, and so do
``toolwire.models.llamacpp`` and ``init_chat_model("local")``.

A missing package is simulated in a child process with ``sys.modules[name] = None`` (the project's venv has them).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SRC = str(Path(__file__).resolve().parents[1] / "src")


def run_without(blocked: tuple[str, ...], code: str, home: Path) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter where the modules ``blocked`` cannot be imported."""
    prelude = f"import sys\nfor _name in {blocked!r}:\n    sys.modules[_name] = None\n"
    env = {**os.environ, "TOOLWIRE_HOME": str(home), "PYTHONPATH": SRC, "COLUMNS": "200"}
    env.pop("TOOLWIRE_MODEL_PATH", None)
    return subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code)], capture_output=True, text=True,
                          env=env, timeout=120, check=False)


LIBRARY = """
from toolwire.errors import UserError
for how in ("package", "module", "factory"):
    try:
        if how == "package":
            from toolwire.models import ChatLlamaCpp
        elif how == "module":
            from toolwire.models.llamacpp import ChatLlamaCpp
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
