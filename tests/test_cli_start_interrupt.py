"""A Ctrl-C while the ``toolwire`` command still imports (review 293 #2): one line and exit code 130, as after
start-up, never a traceback from deep in an import; a SIGINT that the parent set to be ignored stays ignored."""

from __future__ import annotations

import subprocess
import sys
import textwrap

_RUN = textwrap.dedent("""
    import os, signal, sys

    class CtrlCWhileImporting:  # a SIGINT as the toolwire package starts to import (the first second of a real run)
        def find_spec(self, name, path=None, target=None):
            if name == "toolwire":
                sys.meta_path.remove(self)
                os.kill(os.getpid(), signal.SIGINT)
            return None

    if sys.argv[1] == "ignored":
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    sys.meta_path.insert(0, CtrlCWhileImporting())
    sys.argv = ["toolwire", "--help"]
    from _toolwire_cli import main
    main()
""")


def _run(mode: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", _RUN, mode], capture_output=True, text=True, timeout=120)


def test_a_ctrl_c_while_the_command_imports_is_one_line_and_exit_code_130() -> None:
    done = _run("default")
    assert (done.returncode, done.stderr, done.stdout) == (130, "error: interrupted.\n", "")


def test_a_sigint_the_parent_ignores_is_still_ignored_while_the_command_imports() -> None:
    done = _run("ignored")
    assert done.returncode == 0, done.stderr
    assert "Usage: toolwire" in done.stdout


def test_the_console_script_is_the_guarded_entry_point() -> None:
    from importlib.metadata import entry_points

    (script,) = [point for point in entry_points(group="console_scripts") if point.name == "toolwire"]
    assert script.value == "_toolwire_cli:main"


_WHILE_TYPER_BUILDS = textwrap.dedent("""
    import os, signal, sys
    import typer.main

    built = typer.main.get_command

    def get_command(app):  # a Ctrl-C after the import, while typer builds the commands (review 327 #1)
        os.kill(os.getpid(), signal.SIGINT)
        return built(app)

    typer.main.get_command = get_command
    sys.argv = ["toolwire", "--help"]
    from _toolwire_cli import main
    main()
""")


def test_a_ctrl_c_while_typer_builds_the_commands_is_one_line_and_exit_code_130() -> None:
    done = subprocess.run([sys.executable, "-c", _WHILE_TYPER_BUILDS], capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stderr, done.stdout) == (130, "error: interrupted.\n", "")
