"""Results of a BFCL run: per-item records, per-category summary, JSON and a self-contained HTML page.

:class:`Report` holds one :class:`ItemResult` per scored item; :meth:`Report.summary` derives the
per-category numbers (accuracy in percent, 2 decimals; mean seconds per item; token totals).
:meth:`Report.to_json` / :meth:`Report.load` round-trip a report (the runner's resume file).
:func:`write_html` renders the page (inline CSS and SVG, no external requests) next to the published
leaderboard scores read by :func:`parse_published_table` from the data README's Markdown table.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from toolwire._std_streams import _FULL
from toolwire.errors import UserError

__all__ = [
    "CategorySummary",
    "ItemResult",
    "Report",
    "load_published_scores",
    "parse_published_table",
    "write_html",
]


@dataclass
class ItemResult:
    """The outcome of one BFCL item.

    Attributes:
        id: the item id (``"parallel_12"``).
        category: its canonical category.
        valid: True when scored correct.
        reason: None when valid; else a reason of :data:`toolwire.evals.bfcl_checker.REASONS`, or
            ``"error"`` when the model raised.
        message: one human sentence (``"Correct."`` when valid; the exception text for errors).
        expected: the answer key ``[{"<name>": {"<param>": [allowed...]}}]`` (None for irrelevance and relevance
            categories, which have no key: no call expected, or any call).
        actual: the model's calls ``[{"name": <original BFCL name>, "args": {...}}]``.
        seconds: wall time of the model call (``bind_tools`` + ``invoke``), in seconds.
        input_tokens, output_tokens: the reply's token counts (0 when the model reports none).
        question: the last user message of the item (for reading failures).
        text: the model's reply text, if any.
        decoding: what a local model's decoding rules did on the reply (the keys of its ``response_metadata``
            named in :data:`toolwire.evals.bfcl_runner.DECODING_KEYS` it holds: ``call_probability``,
            ``made_up_values``, ``parallel_call_shares``...); empty for other models.
        fingerprint: the sha256 (hex) of the item's question turns and function docs
            (:attr:`toolwire.evals.bfcl.BfclItem.fingerprint`); empty in reports written before it was recorded.
    """

    id: str
    category: str
    valid: bool
    reason: str | None = None
    message: str = "Correct."
    expected: list[dict[str, Any]] | None = None
    actual: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0
    question: str = ""
    text: str = ""
    decoding: dict[str, Any] = field(default_factory=dict)
    fingerprint: str = ""

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dict of all fields."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ItemResult:
        """Return a new item rebuilt from ``data``, :meth:`to_dict` output (unknown keys are ignored).

        Raises:
            TypeError: ``data`` lacks ``id``, ``category`` or ``valid``, or a field holds another type than
                :meth:`to_dict` writes (``"seconds": null`` in a hand-edited report: review 85, whose run then
                failed at its end without saving).
        """
        known = {f.name for f in fields(cls)}
        kept = {k: v for k, v in data.items() if k in known}
        for name, value in kept.items():
            wanted = _FIELD_TYPES.get(name)
            if wanted is not None and not (isinstance(value, wanted)
                                           and (wanted == (bool,) or not isinstance(value, bool))):
                raise TypeError(f"item {kept.get('id')!r} has {name}={value!r}")
        return cls(**kept)


_FIELD_TYPES: dict[str, tuple[type, ...]] = {
    "id": (str,), "category": (str,), "valid": (bool,), "reason": (str, type(None)), "message": (str,),
    "expected": (list, type(None)), "actual": (list,), "seconds": (int, float), "input_tokens": (int,),
    "output_tokens": (int,), "question": (str,), "text": (str,), "decoding": (dict,), "fingerprint": (str,)}
"""The JSON types of an item's fields (a boolean is no number here)."""


@dataclass(frozen=True)
class CategorySummary:
    """Numbers of one category.

    Attributes:
        category: canonical name. count: items scored. correct: items scored correct.
        accuracy: ``100 * correct / count`` in percent, rounded to 2 decimals (None when count is 0: nothing
            was scored, which is not 0 % right).
        mean_seconds: mean model time per item, in seconds. errors: items where the model raised.
        input_tokens, output_tokens: totals over the category's items, in tokens.
    """

    category: str
    count: int
    correct: int
    accuracy: float | None
    mean_seconds: float
    input_tokens: int
    output_tokens: int
    errors: int


def _not_a_report(path: Path, detail: str) -> str:
    """The message for a file at ``path`` that is not a report toolwire wrote (``detail``: why): it is left as it is,
    and a new file name is advised, never deleting it (review 145 #5: it may be the user's own data)."""
    other = path.with_suffix(".json") if path.suffix != ".json" else path.with_stem(path.stem + "-bfcl")
    return (f"{str(path)!r} is not a BFCL report toolwire wrote ({detail}), so it is left as it is: pass a new file "
            f"name, such as {str(other)!r}.")


@dataclass
class Report:
    """A BFCL run of one model.

    Attributes:
        model: the model's name (the resume key: a rerun with another name starts over).
        categories: the canonical categories asked for, in run order.
        items: the scored items, in data order.
        data_dir: the data folder used.
        started, finished: ISO-8601 times; ``finished`` is None while running or after an interrupt.
        settings: the model settings that change its replies (``dialect``, ``temperature``...: see
            :func:`toolwire.evals.bfcl_runner.model_settings`); a resumed run must use the same. None in a
            report written before they were recorded.
    """

    model: str
    categories: list[str]
    items: list[ItemResult] = field(default_factory=list)
    data_dir: str = ""
    started: str = ""
    finished: str | None = None
    settings: dict[str, Any] | None = None

    def summary(self) -> list[CategorySummary]:
        """Return one :class:`CategorySummary` per category, in :attr:`categories` order (then any other
        category seen in items, sorted)."""
        groups: dict[str, list[ItemResult]] = {category: [] for category in self.categories}
        for item in self.items:
            groups.setdefault(item.category, []).append(item)
        order = list(self.categories) + sorted(set(groups) - set(self.categories))
        out = []
        for category in order:
            items = groups[category]
            count = len(items)
            correct = sum(i.valid for i in items)
            out.append(CategorySummary(
                category=category, count=count, correct=correct,
                accuracy=round(100.0 * correct / count, 2) if count else None,
                mean_seconds=round(sum(i.seconds for i in items) / count, 4) if count else 0.0,
                input_tokens=sum(i.input_tokens for i in items),
                output_tokens=sum(i.output_tokens for i in items),
                errors=sum(i.reason == "error" for i in items)))
        return out

    def accuracy(self) -> dict[str, float]:
        """Return category -> accuracy in percent (2 decimals), for categories with at least one item."""
        return {s.category: s.accuracy for s in self.summary() if s.accuracy is not None}

    def overall(self) -> float | None:
        """Return the unweighted mean of the category accuracies (percent, 2 decimals), as the leaderboard
        averages categories; None when nothing was scored."""
        values = list(self.accuracy().values())
        return round(sum(values) / len(values), 2) if values else None

    def failures(self, category: str | None = None) -> list[ItemResult]:
        """Return the items scored wrong (errors included), of ``category`` only when given, in data order."""
        return [i for i in self.items if not i.valid and (category is None or i.category == category)]

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dict: run fields, ``summary`` (list of :class:`CategorySummary` dicts),
        ``overall`` and ``items`` (list of :meth:`ItemResult.to_dict` dicts)."""
        return {**self._head(), "items": [i.to_dict() for i in self.items]}

    def _head(self) -> dict[str, Any]:
        return {
            "model": self.model, "categories": list(self.categories), "data_dir": self.data_dir,
            "started": self.started, "finished": self.finished, "settings": self.settings,
            "summary": [asdict(s) for s in self.summary()], "overall": self.overall(),
        }

    def to_json(self, indent: int | None = 2, *, cache: dict[str, str] | None = None) -> str:
        """Return :meth:`to_dict` as JSON text (UTF-8 characters kept; a lone surrogate, which UTF-8 cannot encode, as
        its JSON escape ``\\udce9``, which :meth:`load` reads back as it was: the name of a ``--data`` folder that is
        not UTF-8, a question holding such an escape; review 308 #2).

        Args:
            indent: indentation of the run fields and summary; each item is written on one line.
                None: everything on one line.
            cache: item id -> that item's JSON text, filled and reused, so saving after every item
                costs one ``json.dumps`` per new item (the runner's use). Items must not change once
                cached.
        """
        if indent is None:
            return _escaped(json.dumps(self.to_dict(), ensure_ascii=False, default=repr))
        data = self._head()
        texts = []
        for item in self.items:
            text = cache.get(item.id) if cache is not None else None
            if text is None:
                text = _escaped(json.dumps(item.to_dict(), ensure_ascii=False, default=repr))
                if cache is not None:
                    cache[item.id] = text
            texts.append(text)
        head = _escaped(json.dumps(data, indent=indent, ensure_ascii=False, default=repr))
        pad = " " * indent
        body = ",\n".join(pad * 2 + t for t in texts)
        return f'{head[:-2]},\n{pad}"items": [' + (f"\n{body}\n{pad}" if texts else "") + "]\n}\n"

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Report:
        """Return a new report rebuilt from ``data``, :meth:`to_dict` output (``summary`` is recomputed, not read).

        Raises:
            UserError: ``data`` is not a mapping with ``model`` and an ``items`` list.
            TypeError, AttributeError: an item is not a dict or lacks a field (see :meth:`ItemResult.from_dict`).
        """
        if not isinstance(data, Mapping) or "model" not in data or not isinstance(data.get("items"), list):
            raise UserError("This JSON is not a toolwire BFCL report (no 'model' and 'items').")
        return cls(model=str(data["model"]), categories=list(data.get("categories") or []),
                   items=[ItemResult.from_dict(i) for i in data["items"]],
                   data_dir=str(data.get("data_dir") or ""), started=str(data.get("started") or ""),
                   finished=data.get("finished"),
                   settings=dict(data["settings"]) if isinstance(data.get("settings"), Mapping) else None)

    @classmethod
    def load(cls, path: str | Path) -> Report:
        """Return the report written by :meth:`save` to ``path`` (also once an editor re-saved it with a UTF-8 BOM and
        CRLF line ends).

        Raises:
            UserError: the file cannot be read, or is not a report (not UTF-8, not JSON, JSON of another shape):
                the message names the file, says it is left as it is, and says to pass a new file name (never to
                delete it: it may be the user's own data).
        """
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8-sig"))  # (a report an editor re-saved with a BOM,
            # and CRLF, is still the report: review 308 #6)
        except OSError as exc:
            raise UserError(f"Cannot read the BFCL report {str(path)!r}: {exc}.") from exc
        except ValueError as exc:  # not JSON, or not UTF-8 (UnicodeDecodeError): not a report toolwire wrote
            raise UserError(_not_a_report(Path(path), str(exc))) from exc
        try:
            return cls.from_dict(data)
        except (UserError, TypeError, AttributeError, ValueError) as exc:  # JSON of another shape (items that
            # are not dicts, or lack fields): name the file and what to do, as above
            detail = "no 'model' and 'items'" if isinstance(exc, UserError) else f"{type(exc).__name__}: {exc}"
            raise UserError(_not_a_report(Path(path), detail)) from None

    @classmethod
    def load_existing(cls, path: str | Path) -> Report | None:
        """Return the report at ``path`` that a run resumes, or None when there is none yet: no file, or an empty
        (or whitespace-only, a UTF-8 BOM aside) file, such as ``mktemp`` makes, which a run may overwrite as
        ``--html`` overwrites an empty page (review 167).

        Raises:
            UserError: as :meth:`load`, for any other file.
        """
        path = Path(path)
        if not path.exists():
            return None
        try:
            blank = path.stat().st_size <= _BLANK_BYTES and not path.read_bytes().removeprefix(_BOM).strip()
        except OSError:
            blank = False  # (load says what is wrong)
        return None if blank else cls.load(path)

    def save(self, path: str | Path, *, cache: dict[str, str] | None = None) -> None:
        """Write :meth:`to_json` to ``path`` atomically (temporary file in the same folder, then
        ``os.replace``), so an interrupted write never leaves a half file; through a symbolic link, to the file it
        points to. ``cache``: see :meth:`to_json`.

        Raises:
            UserError: the file cannot be written.
        """
        _atomic_write(Path(path), self.to_json(cache=cache))


_SURROGATE = re.compile("[\ud800-\udfff]")


def _escaped(text: str) -> str:
    """``text``, JSON that :func:`json.dumps` wrote, with each lone surrogate (only ever inside a string there) written
    as its ``\\u`` escape, so the text can be written as UTF-8 and reads back the same (review 308 #2)."""
    if text.isascii() or _SURROGATE.search(text) is None:
        return text
    return _SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


_BOM = b"\xef\xbb\xbf"
"""UTF-8's byte-order mark, which Windows editors put before the text they save."""
_BLANK_BYTES = 4096
"""The largest file :meth:`Report.load_existing` reads to see whether it is whitespace only (a larger one is not)."""


def _atomic_write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` as UTF-8, atomically (a temporary file beside it, then ``os.replace``); a symbolic
    link is written through, to the file it points to, and stays a link (review 308 #5: it was replaced by a file,
    its target left as it was).

    Raises:
        UserError: it cannot be written (a folder that cannot be made or written, a full disk, a name the system
            refuses): one line naming the file and saying what to do.
    """
    try:
        real = Path(os.path.realpath(path))
        real.parent.mkdir(parents=True, exist_ok=True)
        mode = real.stat().st_mode & 0o777 if real.exists() else 0o644
        fd, tmp = tempfile.mkstemp(prefix=f".{real.name}.", suffix=".tmp", dir=real.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
            os.chmod(tmp, mode)  # mkstemp makes 0600 files; keep a normal (or the old) mode
            os.replace(tmp, real)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as exc:
        advice = "free some space, or pass" if exc.errno in _FULL else "pass"
        raise UserError(f"Cannot write {str(path)!r}: {exc.strerror or exc}: {advice} a file in a folder you can "
                        "write.") from exc
    except ValueError as exc:  # (a NUL in the name, text UTF-8 cannot encode: said as "error: {exc}" before, with no
        raise UserError(f"Cannot write {str(path)!r}: {exc}: pass another file name.") from exc  # advice; 308 #2)


# ---------------------------------------------------------------- published scores

def parse_published_table(markdown: str) -> dict[str, dict[str, float]]:
    """Read the published-scores table of ``markdown``, a Markdown text (the BFCL data README).

    The table is the first one whose header's first cell is ``model``; the other header cells are
    category names (``simple`` is read as ``simple_python``); cells that are not numbers from 0 to 100 are
    skipped.

    Returns:
        ``{model row label: {canonical category: score in percent}}``, in table order; ``{}`` when the
        text has no such table.
    """
    from toolwire.evals.bfcl import resolve_category

    def cells(line: str) -> list[str]:
        return [c.strip() for c in line.strip().strip("|").split("|")]

    out: dict[str, dict[str, float]] = {}
    lines = markdown.splitlines()
    for start, line in enumerate(lines):
        if not line.strip().startswith("|"):
            continue
        header = cells(line)
        if header[0].lower() != "model" or start + 1 >= len(lines):
            continue
        separator = lines[start + 1].strip()
        if "-" not in separator or not set(separator) <= set("|-: "):
            continue
        columns = [resolve_category(h) if h else "" for h in header[1:]]
        for row in lines[start + 2:]:
            if not row.strip().startswith("|"):
                break
            values = cells(row)
            scores: dict[str, float] = {}
            for column, cell in zip(columns, values[1:], strict=False):
                try:
                    score = float(cell.rstrip("%"))
                except ValueError:
                    continue
                if 0 <= score <= 100:  # a percentage: not inf, nan or -20 (review 85)
                    scores[column] = score
            if values[0]:
                out[values[0]] = scores
        return out
    return out


def parse_item_counts(markdown: str) -> dict[str, int]:
    """Read how many items each category has from ``markdown`` (the BFCL data README): the first table whose
    header begins ``| category | items |``.

    Returns:
        ``{canonical category: item count}``; ``{}`` when the text has no such table (cells that are not whole
        numbers are skipped).
    """
    from toolwire.evals.bfcl import resolve_category

    counts: dict[str, int] = {}
    lines = [line.strip() for line in markdown.splitlines()]
    for start, line in enumerate(lines):
        header = [c.strip().lower() for c in line.strip("|").split("|")] if line.startswith("|") else []
        if header[:2] != ["category", "items"]:
            continue
        for row in lines[start + 2:]:
            if not row.startswith("|"):
                break
            values = [c.strip() for c in row.strip("|").split("|")]
            if len(values) > 1 and values[1].isdigit():
                counts[resolve_category(values[0])] = int(values[1])
        break
    return counts


def load_published_scores(readme: str | Path) -> dict[str, dict[str, float]]:
    """Return :func:`parse_published_table` of the text of ``readme``, a UTF-8 file (the BFCL data README; bytes
    that are not UTF-8 are read as U+FFFD).

    Raises:
        UserError: the file cannot be read.
    """
    try:
        # (bytes that are not UTF-8 elsewhere in the README do not stop a run: its table is all that is read)
        return parse_published_table(Path(readme).read_text(encoding="utf-8", errors="replace"))
    except OSError as exc:
        raise UserError(f"Cannot read published scores from {str(readme)!r}: {exc.strerror or exc}.") from exc


def write_html(report: Report, path: str | Path,
               published: str | Path | Mapping[str, Mapping[str, float]] | None = None) -> None:
    """Write a self-contained HTML page of ``report`` to ``path`` (atomically).

    The page has inline CSS and an inline SVG bar chart of accuracy per category next to the published
    scores, a summary table, and the failures browsable per category (one ``<details>`` each, a table
    with id, reason, sentence, question, expected and actual calls). It makes no external request;
    everything from the data is HTML-escaped.

    Args:
        report: the run.
        path: the HTML file to write.
        published: the BFCL README path (its table is parsed with :func:`parse_published_table`), an
            already parsed ``{model: {category: percent}}``, or None (no comparison).

    Raises:
        UserError: the README or the output file cannot be read / written.
    """
    from toolwire.evals.report_html import render_html

    if published is None:
        scores: Mapping[str, Mapping[str, float]] = {}
    elif isinstance(published, str | Path):
        scores = load_published_scores(published)
    else:
        scores = published
    _atomic_write(Path(path), render_html(report, scores))
