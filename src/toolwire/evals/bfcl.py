"""Berkeley Function Calling Leaderboard (BFCL) data: loading, schema conversion, messages.

The data is the single-turn part of BFCL (repository ShishirPatil/gorilla, folder
``berkeley-function-call-leaderboard``), one JSON object per line:

* ``<prefix><category>.json``: ``{"id", "question": [[{"role", "content"}, ...]], "function": [...]}``
* ``possible_answer/<prefix><category>.json``: ``{"id", "ground_truth": [{"<name>": {"<param>": [allowed
  values...]}}]}`` (irrelevance categories have none; ``""`` in an allowed list means "may be left out").

Any release's file names are accepted: ``BFCL_v4_``, ``BFCL_v3_``, ``BFCL_v2_``, ``BFCL_v1_`` and
``gorilla_openfunctions_v1_test_`` prefixes, and the category names of each release (``simple`` and
``simple_python``, ``parallel_function`` and ``parallel``, v1's ``relevance`` and ``irrelevance``...). The newest
release present wins.

BFCL writes its own schema dialect (``"type": "dict"``, ``"float"``, ``"tuple"``, ``"any"``);
:func:`function_to_tool` maps it to JSON Schema with the type mapping of the data's README.
The scoring rules live in :mod:`toolwire.evals.bfcl_checker`; the runner in
:mod:`toolwire.evals.bfcl_runner`.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolwire.errors import UserError
from toolwire.evals._bfcl_lines import (
    _item_functions,
    _normalise_answer,
    _normalise_question,
    _numbered_names,
    _read_jsonl,
    _refuse_repeated_ids,
    _shown,
)
from toolwire.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

__all__ = [
    "CATEGORIES",
    "BfclItem",
    "ToolSet",
    "available_categories",
    "convert_schema",
    "find_category_files",
    "function_to_tool",
    "functions_to_tools",
    "json_type",
    "load_category",
    "parse_categories",
    "question_to_messages",
    "resolve_category",
]

#: The five core single-turn categories run by default (BFCL v4 item counts: 400, 200, 200, 200, 240).
CATEGORIES: tuple[str, ...] = ("simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance")

_PREFIXES = ("BFCL_v4_", "BFCL_v3_", "BFCL_v2_", "BFCL_v1_", "gorilla_openfunctions_v1_test_")

# canonical (v4) category -> other names the same data had in earlier releases (file names)
_FILE_ALIASES: dict[str, tuple[str, ...]] = {
    "simple_python": ("simple_python", "simple"),
    "multiple": ("multiple", "multiple_function"),
    "parallel": ("parallel", "parallel_function"),
    "parallel_multiple": ("parallel_multiple", "parallel_multiple_function"),
    "simple_java": ("simple_java", "java"),
    "simple_javascript": ("simple_javascript", "javascript"),
}
# names a user may type -> canonical name
_USER_ALIASES = {
    "simple": "simple_python",
    "multiple_function": "multiple",
    "parallel_function": "parallel",
    "parallel_multiple_function": "parallel_multiple",
    "java": "simple_java",
    "javascript": "simple_javascript",
    "relevance": "irrelevance",  # v1's name of the irrelevance data (no later release has a "relevance" file):
    # scored as irrelevance, not as live_relevance's "a call is expected" (review 140)
}
# v1 called the irrelevance data "relevance"
_V1_ALIASES = {"irrelevance": ("relevance",)}

# BFCL / Python / Java type names -> JSON Schema type (BFCL README "Schema dialect")
_TYPE_MAP = {
    "dict": "object", "object": "object",
    "float": "number", "double": "number", "number": "number",
    "integer": "integer", "int": "integer", "long": "integer", "short": "integer", "byte": "integer",
    "string": "string", "str": "string", "char": "string", "any": "string",
    "boolean": "boolean", "bool": "boolean",
    "array": "array", "list": "array", "tuple": "array",
    "null": "null",
}
# the AST categories toolwire scores, as the refusal of any other names them
_SCORED = ("simple_python, simple_java, simple_javascript, multiple, parallel, parallel_multiple, irrelevance and "
           "their live_ versions (live_simple, live_multiple, live_parallel, live_parallel_multiple, live_irrelevance, "
           "live_relevance)")
# BFCL categories whose answers are not AST answer keys (review 238 #2: refused as not scored, not as broken lines):
# executed calls (v3+'s exec_*, v1's executable_*, rest), plain answers (v4's web_search_*, memory_*), v1's chatable
_NOT_AST_PREFIXES = ("exec_", "executable_", "web_search", "memory_")
_NOT_AST = frozenset({"rest", "executable", "chatable", "web_search", "memory"})
# the categories toolwire knows to have AST answer keys (a missing answer file of one is a broken copy); any other
# category whose answer file is missing, v4's format_sensitivity among them, is refused as not scored (review 244 #1)
_AST_KNOWN = frozenset({*CATEGORIES, *_FILE_ALIASES, "live_simple", "live_multiple", "live_parallel",
                        "live_parallel_multiple", "sql"})
JSON_TYPES = frozenset({"object", "number", "integer", "string", "boolean", "array", "null"})
_NAME_BAD = re.compile(r"[^A-Za-z0-9_-]")


def resolve_category(name: str) -> str:
    """Return the canonical (BFCL v4) name of a category: ``"simple"`` -> ``"simple_python"``, v1's ``"relevance"``
    -> ``"irrelevance"`` (the same data, scored as irrelevance: no call expected).

    Args:
        name: a category name of any release, any case, surrounding spaces ignored.

    Returns:
        The canonical name (unknown names are returned lower-cased; :func:`find_category_files` checks
        that the data exists).

    Raises:
        UserError: the name is empty.
    """
    key = name.strip().lower()
    if not key:
        raise UserError("A BFCL category name is empty; use names such as simple_python,multiple.")
    return _USER_ALIASES.get(key, key)


def parse_categories(categories: str | Iterable[str] | None) -> list[str]:
    """Return the canonical names of ``categories``, in order, duplicates removed.

    Args:
        categories: comma-separated names (``"simple,multiple"``), a list of names, or None for every one of
            :data:`CATEGORIES`. Names are resolved by :func:`resolve_category` (aliases, case ignored).

    Raises:
        UserError: no category is left (every name given is blank).
    """
    if categories is None:
        return list(CATEGORIES)
    parts = categories.split(",") if isinstance(categories, str) else list(categories)
    out: list[str] = []
    for part in parts:
        if part.strip():
            name = resolve_category(part)
            if name not in out:
                out.append(name)
    if not out:
        raise UserError("No BFCL category given; use e.g. --category simple_python,multiple.")
    return out


def _file_names(category: str) -> list[str]:
    names: list[str] = []
    for prefix in _PREFIXES:
        stems = list(_FILE_ALIASES.get(category, (category,)))
        if prefix.startswith("gorilla"):
            stems += list(_V1_ALIASES.get(category, ()))
        names += [f"{prefix}{stem}.json" for stem in stems]
    return names


def _no_folder(folder: Path) -> UserError:
    """The error of a data folder that is missing: what to pass instead (review 170 #11: it said only what was
    wrong)."""
    return UserError(f"BFCL data folder {str(folder)!r} does not exist or is not a folder: pass the folder that holds "
                     "the BFCL_v4_<category>.json question files (this project's CI keeps them in ../shared/bfcl).")


def _answer_folder(folder: Path) -> UserError:
    """The error of a data folder that is BFCL's ``possible_answer`` folder (review 238 #3: an easy slip, which was
    said as a missing ``possible_answer/possible_answer/`` file); the folder above is named as resolved, so ``.``
    and a symlink name the real one (review 244 #2)."""
    return UserError(f"{str(folder)!r} is BFCL's answer folder, not its data folder: pass the folder above it "
                     f"({str(folder.resolve().parent)!r}), which holds the BFCL_v4_<category>.json question files.")


def _is_answer_folder(folder: Path) -> bool:
    """Whether ``folder`` (an existing folder) is BFCL's ``possible_answer`` folder: named so once resolved (``.``
    and a symlink included, review 244 #2) with BFCL question files beside it."""
    real = folder.resolve()
    if real.name.lower() != "possible_answer":
        return False
    return any(path.name.startswith(_PREFIXES) for path in real.parent.glob("*.json"))


def _unscored(canonical: str) -> UserError | None:
    """The refusal of a category toolwire does not score by its name (multi-turn, executed or plain answers, v4's
    format_sensitivity), or None."""
    if "multi_turn" in canonical:
        return UserError(f"BFCL category {canonical!r} is multi-turn; only single-turn categories are supported: "
                         f"{_SCORED}.")
    if canonical in _NOT_AST or canonical.startswith(_NOT_AST_PREFIXES):
        return UserError(f"BFCL category {canonical!r} is not scored by toolwire (its answers are executed calls or "
                         f"plain answers, not AST answer keys); toolwire scores {_SCORED}.")
    if canonical == "format_sensitivity":
        return UserError(f"BFCL category {canonical!r} is not scored by toolwire (its file lists items of other "
                         f"categories to ask in other prompt formats, and it has no answer file); toolwire scores "
                         f"{_SCORED}.")
    return None


def _no_answers(canonical: str, answers: Path) -> UserError:
    """The error of a question file whose answer file is missing: a broken copy for a category toolwire knows, not
    scored for any other (review 244 #1)."""
    if canonical in _AST_KNOWN:
        return UserError(f"BFCL answer file {str(answers)!r} is missing (needed to score {canonical}): get a fresh "
                         "copy of the BFCL data with its possible_answer folder, or leave out that category.")
    return UserError(f"BFCL category {canonical!r} is not scored by toolwire (it has no answer file "
                     f"{str(answers)!r}); toolwire scores {_SCORED}.")


def available_categories(data_dir: str | Path) -> list[str]:
    """Return the sorted canonical categories toolwire can score in ``data_dir``: those with a question file
    (``BFCL_v4_<name>.json``, or an earlier release's name) that are single-turn with AST answers, and that have
    their answer file (or need none, as the irrelevance ones) unless toolwire knows them (review 244 #1: multi-turn,
    exec, web-search, memory and format_sensitivity files are left out, as :func:`load_category` refuses them).

    Raises:
        UserError: ``data_dir`` is not a folder.
    """
    folder = Path(data_dir)
    if not folder.is_dir():
        raise _no_folder(folder)
    found: set[str] = set()
    for path in folder.glob("*.json"):
        for prefix in _PREFIXES:
            if path.name.startswith(prefix):
                stem = path.name[len(prefix):-len(".json")]
                if prefix.startswith("gorilla") and stem == "relevance":
                    stem = "irrelevance"
                name = resolve_category(stem)
                if _unscored(name) is None and (name in _AST_KNOWN or name.endswith("relevance")
                                                or (folder / "possible_answer" / path.name).is_file()):
                    found.add(name)
                break
    return sorted(found)


def find_category_files(data_dir: str | Path, category: str) -> tuple[Path, Path | None]:
    """Find the question file of ``category`` in ``data_dir`` and its answer file.

    Args:
        data_dir: the folder holding the ``BFCL_v*_<category>.json`` files and ``possible_answer/``.
        category: a category name (any release's spelling).

    Returns:
        ``(questions_path, answers_path)``; ``answers_path`` is None for irrelevance / relevance
        categories, which are scored without an answer key.

    Raises:
        UserError: the folder, the question file, or a needed answer file is missing.
    """
    folder = Path(data_dir)
    canonical = resolve_category(category)
    if not folder.is_dir():
        raise _no_folder(folder)
    if _is_answer_folder(folder):
        raise _answer_folder(folder)
    for name in _file_names(canonical):
        questions = folder / name
        if questions.is_file():
            if canonical.endswith("relevance"):
                return questions, None
            answers = folder / "possible_answer" / name
            if not answers.is_file():
                raise _no_answers(canonical, answers)
            return questions, answers
    have = ", ".join(available_categories(folder)) or "none"
    raise UserError(f"No BFCL data for category {category!r} in {str(folder)!r}; available: {have}.")


@dataclass(frozen=True)
class ToolSet:
    """The tools of one BFCL item in OpenAI format, and the map back to the original names.

    Attributes:
        tools: ``[{"type": "function", "function": {"name", "description", "parameters"}}, ...]``.
        names: sent name -> original BFCL name (``"math_factorial"`` -> ``"math.factorial"``); a
            bijection, covering every tool.
    """

    tools: list[dict[str, Any]]
    names: dict[str, str]

    def original_name(self, sent: str) -> str:
        """Return the BFCL name of ``sent``, a name the model called (unknown names are returned unchanged)."""
        return self.names.get(sent, sent)


@dataclass(frozen=True)
class BfclItem:
    """One BFCL test item.

    Attributes:
        id: the item id (``"simple_python_0"``); generated as ``<category>_<line>`` when a file has none.
        category: the canonical category name.
        question: the turns, each a list of ``{"role", "content"}`` dicts.
        functions: the BFCL function docs offered, as in the file (BFCL schema dialect).
        ground_truth: the answer key ``[{"<name>": {"<param>": [allowed...]}}]``, one entry per expected
            call; None for irrelevance / relevance categories.
    """

    id: str
    category: str
    question: list[list[dict[str, Any]]]
    functions: list[dict[str, Any]]
    ground_truth: list[dict[str, Any]] | None = None
    _toolset: list[ToolSet] = field(default_factory=list, repr=False, compare=False)

    def toolset(self) -> ToolSet:
        """Return (and cache) :func:`functions_to_tools` of this item's functions.

        Raises:
            UserError: as :func:`functions_to_tools` (a function doc without a name, or two with one name), the
                message starting with the item's id.
        """
        if not self._toolset:
            try:
                self._toolset.append(functions_to_tools(self.functions))
            except UserError as exc:
                raise UserError(f"BFCL item {self.id!r}: {exc}") from None
        return self._toolset[0]

    def messages(self) -> list[BaseMessage]:
        """Return the question as a new list of toolwire messages (see :func:`question_to_messages`).

        Raises:
            UserError: a message that is not an object, or one with a role other than system, user or assistant.
        """
        return question_to_messages(self.question)

    @property
    def fingerprint(self) -> str:
        """The sha256 (hex) of what the model is asked: every turn of the question and the function docs, as JSON
        with sorted keys. A report keeps it per item, so a resumed run notices an item whose function docs or
        earlier turns changed while its id, last question and answer key stayed the same."""
        text = json.dumps([self.question, self.functions], sort_keys=True, ensure_ascii=False, separators=(",", ":"),
                          default=str)
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()

    @property
    def question_text(self) -> str:
        """The text of the last user message (for reports; ``""`` when there is none, or the question is not
        turns of ``{"role", "content"}`` objects)."""
        for turn in reversed(self.question if isinstance(self.question, list) else []):
            for message in reversed(turn if isinstance(turn, list) else []):
                if isinstance(message, Mapping) and message.get("role") == "user":  # (a malformed item: "")
                    return str(message.get("content") or "")
        return ""


def load_category(data_dir: str | Path, category: str, limit: int | None = None) -> list[BfclItem]:
    """Load the items of one category, each with its answer key, in file order.

    Args:
        data_dir: the BFCL data folder (see :func:`find_category_files`).
        category: a category name (``"simple"`` and ``"simple_python"`` are the same).
        limit: keep only the first ``limit`` items (None: all).

    Returns:
        The items. Answers are matched by ``id`` (by line position when the files have no ids).

    Raises:
        UserError: missing files, invalid JSON, a question file with no item, a negative ``limit``, two items
            (or answers) with one id, an item without an answer, an item whose ``function`` entries or question
            messages are not JSON objects (naming its file and line), a multi-turn category (those need
            executing the tools, which this loader does not do), or a category whose answers are not AST answer
            keys (``exec_*``, ``executable_*``, ``rest``, ``web_search_*``, ``memory_*``, ``chatable``, v4's
            ``format_sensitivity``, or any category toolwire does not know that has no answer file).
    """
    canonical = resolve_category(category)
    refusal = _unscored(canonical)
    if refusal is not None:
        raise refusal
    if limit is not None and limit < 0:
        raise UserError(f"limit must be 0 or more, not {limit}.")
    questions_path, answers_path = find_category_files(data_dir, canonical)
    lines: list[int] = []
    rows = _read_jsonl(questions_path, lines)
    if not rows:
        raise UserError(f"BFCL file {str(questions_path)!r} holds no items: get a fresh copy of the BFCL data.")
    _refuse_repeated_ids(rows, questions_path, generated=canonical)  # (the ids given to lines without one too)
    if limit is not None:
        rows = rows[:limit]
    answers: dict[str, list[dict[str, Any]]] = {}
    by_line: list[list[dict[str, Any]]] = []
    if answers_path is not None:
        answer_rows = _read_jsonl(answers_path)
        _refuse_repeated_ids(answer_rows, answers_path)
        for line, row in enumerate(answer_rows, start=1):
            truth = _normalise_answer(row, f"{str(answers_path)!r} (item {row.get('id', line)!r})")
            by_line.append(truth)
            if "id" in row:
                answers[str(row["id"])] = truth
    items: list[BfclItem] = []
    for index, row in enumerate(rows):
        item_id = str(row.get("id", f"{canonical}_{index}"))
        where = f"{questions_path}:{lines[index]}"
        functions = _item_functions(row.get("function"), where)
        truth: list[dict[str, Any]] | None = None
        if answers_path is not None:
            if item_id in answers:
                truth = answers[item_id]
            elif "id" not in row and index < len(by_line):
                truth = by_line[index]
            else:
                raise UserError(f"BFCL item {item_id!r} has no answer in {str(answers_path)!r}: add its answer line, "
                                "or get a fresh copy of the BFCL data (question and answer files of one release).")
        if truth is not None:
            truth = _numbered_names(truth, functions)
        items.append(BfclItem(item_id, canonical, _normalise_question(row.get("question", ""), where),
                              functions, truth))
    return items


def json_type(bfcl_type: Any) -> str:
    """Return the JSON Schema type of ``bfcl_type``, a BFCL / Python / Java type name or a list of them (the
    BFCL README's type mapping).

    ``dict`` -> ``object``; ``float``/``double`` -> ``number``; ``integer``/``long``/``short``/``byte``
    -> ``integer``; ``string``/``char``/``any`` -> ``string``; ``boolean``/``bool`` -> ``boolean``;
    ``array``/``list``/``tuple`` -> ``array``; anything unknown or missing -> ``string``. Case is
    ignored; for a list of types the first one that is not ``null`` is used.
    """
    if isinstance(bfcl_type, list):
        named = [t for t in bfcl_type if str(t).lower() != "null"] or bfcl_type or [None]
        bfcl_type = named[0]
    if not isinstance(bfcl_type, str):
        return "string"
    return _TYPE_MAP.get(bfcl_type.strip().lower(), "string")


def convert_schema(schema: Any) -> dict[str, Any]:
    """Return ``schema``, one BFCL parameter schema, converted to JSON Schema, recursively (a new dict; the
    input is untouched).

    ``type`` is mapped with :func:`json_type`; ``properties`` (each value), ``items`` and a dict
    ``additionalProperties`` are converted recursively; BFCL's non-standard ``optional`` flag is
    dropped; every other key (``description``, ``enum``, ``default``, ``required``...) is kept.
    A schema that is not a dict becomes ``{"type": "string"}``.
    """
    if not isinstance(schema, Mapping):
        return {"type": "string"}
    out: dict[str, Any] = {"type": json_type(schema.get("type"))}
    for key, value in schema.items():
        if key in ("type", "optional"):
            continue
        if key == "properties":
            props = value if isinstance(value, Mapping) else {}
            out[key] = {str(k): convert_schema(v) for k, v in props.items()}
        elif key == "items":
            out[key] = convert_schema(value[0] if isinstance(value, list) and value else value)
        elif key == "additionalProperties" and isinstance(value, Mapping):
            out[key] = convert_schema(value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def function_to_tool(doc: Mapping[str, Any], name: str | None = None) -> dict[str, Any]:
    """Convert one BFCL function doc to an OpenAI-format tool dict.

    Args:
        doc: ``{"name", "description", "parameters"}`` in BFCL's dialect.
        name: the name to send (default: ``doc["name"]``; see :func:`functions_to_tools` for renaming).

    Returns:
        ``{"type": "function", "function": {"name", "description", "parameters"}}`` where
        ``parameters`` is a JSON Schema object (``{"type": "object", "properties": {...}, ...}``).

    Raises:
        UserError: the doc has no name, or its ``parameters`` is not an object schema whose ``properties`` map
            names to schemas (review 85: ``"properties": ["x"]`` reached the model, then failed the checker).
    """
    original = doc.get("name")
    if not original or not isinstance(original, str):
        raise UserError("A BFCL function doc has no name.")
    raw = doc.get("parameters") or {}
    props = raw.get("properties", {}) if isinstance(raw, Mapping) else None
    if not isinstance(props, Mapping) or not all(isinstance(v, Mapping) for v in props.values()):
        raise UserError(f"The BFCL function {original!r} has parameters that are not an object of named parameter "
                        "schemas ({\"type\": \"dict\", \"properties\": {\"name\": {...}}}): fix or remove that item.")
    params = convert_schema(raw)
    params["type"] = "object"
    params.setdefault("properties", {})
    return {"type": "function",
            "function": {"name": name or original, "description": str(doc.get("description") or ""),
                         "parameters": params}}


def _safe_name(name: str) -> str:
    return (_NAME_BAD.sub("_", name) or "function")[:64]


def functions_to_tools(functions: Sequence[Mapping[str, Any]]) -> ToolSet:
    """Convert an item's function docs to tools, renaming names providers reject, reversibly.

    Names that are not ``[A-Za-z0-9_-]{1,64}`` get every other character replaced by ``_`` (so
    ``math.factorial`` becomes ``math_factorial``, as the leaderboard does). If that collides with another
    function's name in the same item, a suffix ``_2``, ``_3``... is added, so the map is a bijection.

    Args:
        functions: the item's function docs, ``{"name", "description", "parameters"}`` each (BFCL's dialect).

    Returns:
        A :class:`ToolSet` (``tools`` in the input order, ``names``: sent name -> original name).

    Raises:
        UserError: a doc that is not an object, a doc without a name, or two docs with the same name.
    """
    for doc in functions:
        if not isinstance(doc, Mapping):
            raise UserError(f"A BFCL function doc is {_shown(doc)}, not a {{\"name\", \"parameters\"}} object.")
    originals = [str(doc.get("name") or "") for doc in functions]
    if len(set(originals)) != len(originals):
        raise UserError(f"BFCL functions of one item share a name: {originals}.")
    taken = {name for name in originals if name and _safe_name(name) == name}
    sent: list[str] = []
    for name in originals:
        if name and name in taken and _safe_name(name) == name:
            sent.append(name)
            continue
        base = _safe_name(name)
        candidate, k = base, 2
        while candidate in taken:
            suffix = f"_{k}"
            candidate, k = base[: 64 - len(suffix)] + suffix, k + 1
        taken.add(candidate)
        sent.append(candidate)
    tools = [function_to_tool(doc, name) for doc, name in zip(functions, sent, strict=True)]
    return ToolSet(tools, dict(zip(sent, originals, strict=True)))


_ROLES: dict[str, type[BaseMessage]] = {
    "system": SystemMessage, "user": HumanMessage, "human": HumanMessage, "assistant": AIMessage,
}


def question_to_messages(question: Sequence[Sequence[Mapping[str, Any]]]) -> list[BaseMessage]:
    """Turn BFCL question turns into toolwire messages, in order (all turns flattened).

    ``system`` -> :class:`SystemMessage`, ``user`` -> :class:`HumanMessage`, ``assistant`` ->
    :class:`AIMessage`.

    Args:
        question: an item's ``question``: a list of turns, each a list of ``{"role", "content"}`` dicts (a
            missing role is ``"user"``; content that is not text or blocks becomes its ``str()``).

    Returns:
        A new list of messages.

    Raises:
        UserError: a message that is not an object, or one with another role.
    """
    out: list[BaseMessage] = []
    for turn in question:
        for message in turn:
            if not isinstance(message, Mapping):
                raise UserError(f"A BFCL question message is {_shown(message)}, not a {{\"role\", \"content\"}} "
                                "object.")
            role = str(message.get("role", "user")).lower()
            cls = _ROLES.get(role)
            if cls is None:
                raise UserError(f"BFCL message role {role!r} is not supported (use system, user, assistant).")
            content = message.get("content")
            out.append(cls(content if isinstance(content, str | list) else str(content or "")))
    return out
