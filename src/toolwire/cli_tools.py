"""The tools the ``toolwire`` command runs: the book's three by default, or those of the Python files and modules
given with ``--tools`` (:func:`load_tools`, also used by ``toolwire mcp serve``). A tools file is the user's own code
and runs with the user's rights; toolwire never imports anything a model names."""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.machinery
import importlib.util
import inspect
import keyword
import os
import re
import sys
import sysconfig
import traceback
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

from toolwire._cli_tool_files import DATA_SUFFIXES, SourceOnly, wide_encoding
from toolwire.errors import SchemaError, UserError
from toolwire.models.base import ServerTool
from toolwire.tools import Tool

__all__ = ["default_tools", "load_tools", "same_tool"]


def load_tools(spec: str, *, server_tools: bool = False) -> list[Any]:
    """Load the tools of a Python file or importable module.

    The module's ``TOOLS`` list is used when it has one; otherwise every toolwire :class:`Tool` in it under a public
    name (one imported as ``_helper`` to be used inside another tool is not offered: review 117), and, when there is
    none, every public function defined in it that has a docstring. The current folder goes on ``sys.path``, and a
    file's own folder too, so a module of the user's package and a file that imports its neighbours load (review
    117: the console script's path has neither); after the installed packages, which they cannot shadow. A file
    is imported under its own name when that name imports it (``base_tools.py`` as ``base_tools``), so a tools file
    that imports it shares the one module (review 189 #1); else under a made-up name (``my-tools.py``). While a file
    is imported, its own folder comes before the other folders put there for tools files, so ``import helpers`` gets
    the ``helpers.py`` beside it (review 199 #3).

    Args:
        spec: a path to a ``.py`` file (a file of another name, ``tools.PY``, is read as Python source too, as
            ``python FILE`` runs it: review 308 #7), or a module name (``my_package.tools``).
        server_tools: keep the provider server tools of ``TOOLS`` (``{"type": "web_search_20250305", ...}``,
            as :class:`~toolwire.models.base.ServerTool`), which the model runs itself (``ask``, ``chat``);
            False refuses them (``mcp serve`` can serve only tools it runs).

    Returns:
        The tools, in definition order.

    Raises:
        UserError: the file or module cannot be imported (its import raised any exception, ``BaseException`` s such as
            asyncio's ``CancelledError`` too, but ``KeyboardInterrupt``, which is raised as it is; a file of a package
            whose relative import fails is told to be passed by its module name, ``--tools shop.tools``: review 199 #8;
            of a namespace package too, when that name imports it from here, review 208 #6, or from the folder named,
            review 218 #5; a file saved as UTF-16 or UTF-32 is told to be saved as UTF-8), or imports a module from
            beside it whose name a module another tools file imported from its own folder has (both files named: Python
            holds one module per name), or holds no tools, or its ``TOOLS`` is not a list of tools (one tool alone, a
            dict, a string) or holds an entry the command cannot use (a schema without a function, such as a pydantic
            model class or an OpenAI tool dict; a server tool where ``server_tools`` is False: never dropped without a
            word), or one of the functions the rule above makes a tool cannot be one (a helper taking a
            ``socket.socket``, say): one line naming the file and the function, saying to rename a helper ``_name`` or
            to mark the tools with ``@tool`` / list them in ``TOOLS``. Such a function is not skipped, since the tools
            the command serves would then silently differ from the documented rule. A class of the file is named in
            these messages by the file's name (``helper_type.Connection``), not by the module name toolwire imports the
            file under (review 170 #5).
    """
    try:
        return _load_tools(spec, server_tools=server_tools)
    except UserError as exc:
        text = str(exc)
        plain = _SYNTHETIC_MODULE.sub(lambda _: Path(spec).stem, text)
        if plain == text:
            raise
        raise UserError(plain) from None


_SYNTHETIC_PREFIX = "toolwire_user_tools_"
"""The start of the module name a tools file is imported under (the rest is a digest of its path)."""
_SYNTHETIC_MODULE = re.compile(_SYNTHETIC_PREFIX + r"[0-9a-f]{10}")


def _load_tools(spec: str, *, server_tools: bool) -> list[Any]:
    """:func:`load_tools`, whose messages may name the module a file is imported under."""
    path = Path(spec)
    try:
        _on_import_path(Path.cwd())
        if path.suffix.lower() == ".py" or (path.exists() and not (spec.isidentifier()
                                                                    and (path / "__init__.py").is_file())):
            if not path.is_file():
                raise UserError(f"No tools file at {spec!r}: give a .py file or an importable module name.")
            module = _import_file(path, spec)
        else:
            module = importlib.import_module(spec)
    except UserError:
        raise
    except SchemaError as exc:
        raise UserError(f"A tool in {spec!r} is not valid: {exc}") from None
    except ModuleNotFoundError as exc:
        if exc.name == spec and Path(spec + ".py").is_file():  # `--tools my_tools` for ./my_tools.py
            raise UserError(f"There is no module named {spec!r}, but there is a file {spec + '.py'!r}: pass "
                            f"--tools {spec}.py to load it.") from None
        if exc.name is not None and (spec == exc.name or spec.startswith(exc.name + ".")):
            raise UserError(f"Loading tools from {spec!r} failed: there is no module named {exc.name!r}: give a .py "
                            "file or an importable module name.") from None
        raise UserError(_import_failure(spec, exc, "install the module it imports, or fix the import")) from None
    except Exception as exc:
        wide = wide_encoding(path) if "null bytes" in _message(exc) else ""
        if wide:  # (Notepad's "Unicode", PowerShell 5's `>`: review 308 #7, as `chat` says it of its input)
            raise UserError(f"Loading tools from {spec!r} failed: the file is saved as {wide}, which Python cannot "
                            "read: save the file as UTF-8, then try again.") from None
        dotted = _package_module(path) if isinstance(exc, ImportError) and "relative import" in _message(exc) \
            and path.suffix == ".py" else None
        if dotted is not None:  # (review 199 #8: "fix the code there", for code that is right)
            raise UserError(_import_failure(spec, exc, f"{spec} is a module of a package, which loads by its module "
                                                       f"name: pass --tools {dotted}")) from None
        raise UserError(_import_failure(spec, exc)) from None
    except SystemExit as exc:  # a script's `sys.exit()` at import would end toolwire silently
        raise UserError(f"Loading tools from {spec!r} ran sys.exit({exc.code!r}); put the file's script part "
                        "under `if __name__ == \"__main__\":`.") from None
    except KeyboardInterrupt:  # Ctrl-C while it loads: the command's "interrupted."
        raise
    except BaseException as exc:  # asyncio's CancelledError, trio's Cancelled, GreenletExit (review 156 #8)
        raise UserError(_import_failure(spec, exc)) from None
    from toolwire.models.base import to_tool

    explicit = getattr(module, "TOOLS", None)
    if explicit is not None:
        if isinstance(explicit, str | bytes | Mapping | Tool) or not isinstance(explicit, Iterable):
            # `TOOLS = get_weather` (one tool), a dict, a string, a number: one line, not a TypeError
            raise UserError(f"TOOLS in {spec!r} must be a list of tools, not {type(explicit).__name__}: write "
                            "TOOLS = [my_tool, ...].")
        found = []
        for entry in (entries := list(explicit)):
            label = getattr(entry, "__name__", None) or (entry.get("name") if isinstance(entry, Mapping) else None) \
                or type(entry).__name__
            try:
                converted = to_tool(entry)
            except Exception as exc:
                exc = _named_among(label, exc, [_entry_name(other) for other in entries if other is not entry])
                raise UserError(f"The TOOLS entry {label!r} in {spec!r} cannot be a tool ({_first_sentence(exc)}): "
                                "fix it or take it out of TOOLS.") from None
            if isinstance(converted, ServerTool) and not server_tools:
                raise UserError(f"The TOOLS entry {label!r} in {spec!r} is a provider's server tool, which only that "
                                "provider's model runs: this command cannot serve it; take it out of TOOLS.")
            if not isinstance(converted, Tool | ServerTool):
                raise UserError(f"The TOOLS entry {label!r} in {spec!r} is a schema without a function, which the "
                                "command cannot run: make it a function with @tool, or take it out of TOOLS.")
            found.append(converted)
    else:
        found = [v for name, v in vars(module).items() if isinstance(v, Tool) and not name.startswith("_")]
        if not found:
            documented = {name: v for name, v in vars(module).items() if inspect.isfunction(v)
                          and not name.startswith("_") and v.__module__ == module.__name__ and inspect.getdoc(v)}
            found = [_documented_function_tool(v, name, spec, documented) for name, v in documented.items()]
    unique = {id(t): t for t in found}  # an alias (`weather = get_weather`) is the same tool, counted once
    tools = [t for t in unique.values() if isinstance(t, Tool | ServerTool)]
    if not tools:
        raise UserError(f"{spec!r} defines no tools: decorate functions with @tool or give them docstrings.")
    return tools


def _package_module(path: Path) -> str | None:
    """The module name of the file at ``path`` when it is a module of a package: an ``__init__.py`` beside it
    (``shop.tools`` for ``shop/tools.py``), with ``(from the folder FOLDER, ...)`` added when the folder that holds
    the package is not the current one (the command must run there, or have it on ``PYTHONPATH``); or, for a folder
    without ``__init__.py`` (a namespace package, PEP 420), the name that imports this very file from the import path
    the command uses (the current folder first: :func:`_namespace_module`; review 208 #6), or else its nearest name
    with the folder to run from (:func:`_namespace_elsewhere`; review 218 #5). Else None. Raises nothing."""
    try:
        folder = path.resolve().parent
        if not (folder / "__init__.py").is_file():
            return _namespace_module(path.resolve()) or _namespace_elsewhere(path.resolve())
        parts = [path.stem]
        while (folder / "__init__.py").is_file() and folder.parent != folder:
            parts.insert(0, folder.name)
            folder = folder.parent
        here = folder == Path.cwd().resolve()
    except (OSError, RuntimeError, ValueError):
        return None
    if len(parts) < 2 or not all(part.isidentifier() and not keyword.iskeyword(part) for part in parts):
        return None
    return ".".join(parts) + ("" if here else f" (from the folder {folder}, which holds the package)")


def _namespace_module(file: Path) -> str | None:
    """The dotted name (``nsp.tools`` for ``nsp/tools.py``, the nearest first) under which ``import`` finds ``file``,
    a resolved ``.py`` file whose folder has no ``__init__.py``, from a folder on ``sys.path`` (the current one
    is there: :func:`_load_tools`); None when no such name gives this very file. Runs no code of the user's (not
    even a package's ``__init__.py`` on the way: :func:`_finds`). Raises nothing."""
    try:
        roots = {Path(entry or ".").resolve() for entry in sys.path if isinstance(entry, str)}
        folder, parts = file.parent, [file.stem]
        while folder.parent != folder:
            parts.insert(0, folder.name)
            folder = folder.parent
            if not all(part.isidentifier() and not keyword.iskeyword(part) for part in parts):
                return None
            if folder in roots and _finds(parts, file):
                return ".".join(parts)
    except (OSError, RuntimeError, ValueError):
        return None
    return None


def _namespace_elsewhere(file: Path) -> str | None:
    """For ``file`` (a resolved ``.py`` file whose folder has no ``__init__.py``) in a folder that no folder on
    ``sys.path`` imports it from: its nearest dotted name (``nsp.tools`` for ``nsp/tools.py``) with ``(from the folder
    FOLDER, which holds the package)``, as a regular package's (review 218 #5); None when those parts are not names,
    when ``FOLDER`` is the current one, or when the top name is a module or regular package found elsewhere (the
    standard library's ``json``), which ``import`` takes over this folder. Runs no code of the user's. Raises
    nothing."""
    try:
        parts, holder = [file.parent.name, file.stem], file.parent.parent
        if holder == file.parent or holder == Path.cwd().resolve() or not all(
                part.isidentifier() and not keyword.iskeyword(part) for part in parts):
            return None
        found = _where(parts[0], None)
        if found is not None and (found[0] is not None or found[1] is None):  # (only a namespace package joins it)
            return None
    except Exception:  # (a finder that fails: no advice rather than a wrong one)
        return None
    return ".".join(parts) + f" (from the folder {holder}, which holds the package)"


def _finds(parts: list[str], file: Path) -> bool:
    """Whether ``import`` of the module ``".".join(parts)`` would load ``file``: each level looked up as the import
    system does (``sys.modules``, then the finders of ``sys.meta_path`` on the parent's ``__path__``), without
    importing any of them. Raises nothing."""
    locations: list[str] | None = None
    for depth in range(1, len(parts) + 1):
        name = ".".join(parts[:depth])
        try:
            found = _where(name, locations)
            if found is None:
                return False
            origin, inner = found
            if depth == len(parts):
                return isinstance(origin, str) and os.path.samefile(origin, file)
            if inner is None:
                return False
            locations = [str(entry) for entry in inner]
        except Exception:  # (a finder or a module's __path__ that fails: no advice rather than a wrong one)
            return False
    return False


def _where(name: str, locations: list[str] | None) -> tuple[Any, Any] | None:
    """Where ``import name`` finds the module ``name`` (its parent's folders ``locations``; None at the top level),
    without importing it: ``(its file or None, its folders or None)``, or None when nothing finds it. Raises what a
    finder raises."""
    module = sys.modules.get(name)
    if module is not None:
        return getattr(module, "__file__", None), getattr(module, "__path__", None)
    try:
        for finder in sys.meta_path:
            spec = finder.find_spec(name, locations, None) if hasattr(finder, "find_spec") else None
            if spec is not None:
                return (spec.origin if spec.has_location else None), spec.submodule_search_locations
    except KeyError:  # (a namespace package below the top level: its _NamespacePath asks sys.modules for the parent,
        last = name.rpartition(".")[2]  # so its folders are listed here as Python finds them)
        return None, [entry for entry in (os.path.join(folder, last) for folder in locations or []) if
                      os.path.isdir(entry)]
    return None


def _import_file(path: Path, spec: str) -> ModuleType:
    """The module of the tools file at ``path`` (``spec`` as the user gave it), its folder put on the import path.

    A file the import path reaches under its own name (``base_tools.py`` as ``base_tools``: the same file, not
    another module of that name before it on the path, such as an installed package) is imported under that name,
    or taken from ``sys.modules`` when a tools file loaded before it imported it already: so the file another tools
    file imports (``import base_tools``) is the same module, run once, its state shared (review 189 #1); one that
    this function imported before is run again, as a new module, as any other file is each time it is loaded. Any
    other file (``my-tools.py``, or one whose name another module has) is run under a made-up name
    (``toolwire_user_tools_<digest>``).

    Raises:
        UserError: the file cannot be imported as Python code. What its code raises is raised as it is.
    """
    folder = path.resolve().parent
    _on_import_path(folder)
    importlib.invalidate_caches()  # (a file written since the folder was last looked at)
    with _own_folder_first(folder, path, spec):
        return _run_file(path, spec)


def _run_file(path: Path, spec: str) -> ModuleType:
    """:func:`_import_file`'s import of the file, its folder already on the import path."""
    name = path.stem
    if name.isidentifier() and not keyword.iskeyword(name) and name not in ("__init__", "__main__") \
            and _imports_as(name, path):
        ran = _RUN_HERE.get(name)
        if ran is not None and sys.modules.get(name) is ran:  # loaded again (the file edited since?): run anew, as
            del sys.modules[name]  # a new module (reload would keep the names the file no longer defines)
        _RUN_HERE[name] = module = importlib.import_module(name)
        return module
    digest = hashlib.sha1(os.fsencode(path.resolve())).hexdigest()[:10]  # (a name not UTF-8: review 308 #1)
    mod_spec = importlib.util.spec_from_file_location(_SYNTHETIC_PREFIX + digest, path)
    if mod_spec is None and path.suffix.lower() in DATA_SUFFIXES:  # (review 322 #2: a JSON file run as Python)
        raise UserError(f"{spec!r} is a {path.suffix[1:].upper()} file: --tools takes a Python file of @tool "
                        "functions (such as tools.py) or a module.")
    if mod_spec is None:  # a suffix the import system does not know (`tools.PY`, none): Python source, as `python
        loader = SourceOnly(_SYNTHETIC_PREFIX + digest, os.fspath(path))  # FILE` runs it
        mod_spec = importlib.util.spec_from_file_location(_SYNTHETIC_PREFIX + digest, path, loader=loader)
    if mod_spec is None or mod_spec.loader is None:  # (review 308 #7)
        raise UserError(f"Cannot import {spec!r} as Python code: give a Python source file named like tools.py.")
    module = importlib.util.module_from_spec(mod_spec)
    sys.modules[mod_spec.name] = module
    mod_spec.loader.exec_module(module)
    return module


@contextlib.contextmanager
def _own_folder_first(folder: Path, path: Path, spec: str) -> Iterator[None]:
    """While the tools file at ``path`` (in ``folder``; ``spec`` as the user gave it) is imported: its folder goes
    before the other folders put on the import path for tools files, and a module of a name that one of the files
    beside it has (``helpers`` for ``helpers.py``), which is in ``sys.modules`` from another user folder (that of a
    tools file loaded before), is taken out of ``sys.modules``, so ``import helpers`` finds the ``helpers.py`` beside
    the file, as Python finds it for a script; else the second file silently ran the first one's (review 199 #3).
    Afterwards the folder order and those modules are as before, and the modules the file imported from its folder
    are noted with ``spec`` (:data:`_BROUGHT_BY`).

    Raises:
        UserError: the file imported a module from beside it whose name a module from another folder, imported
            before, already has: Python holds one module per name, so one of the two files would run the other's
            module; the message names both tools files (or the other module's file) and says to rename one module.
            What the file's code raises is raised as it is.
    """
    names = _sibling_modules(folder) - {path.stem}
    elsewhere = {name for name in names if (found := _user_file_of(sys.modules.get(name))) is not None
                 and not _beside(found, folder, name)}
    stashed = {key: module for key, module in sys.modules.items() if key.partition(".")[0] in elsewhere}
    for key in stashed:
        del sys.modules[key]
    text = str(folder)
    others = [i for i, entry in enumerate(sys.path) if entry in _ADDED and entry != text]
    moved = bool(others) and text in sys.path and sys.path.index(text) > others[0]
    if moved:
        sys.path.insert(others[0], text)
    before = set(sys.modules)
    try:
        yield
        clash = sorted(name for name in elsewhere if _beside(_user_file_of(sys.modules.get(name)), folder, name))
        if clash:
            name = clash[0]
            theirs, ours = _user_file_of(stashed[name]), _user_file_of(sys.modules[name])
            other = _BROUGHT_BY.get(name, _shown_path(str(theirs)))
            uses = "use" if Path(other).name == f"{name}.py" else "import"  # (the other file is that module itself)
            raise UserError(
                f"The tools files {other!r} and {spec!r} each {uses} a module named {name!r} from their own folder "
                f"({_shown_path(str(theirs))} and {_shown_path(str(ours))}), but Python holds one module per name, so "
                f"one file would run the other's: rename one of the two modules (or load the files in separate "
                "commands).")
        for key in set(sys.modules) - before:
            top = key.partition(".")[0]
            if key == top and _beside(_user_file_of(sys.modules.get(key)), folder, top):
                _BROUGHT_BY.setdefault(top, spec)
    finally:
        if moved:
            sys.path.remove(text)  # (the first one: the one put there above)
        for key in [key for key in sys.modules if key.partition(".")[0] in elsewhere]:
            del sys.modules[key]  # (this file's own module of that name, when the import failed or clashed)
        sys.modules.update(stashed)


_BROUGHT_BY: dict[str, str] = {}
"""The top-level modules tools files imported from their own folders, by name: the ``--tools`` value of the file."""
_ADDED: set[str] = set()
"""The folders :func:`_on_import_path` put on ``sys.path``."""


def _sibling_modules(folder: Path) -> set[str]:
    """The names a module of ``folder`` has (``x`` for ``x.py`` or for a package ``x/__init__.py``). Raises nothing."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return set()
    names = set()
    for entry in entries:
        name, dot, ext = entry.name.partition(".")
        if not name.isidentifier():
            continue
        try:
            if (dot and ext == "py" and entry.is_file()) or (
                    not dot and entry.is_dir() and os.path.isfile(os.path.join(entry.path, "__init__.py"))):
                names.add(name)
        except OSError:
            continue
    return names


def _user_file_of(module: Any) -> Path | None:
    """The file of ``module`` when it is the user's own code (:func:`_users_file`), else None. Raises nothing."""
    origin = getattr(module, "__file__", None)
    if not isinstance(origin, str) or not _users_file(origin):
        return None
    try:
        return Path(origin).resolve()
    except (OSError, RuntimeError, ValueError):
        return None


def _beside(file: Path | None, folder: Path, name: str) -> bool:
    """Whether ``file`` is the module ``name`` of ``folder`` (``folder/name.py`` or ``folder/name/__init__.py``)."""
    return file is not None and (file == folder / f"{name}.py" or file == folder / name / "__init__.py")


_RUN_HERE: dict[str, ModuleType] = {}
"""The modules :func:`_import_file` imported under their own names, by name (to run them again when loaded again)."""


def _imports_as(name: str, path: Path) -> bool:
    """Whether ``import name`` gives the file at ``path``: the module of that name already imported is that file, or
    the import path finds that file first for it. Imports nothing; raises nothing."""
    module = sys.modules.get(name)
    if module is not None:
        origin = getattr(module, "__file__", None)
    else:
        try:
            found = importlib.util.find_spec(name)
        except (ImportError, ValueError):  # (a module whose __spec__ is None, a broken finder)
            return False
        origin = found.origin if found is not None and found.has_location else None
    if not isinstance(origin, str):
        return False
    try:
        return os.path.samefile(origin, path)
    except (OSError, ValueError):
        return False


def same_tool(one: Any, other: Any) -> bool:
    """Whether two loaded tools are one tool, which two ``--tools`` files may both give (review 189 #1).

    Args:
        one, other: tools :func:`load_tools` returned.

    Returns:
        True for the same object (a tools file that imports another's tool, each given with ``--tools``), a
        :class:`Tool` of the same function with the same definition and options (a plain function in the ``TOOLS``
        of two files), or equal server tools; else False. Raises nothing.
    """
    if one is other:
        return True
    if isinstance(one, Tool) and isinstance(other, Tool):
        return one.func is other.func and all(
            getattr(one, key) == getattr(other, key)
            for key in ("spec", "return_direct", "timeout", "response_format", "handle_errors", "hide_error_details")
        )
    if isinstance(one, ServerTool) and isinstance(other, ServerTool):
        return bool(one == other)
    return False


def _on_import_path(folder: Path) -> None:
    """Put ``folder`` last on ``sys.path`` unless it is there already (as itself, or as ``""`` for the current one):
    after the installed packages, so a file of the user's named like one (``mcp.py``, ``openai.py``) cannot take
    its place when toolwire imports it later (review 121)."""
    text = str(folder)
    if text not in sys.path and not (folder == Path.cwd() and "" in sys.path):
        sys.path.append(text)
        _ADDED.add(text)


def _import_failure(spec: str, exc: BaseException, fix: str = "fix the code there") -> str:
    """The one line of a tools file or module that failed as it was imported: where, in the user's own code (the
    line a ``SyntaxError`` names, else the innermost line of the traceback in a file that is neither Python's, an
    installed package's nor toolwire's), what failed, and what to do (``fix``: "fix the code there"; review 135 #3:
    an error raised at import gave no line of the file at all). Raises nothing."""
    detail = (_message(exc).strip().splitlines() or [""])[0].rstrip(".")
    if isinstance(exc, SyntaxError) and exc.filename and exc.lineno and _users_file(exc.filename):
        detail = (exc.msg or "").rstrip(".")  # (str() adds "(file, line N)", said before it here)
        where = f"{_shown_path(exc.filename)}:{exc.lineno}"
    else:
        own = [frame for frame in traceback.extract_tb(exc.__traceback__) if _users_file(frame.filename)]
        where = f"{_shown_path(own[-1].filename)}:{own[-1].lineno}" if own else None
    what = f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__
    if where is None and isinstance(exc, UnicodeError):  # (no line of the user's ran: an encoding error of the path,
        # in toolwire or Python's import, is not the file's fault: review 308 #1)
        return (f"Loading tools from {spec!r} failed with {what}, in toolwire or Python's import, not in the file: "
                "move or rename the file to a path of ASCII letters, then try again.")
    if where is None:
        return f"Loading tools from {spec!r} failed with {what}: fix the file (or what it imports), then try again."
    return f"Loading tools from {spec!r} failed at {where} with {what}: {fix}, then try again."


def _message(exc: BaseException) -> str:
    """``str(exc)``, or "" when that raises (a library's ``__str__`` reading an attribute never set: review 251 #5,
    an 80-line traceback), so the line says the error's type alone. Raises nothing."""
    try:
        return str(exc)
    except Exception:
        return ""


def _users_file(filename: str) -> bool:
    """Whether ``filename`` (a traceback frame's) is the user's own code: a real file outside Python's standard
    library, the installed packages and toolwire (``<frozen importlib._bootstrap>`` is not a file)."""
    if filename.startswith("<"):
        return False
    path = os.path.abspath(filename)
    own = {sysconfig.get_paths()[name] for name in ("stdlib", "platstdlib", "purelib", "platlib")}
    own.add(str(Path(__file__).resolve().parent))
    return not any(path == root or path.startswith(root.rstrip(os.sep) + os.sep) for root in map(os.path.abspath, own))


def _shown_path(filename: str) -> str:
    """``filename`` relative to the current folder when it is under it (as the user named it), else whole."""
    try:
        return os.path.relpath(filename) if not os.path.relpath(filename).startswith("..") else filename
    except ValueError:  # (another drive, on Windows)
        return filename


def _first_sentence(exc: BaseException) -> str:
    """The first sentence of an error's message, without its final period (pydantic's run over lines); an ellipsis
    ("pass description=... so") neither ends the sentence nor loses its dots (review 170 #6)."""
    text = (_message(exc).strip().splitlines() or [type(exc).__name__])[0]
    head = re.split(r"(?<!\.)\. ", text, maxsplit=1)[0]
    return head[:-1] if head.endswith(".") and not head.endswith("..") else head


def _entry_name(entry: Any) -> Any:
    """The tool name a ``TOOLS`` entry asks for: a tool's name, a function's, a schema's ``name``; None if none."""
    if isinstance(entry, Mapping):
        function = entry.get("function")
        return function.get("name") if isinstance(function, Mapping) else entry.get("name")
    return getattr(entry, "name", None) if isinstance(entry, Tool | ServerTool) else getattr(entry, "__name__", None)


def _named_among(label: Any, exc: Exception, others: Iterable[Any]) -> Exception:
    """``exc``, or for an entry whose name has letters beyond ASCII, the name error again with an ASCII name to
    suggest that the other entries (``others``: their names) do not have (review 286 #7)."""
    from toolwire._tool_checks import NAME_RE, check_name

    if not isinstance(label, str) or label.isascii() or NAME_RE.fullmatch(label):
        return exc
    try:
        check_name(label, taken={name for name in others if isinstance(name, str)})
    except SchemaError as named:
        return named
    return exc


def _documented_function_tool(func: Any, name: str, spec: str, documented: Mapping[str, Any] | None = None) -> Tool:
    """A public function with a docstring as a tool (:func:`load_tools`' rule for a file without @tool);
    ``documented``: the file's functions that become tools this way, by name (the ASCII name suggested for one named
    beyond ASCII is none of theirs: review 286 #7).

    Raises:
        UserError: one line naming the function and the file, and what to do, when it cannot be a tool.
    """
    try:
        return Tool.from_function(func)
    except Exception as exc:
        from toolwire._tool_checks import NAME_RE, ascii_name, free_name

        own = getattr(func, "__name__", name)
        if isinstance(own, str) and not NAME_RE.fullmatch(own):  # (calcular_preço: @tool alone would fail the same
            taken = {getattr(f, "__name__", n) for n, f in (documented or {}).items() if f is not func}  # way, 282 #3)
            given = free_name(ascii_name(own), taken) if len(own) <= 64 else ""
            raise UserError(
                f"The function {name!r} in {spec!r} cannot be a tool under its own name (a tool name is 1 to 64 ASCII "
                "letters, digits, '_' or '-', the rule of the OpenAI and Anthropic APIs): mark the file's tools with "
                f"@tool, this one as @tool(name=\"{given or '...'}\"), or, if it is a helper, rename it to _{name}."
            ) from None
        raise UserError(
            f"The function {name!r} in {spec!r} cannot be a tool ({_first_sentence(exc)}): a file without "
            f"@tool makes every public function with a docstring a tool, so rename a helper to _{name}, "
            "or mark the tools with @tool or list them in TOOLS."
        ) from None


def default_tools() -> list[Tool]:
    """The tools the commands run when given no ``--tools`` and no ``--mcp``: a new list of the book chapter's three
    (``get_weather``, ``calculate``, ``search_web``: :mod:`toolwire.examples.book`)."""
    from toolwire.examples.book import BOOK_TOOLS

    return list(BOOK_TOOLS)
