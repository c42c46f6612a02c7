"""Checking a pulled GGUF file: its sha256 (1 MiB reads, a rich progress bar on a terminal's stderr, plain lines on
another), and the sidecar record that vouches for it while its size and mtime are unchanged, so a 1 GB file is not
hashed again at every load.

Part of :mod:`toolwire.models.pull`, which re-exports :func:`sha256_file`, :func:`verify_file` and
:func:`pulled_state`.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from toolwire.errors import UserError
from toolwire.models.registry import ModelEntry, models_dir

__all__ = ["CHUNK", "known_sha256", "link_local_copy", "pulled_state", "sha256_file", "verify_file", "vouched_sha256",
           "write_sidecar"]

CHUNK = 1 << 20  # bytes per read while copying and hashing


# -- progress --------------------------------------------------------------------------------------


class _Progress:
    """Progress of a download or a hash, in bytes: a rich progress bar when standard error is a terminal, else plain
    lines (review 251 #6: a bar drawn into a CI log wrapped, its size cut), as ``toolwire eval bfcl`` writes them: one
    at the start, one at most every ``every`` seconds, and one at the end (``Verifying x.gguf: 100% (491.4 of 491.4
    MB)``); nothing when not ``enabled``. ``clock``: a monotonic clock in seconds (a parameter for tests)."""

    def __init__(self, enabled: bool, every: float = 30.0, clock: Callable[[], float] = time.monotonic) -> None:
        self._bar: Any = None
        self._task: Any = None
        self._lines: _Lines | None = None
        if enabled and not _stderr_is_terminal():
            self._lines = _Lines(every, clock)
        elif enabled:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                DownloadColumn,
                Progress,
                TextColumn,
                TimeRemainingColumn,
                TransferSpeedColumn,
            )

            self._bar = Progress(TextColumn("{task.description}"), BarColumn(), DownloadColumn(),
                                 TransferSpeedColumn(), TimeRemainingColumn(),
                                 console=Console(stderr=True), transient=False)

    def start(self, description: str, total: int) -> None:
        if self._lines is not None:
            self._lines.start(description, total)
        if self._bar is None:
            return
        if self._task is None:
            self._bar.start()
            self._task = self._bar.add_task(description, total=total)
        else:
            self._bar.reset(self._task, description=description, total=total)

    def set(self, completed: int, description: str | None = None) -> None:
        if self._lines is not None:
            self._lines.set(completed, description)
        if self._task is not None:
            self._bar.update(self._task, completed=completed,
                             **({"description": description} if description else {}))

    def advance(self, n: int) -> None:
        if self._lines is not None:
            self._lines.set(self._lines.done + n)
        if self._task is not None:
            self._bar.advance(self._task, n)

    def stop(self) -> None:
        if self._lines is not None:
            self._lines.end()
        if self._bar is not None and self._task is not None:
            self._bar.stop()
            self._task = None


class _Lines:
    """:class:`_Progress` as plain lines on standard error (see there)."""

    def __init__(self, every: float, clock: Callable[[], float]) -> None:
        self.every, self.clock = every, clock
        self.description: str | None = None
        self.total = self.done = 0
        self.last = 0.0

    def start(self, description: str, total: int) -> None:
        self.end()  # (the step before, a download before its check)
        self.description, self.total, self.done, self.last = description, total, 0, self.clock()
        _default_echo(f"{description} ({_mb(total)} MB)")

    def set(self, done: int, description: str | None = None) -> None:
        self.done = done
        self.description = description or self.description
        if self.description is not None and done < self.total and (now := self.clock()) - self.last >= self.every:
            self.last = now
            _default_echo(self._line())

    def end(self) -> None:
        if self.description is not None:
            _default_echo(self._line())
            self.description = None

    def _line(self) -> str:
        share = f"{100 * self.done // self.total}% " if self.total > 0 else ""
        return f"{self.description}: {share}({_mb(self.done)} of {_mb(self.total)} MB)"


def _mb(size: int) -> str:
    return f"{size / 1e6:.1f}"


def _stderr_is_terminal() -> bool:
    """Whether standard error is a real terminal (whatever ``FORCE_COLOR`` says: a CI log is none)."""
    try:
        return bool(sys.stderr.isatty())
    except (AttributeError, OSError, ValueError):  # (closed, or no stream)
        return False


def _default_echo(line: str) -> None:
    """Write a progress line on standard error; with none (closed at start: ``sys.stderr`` is None), nowhere, not on
    standard output where ``print(file=None)`` writes (review 258 #3: around the path ``models pull`` prints)."""
    if sys.stderr is not None:
        print(line, file=sys.stderr, flush=True)


# -- hashing and the sidecar -----------------------------------------------------------------------


def sha256_file(path: Path, progress: _Progress | None = None) -> str:
    """Return the lowercase hex sha256 of the file at ``path``, read 1 MiB at a time.

    Args:
        path: the file to hash.
        progress: a progress bar advanced by the bytes read, or None.

    Raises:
        OSError: the file cannot be read.
    """
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(CHUNK):
            digest.update(block)
            if progress is not None:
                progress.advance(len(block))
    return digest.hexdigest()


def _sidecar(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


def _fallback_sidecar(path: Path) -> Path:
    key = hashlib.sha1(str(path.resolve()).encode()).hexdigest()[:16]
    return models_dir() / ".verified" / f"{key}.sha256"


def _sidecars(path: Path) -> list[Path]:
    """Where the record of ``path``'s verification is kept: beside it (``<file>.sha256``) only in the models folder,
    which is toolwire's; for a file of the user's elsewhere, under the models folder's ``.verified`` (beside it, it
    would overwrite the ``sha256sum`` file many downloads ship under that name, review 38)."""
    try:
        ours = path.resolve().parent == models_dir().resolve()
        fallback = _fallback_sidecar(path)
    except UserError:  # no home folder: nowhere of toolwire's to keep it
        return []
    return [_sidecar(path), fallback] if ours else [fallback]


def _read_sidecar(path: Path) -> dict[str, Any] | None:
    for side in _sidecars(path):
        try:
            data = json.loads(side.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(data, dict):
            return data
    return None


def write_sidecar(path: Path, digest: str) -> None:
    """Record that ``path`` (as it is now: its size in bytes and ``mtime_ns``) has the sha256 ``digest``, in the
    first sidecar place that can be written (:func:`_sidecars`); a place that cannot be written is skipped.

    Raises:
        OSError: ``path`` cannot be read (``stat``).
    """
    st = path.stat()
    text = json.dumps({"size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": digest})
    for side in _sidecars(path):
        try:
            side.parent.mkdir(parents=True, exist_ok=True)
            tmp = side.with_name(side.name + f".tmp-{os.getpid()}")
            tmp.write_text(text)
            os.replace(tmp, side)
            return
        except OSError:
            continue


def vouched_sha256(path: Path) -> str | None:
    """Return the sha256 (lowercase hex) that the file at ``path``'s verification record gives while the file has not
    changed since (same size in bytes and ``mtime_ns``); None when no record vouches for it (nothing is hashed, so
    this costs a ``stat`` and a small read) or the file cannot be read."""
    try:
        st = path.stat()
    except OSError:
        return None
    side = _read_sidecar(path)
    digest = side.get("sha256") if side else None
    if side and side.get("size") == st.st_size and side.get("mtime_ns") == st.st_mtime_ns \
            and isinstance(digest, str) and len(digest) == 64:
        return digest
    return None


def known_sha256(path: Path) -> str:
    """Return the sha256 (lowercase hex) of the file at ``path``, from its sidecar record when the file has not
    changed since (same size in bytes and ``mtime_ns``), else hashed now (about a second per GB) and recorded.

    Raises:
        OSError: the file cannot be read.
    """
    st = path.stat()
    side = _read_sidecar(path)
    if (side and side.get("size") == st.st_size and side.get("mtime_ns") == st.st_mtime_ns
            and isinstance(side.get("sha256"), str)):
        return str(side["sha256"])
    digest = sha256_file(path)
    write_sidecar(path, digest)
    return digest


def verify_file(path: Path, entry: ModelEntry, *, progress: bool = False) -> bool:
    """Check that ``path`` is ``entry``'s file: its size, then its sha256.

    The sha256 is computed only when no sidecar vouches for the file (same size and ``mtime_ns`` as
    recorded after an earlier verification); a successful hash writes the sidecar.

    Args:
        path: the file to check (a missing file is simply not valid).
        entry: the registry entry giving the expected size (bytes) and sha256.
        progress: show a rich progress bar on stderr while hashing.

    Returns:
        True when the file is the expected one.
    """
    try:
        st = path.stat()
    except OSError:
        return False
    if not path.is_file() or st.st_size != entry.size:
        return False
    side = _read_sidecar(path)
    if (side and side.get("size") == st.st_size and side.get("mtime_ns") == st.st_mtime_ns
            and side.get("sha256") == entry.sha256):
        return True
    bar = _Progress(progress)
    bar.start(f"Verifying {entry.filename}", entry.size)
    try:
        digest = sha256_file(path, bar)
    except OSError:
        return False
    finally:
        bar.stop()
    if digest != entry.sha256:
        return False
    write_sidecar(path, digest)
    return True


def pulled_state(entry: ModelEntry, path: Path | None = None) -> str:
    """Return how the copy of ``entry`` in the models folder (or the file ``path``, such as the one
    ``$TOOLWIRE_MODEL_PATH`` names) stands, without hashing it (for listings): ``"yes"`` when a verification record
    vouches for it (same size, ``mtime_ns`` and sha256 as when it was checked), ``"unverified"`` when only its size is
    right (it is hashed at its next use), ``"damaged"`` when its size is wrong, ``"no"`` when there is none (a folder
    standing in its place included: ``pull`` then says to move it). Raises nothing."""
    path = entry.path if path is None else path
    try:
        st = path.stat()
    except (OSError, ValueError):  # (ValueError: a NUL in a path from the environment)
        return "no"
    if stat.S_ISDIR(st.st_mode):
        return "no"
    if st.st_size != entry.size:
        return "damaged"
    side = _read_sidecar(path)
    if side and side.get("size") == st.st_size and side.get("mtime_ns") == st.st_mtime_ns \
            and side.get("sha256") == entry.sha256:
        return "yes"
    return "unverified"


def link_local_copy(entry: ModelEntry, file: Path) -> tuple[Path | None, str]:
    """Make a verified GGUF file of the user's the model's copy in the models folder, as a symbolic link to it
    (``toolwire models pull NAME --path FILE``: review 97 found the file verified but the model still "not pulled" in
    the next run, which then tried to download it again). The file stays where it is; nothing is copied or deleted.

    Args:
        entry: the registry entry whose file ``file`` was verified to be (size and sha256).
        file: that file.

    Returns:
        ``(link, note)``: the link made (None when none was) and one sentence for the user: the link made; or why
        none was (a valid copy is already in the models folder, which is kept; a file of another content is in
        the way; links cannot be made there), saying what to do instead (``TOOLWIRE_MODEL_PATH``).
    """
    try:
        target = entry.path
        target.parent.mkdir(parents=True, exist_ok=True)
    except (OSError, UserError) as exc:
        return None, f"The models folder cannot be written ({exc}): set TOOLWIRE_MODEL_PATH={file} to use the file."
    source = file.expanduser().resolve()
    try:
        linked = target.resolve() if target.is_symlink() else None
    except (OSError, RuntimeError):  # a link loop (Python 3.11 raises RuntimeError): replaced like a dangling link
        linked = None
    if linked == source:
        return target, f"{target} already links to {source}."
    if not target.is_symlink() and target.exists():
        if verify_file(target, entry):
            return None, f"The models folder already holds a verified copy ({target}), which toolwire keeps using."
        return None, (f"{target} is in the way and is not the model's file: delete it and run this command again, "
                      f"or set TOOLWIRE_MODEL_PATH={source}.")
    try:
        if target.is_symlink():  # a link to another (or a vanished) file: the file asked for now replaces it
            target.unlink()
        target.symlink_to(source)
    except OSError as exc:
        return None, f"A link to it cannot be made in the models folder ({exc}): set TOOLWIRE_MODEL_PATH={source}."
    return target, f"Linked {target} to {source}: toolwire now uses that file in place (it is not copied)."
