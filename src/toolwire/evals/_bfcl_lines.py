"""Reading BFCL's JSON-lines files: each line an object, each item's ``function`` and ``question`` of BFCL's
shape, answer lines as expected calls; every error names the file and line (or item) and says what to do.
Used by :func:`toolwire.evals.bfcl.load_category`."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from toolwire.errors import UserError


def _read_jsonl(path: Path, lines: list[int] | None = None) -> list[dict[str, Any]]:
    """The JSON objects of ``path``, one a line (blank lines skipped); each one's line number is appended to
    ``lines`` when given. Lines end at ``\n`` (``\r\n`` and ``\r`` read as one), as BFCL's own loader reads them:
    U+2028, U+2029 and U+0085 inside a JSON string are text, not line ends (review 167).

    Raises:
        UserError: the file cannot be read, is not UTF-8, or has a line that is not a JSON object."""
    rows: list[dict[str, Any]] = []
    try:
        text = path.read_text(encoding="utf-8-sig")  # (a byte-order mark, as some editors write, is not data)
    except OSError as exc:
        raise UserError(f"Cannot read BFCL file {str(path)!r}: {exc.strerror or exc}.") from exc
    except UnicodeDecodeError as exc:  # (a ValueError, not an OSError): name the file, as for bad JSON
        raise UserError(f"BFCL file {str(path)!r} is not UTF-8 text (byte {exc.start}): get a fresh copy of the "
                        "BFCL data.") from exc
    for number, line in enumerate(text.split("\n"), 1):  # (read_text made every \r\n and \r a \n)
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            where = f"{exc.msg.removesuffix(' at')} at column {exc.colno}"  # ("Unterminated string starting at")
            raise UserError(f"{path}:{number} is not valid JSON ({where}): fix that line, or get a fresh copy of the "
                            "BFCL data.") from exc
        if not isinstance(row, dict):
            raise UserError(f"{path}:{number} is not a JSON object: fix that line, or get a fresh copy of the BFCL "
                            "data.")
        rows.append(row)
        if lines is not None:
            lines.append(number)
    return rows


def _bad_line(where: str, what: str) -> UserError:
    """The error for a malformed item at ``where`` (``file:line``): ``what`` says what is wrong."""
    return UserError(f"{where} {what}: fix that line, or get a fresh copy of the BFCL data.")


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 80 else text[:77] + "..."


def _item_functions(raw: Any, where: str) -> list[dict[str, Any]]:
    """An item's ``function`` value as a list of function docs (one doc alone, or none, allowed).

    Raises:
        UserError: naming ``where``: the value, or an entry of it, is not a JSON object (review 140)."""
    functions = [raw] if isinstance(raw, dict) else [] if raw is None else raw
    if not isinstance(functions, list):
        raise _bad_line(where, f'has a "function" that is not a list of function objects ({_shown(raw)})')
    for doc in functions:
        if not isinstance(doc, dict):
            raise _bad_line(where, 'has a function that is not a {"name", "description", "parameters"} object '
                            f"({_shown(doc)})")
    return functions


def _normalise_question(raw: Any, where: str) -> list[list[dict[str, Any]]]:
    """An item's ``question`` as turns of ``{"role", "content"}`` objects (a string: one user message; one turn
    written without the outer list: that turn).

    Raises:
        UserError: naming ``where``: the value is not a string or a list, or a message is not a JSON object."""
    if isinstance(raw, str):
        return [[{"role": "user", "content": raw}]]
    if isinstance(raw, list) and raw and all(isinstance(m, dict) for m in raw):
        return [raw]  # one turn written without the outer list
    if not isinstance(raw, list):
        raise _bad_line(where, f'has a "question" that is not a string or a list of turns ({_shown(raw)})')
    turns = [list(turn) if isinstance(turn, list) else [turn] for turn in raw]
    for message in (m for turn in turns for m in turn):
        if not isinstance(message, dict):  # (review 140: found only once the model answered the item before)
            raise _bad_line(where, f'has a question message that is not a {{"role", "content"}} object '
                            f"({_shown(message)})")
    return turns


def _normalise_answer(row: dict[str, Any], where: str) -> list[dict[str, Any]]:
    """The expected calls of one answer line, each ``{"<function name>": {"<param>": [allowed...]}}``
    (BFCL's possible-answer format); ``where`` names the file and item for the error.

    Raises:
        UserError: an entry is not a one-key object whose value is an object of parameters.
    """
    # early releases: the line is the answer itself, one key per expected call (v1's parallel answers put
    # several calls of one function in one object, their names numbered: "spotify.play_1", "spotify.play_2";
    # load_category maps such names back to the item's functions)
    truth = row["ground_truth"] if "ground_truth" in row else [{k: v} for k, v in row.items() if k != "id"]
    if isinstance(truth, dict):
        truth = [truth]
    if not isinstance(truth, list):
        raise UserError(f"The answer on {where} is not a list of expected calls; fix or remove that line.")
    for call in truth:
        if not (isinstance(call, dict) and len(call) == 1 and isinstance(next(iter(call.values())), dict)):
            raise UserError(f"The answer on {where} has the entry {json.dumps(call)[:120]}, not one "
                            "{\"function name\": {\"parameter\": [allowed values]}} object; fix or remove that line.")
    return truth


def _refuse_repeated_ids(rows: list[dict[str, Any]], path: Path, generated: str | None = None) -> None:
    """Refuse a file where two lines have one ``id``: their items would share one answer and one result.

    Args:
        rows: the file's objects, in order.
        path: the file, named in the error.
        generated: for a question file, the prefix of the id a line without one is given (``<prefix>_<index>``,
            index from 0, as :func:`toolwire.evals.bfcl.load_category` gives it), so that such an id equal to
            another line's is refused too (review 197 #2); None: lines without an id are not checked.

    Raises:
        UserError: naming the id and both lines (items counted from 1).
    """
    first: dict[str, int] = {}
    for line, row in enumerate(rows, start=1):
        if "id" not in row and generated is None:
            continue
        key = str(row["id"]) if "id" in row else f"{generated}_{line - 1}"
        if key in first:
            given = [n for n in (first[key], line) if "id" not in rows[n - 1]]
            how = (f" (item {given[0]} has no id and is given {key!r} by its place)" if given else "")
            raise UserError(f"{path}: items {first[key]} and {line} both have the id {key!r}{how}; ids must be "
                            "unique (remove or rename one, or give every item its id).")
        first[key] = line


_NUMBERED = re.compile(r"[_ ]\d+$")


def _numbered_names(truth: list[dict[str, Any]], functions: Sequence[Any]) -> list[dict[str, Any]]:
    """``truth`` with each expected call named ``<function>_<n>`` or ``<function> <n>`` (v1's parallel answers
    number the calls of one function) renamed to that function, when the item offers it and not the
    numbered name."""
    offered = {f.get("name") for f in functions if isinstance(f, Mapping)}
    out = []
    for call in truth:
        name, params = next(iter(call.items()))
        if name not in offered:
            stem = _NUMBERED.sub("", name)
            if stem != name and stem in offered:
                call = {stem: params}
        out.append(call)
    return out
