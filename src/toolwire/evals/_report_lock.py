"""One run at a time per BFCL report file: :func:`report_lock` holds a lock file beside it (``<out>.lock``; beside
the file a symbolic link points to, for a link: :func:`lock_path`).

Each run reads its report once and then rewrites the whole file after every item, so two runs into one ``--out``
lost one run's results without a word (review 197 #3); the second run is now refused in one sentence instead.

The lock is an advisory ``flock`` on the lock file (``msvcrt.locking`` where there is no ``fcntl``), which the
system drops when the process ends however it ends: a lock file left behind by a run that was killed (or quit with
a second Ctrl-C) is stale, and the next run takes it over. The file is removed when the run ends, and it holds the
process id of the run that holds it, which the refusal names.

On a file system that has no such locks (NFS mounted without lockd, some SMB and FUSE mounts: ``flock`` fails with
``ENOLCK``, ``EOPNOTSUPP`` or ``ENOSYS``) the run goes on without one, as runs did before the lock, after a warning
(once per report file in a process) that runs into that file are not guarded there; no lock file is left behind.
Threads of one process are still refused (review 202 #3).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from pathlib import Path

from toolwire._warn_site import warn_user
from toolwire.errors import UserError

__all__ = ["lock_path", "report_lock"]

_held: dict[str, list[int]] = {}  # lock file -> [owning thread, depth, descriptor (-1: no lock here)]: the same
# thread may lock again
_guard = threading.Lock()
_warned: set[str] = set()  # the lock files whose file system has no locks, said once each


def lock_path(out: Path) -> Path:
    """The lock file of the report ``out``: ``<out>.lock`` beside it (``r.json`` -> ``r.json.lock``), of the file it
    points to when it is a symbolic link (which the report is written through), so that runs into one file by two
    names share the lock (review 308 #5). Raises nothing."""
    real = Path(os.path.realpath(out))
    return real.with_name(real.name + ".lock")


@contextlib.contextmanager
def report_lock(out: str | Path | None) -> Iterator[None]:
    """Hold the lock of the report ``out`` for the ``with`` block (nothing for None).

    The thread that holds it may take it again (the command line takes it before it loads the model, and
    :func:`~toolwire.evals.bfcl_runner.run_bfcl` takes it again); it is released, and its file removed, when the
    outermost block ends, on an exception (Ctrl-C) too. Where the file system has no locks, the block runs without
    one (only other threads of this process are refused) after a :class:`UserWarning` saying so, once per file.

    Args:
        out: the report file (its folders are made if needed, as writing it would make them).

    Raises:
        UserError: another run (another process, or another thread of this one) holds the lock, naming the file
            and that run's process id when known; or the lock file cannot be made (the reason and the file named).
    """
    if out is None:
        yield
        return
    out = Path(out)
    path = lock_path(out)
    key = os.path.realpath(path)
    me = threading.get_ident()
    with _guard:
        held = _held.get(key)
        if held is not None and held[0] != me:
            raise _busy(out, os.getpid())
        if held is not None:
            held[1] += 1
        else:
            _held[key] = [me, 1, _take(out, path)]
    try:
        yield
    finally:
        with _guard:
            held = _held[key]
            held[1] -= 1
            if held[1] == 0:
                del _held[key]
                _drop(path, held[2])


def _busy(out: Path, pid: int | None) -> UserError:
    who = f"another run (process {pid})" if pid is not None else "another run"
    return UserError(f"{str(out)!r} is being written by {who}: wait for it to end, or pass another --out.")


def _take(out: Path, path: Path) -> int:
    """Open and lock ``path``, write this process's id in it, and return its descriptor; -1 (no file left, a
    warning given) where the file system has no locks.

    Raises:
        UserError: as :func:`report_lock` says."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        while True:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                locked = _try_lock(fd)
            except OSError as exc:  # no locks on this file system: go on without one (review 202 #3)
                os.close(fd)
                with contextlib.suppress(OSError):
                    os.unlink(path)
                _warn_unguarded(out, exc)
                return -1
            if not locked:
                pid = _holder(fd)
                os.close(fd)
                raise _busy(out, pid)
            try:  # the run that held it may have removed the file (and another run made a new one) meanwhile
                same = os.path.samestat(os.fstat(fd), os.stat(path))
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
    except OSError as exc:
        raise UserError(f"{str(out)!r} cannot be locked for this run ({exc.strerror or exc} on {str(path)!r}): "
                        "pass an --out in a folder you can write.") from exc
    return fd


def _warn_unguarded(out: Path, exc: OSError) -> None:
    """Say, once per file, that runs into ``out`` are not guarded against each other on its file system."""
    key = os.path.realpath(out)
    if key in _warned:
        return
    _warned.add(key)
    warn_user(f"{str(out)!r} is on a file system without file locks ({exc.strerror or exc}), so two runs into it "
              "at the same time are not stopped there: start one run at a time into this --out.")


def _try_lock(fd: int) -> bool:
    """Lock the open file ``fd`` without waiting; False when another holds it.

    Raises:
        OSError: the file system has no such locks (any failure of ``flock`` but "held by another")."""
    try:
        import fcntl
    except ImportError:  # (Windows)
        import msvcrt

        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined]
        except OSError:
            return False
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _holder(fd: int) -> int | None:
    """The process id a lock file's holder wrote in it, or None."""
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip() if hasattr(os, "pread") else ""
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def _drop(path: Path, fd: int) -> None:
    """Remove the lock file (while still holding it: a run waiting on the same file then finds it gone and makes a
    new one) and close it, which releases the lock; nothing for -1 (no lock file: see :func:`_take`)."""
    if fd < 0:
        return
    with contextlib.suppress(OSError):  # (Windows cannot remove an open file: it stays, and is taken over next time)
        os.unlink(path)
    os.close(fd)
