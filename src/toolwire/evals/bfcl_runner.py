"""Run a chat model over BFCL items and score it (:func:`run_bfcl`).

Per item: the function docs become OpenAI-format tools (:func:`toolwire.evals.bfcl.functions_to_tools`),
``model.bind_tools(tools).invoke(messages)`` answers, the called names are mapped back to BFCL's
names, and :func:`toolwire.evals.bfcl_checker.check_calls` scores the calls.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from toolwire.errors import UserError
from toolwire.evals._report_lock import report_lock
from toolwire.evals._run_stops import _FAILED_IN_A_ROW as _FAILED_IN_A_ROW  # (re-exported: tests read it here)
from toolwire.evals._run_stops import _failure, _Failures
from toolwire.evals._run_stops import _server_trouble as _server_trouble
from toolwire.evals._text_replies import bind_for_scoring, prompt_mode_text, read_calls
from toolwire.evals.bfcl import BfclItem, load_category, parse_categories
from toolwire.evals.bfcl_checker import category_kind, check_calls
from toolwire.evals.report import ItemResult, Report
from toolwire.parsing.call_lists import text_calls

__all__ = ["DECODING_KEYS", "RunInterrupted", "RunStopped", "load_items", "model_label", "model_settings",
           "reply_calls", "run_bfcl", "score_item"]

DECODING_KEYS = ("dialect", "call_format", "call_probability", "declined_calls", "made_up_values", "calls_continued",
                 "parallel_call_shares", "parallel_calls_added", "parallel_calls_refused", "declined_unknown_calls",
                 "value_lists_kept")
"""The keys of a local model's ``response_metadata`` (:class:`~toolwire.models.llamacpp.ChatLlamaCpp`) an item's
report keeps as ``decoding``: what its decoding rules saw and did, to study them on whole runs."""

Progress = Callable[[int, int, int], None]

_VALUE_LISTS_RULE = "declined where a call was as likely as the call bar"
"""How a report records ``decline_value_lists=True`` (the thirty-first session's rule, which declined every list of
values, was recorded as ``true``)."""

# the model attributes that change its replies, recorded in a report so a resumed run uses the same ones
_SETTINGS = ("dialect", "temperature", "min_call_probability", "min_value_probability", "optional_argument_share",
             "parallel_call_share", "grammar", "max_tokens", "decline_unknown_calls", "decline_value_lists")


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C during :func:`run_bfcl`, after the items scored were saved; ``report`` holds them (``finished`` None).

    A ``KeyboardInterrupt``, so code that stops on Ctrl-C still does; the CLI prints ``report`` and writes its
    HTML page, so a run without ``--out`` keeps what was scored. ``running``: with threads, the items' futures
    still running (their model calls cannot be stopped; the process waits for them before it exits).
    """

    def __init__(self, report: Report, running: Sequence[Future[ItemResult]] = ()) -> None:
        super().__init__("interrupted")
        self.report = report
        self.running = list(running)


class RunStopped(UserError):
    """:func:`run_bfcl` stopped because the model failed on :data:`_FAILED_IN_A_ROW` items in a row with server
    trouble, or on the run's first :data:`_FAILED_IN_A_ROW` items with one and the same 4xx error (the request
    refused: review 197 #1), while items were left to run, after the items scored were saved; ``report`` holds
    them (``finished`` None), as :class:`RunInterrupted` does: the CLI prints it and writes its HTML page, so a run
    without ``--out`` keeps what was scored. The message says what failed and what to do."""

    def __init__(self, message: str, report: Report) -> None:
        super().__init__(message)
        self.report = report


def model_label(model: Any) -> str:
    """Return the name a report files ``model`` under: ``model.name``, else ``model.model_name`` (each only when
    a non-empty string), else its class name."""
    for attr in ("name", "model_name"):
        value = getattr(model, attr, None)
        if isinstance(value, str) and value:
            return value
    return type(model).__name__


def model_settings(model: Any) -> dict[str, Any]:
    """Return the settings of ``model`` that change its replies, as a new JSON-ready dict: those of ``dialect``,
    ``temperature``, ``min_call_probability``, ``min_value_probability``, ``optional_argument_share``,
    ``parallel_call_share``, ``grammar``, ``max_tokens``, ``decline_unknown_calls`` and ``decline_value_lists``
    (only when on, recorded as the rule it follows) it has as attributes (a local model's), and ``temperature`` from
    a provider model's ``options`` (None when it sends none); a setting left to the model's default is recorded as
    None. A local model left to its default dialect also records which those are (``default_dialects``:
    ``"pythonic; json with 2+ tools"``), so that a report of other defaults is not resumed (loading the model to read
    them), and a local model the sha256 of its GGUF file (``gguf_sha256``, from its ``file_sha256()``), so that a
    report of another file of the same name is not resumed either; a server model its ``provider`` and
    ``base_url`` (without credentials, a trailing ``/`` or a default port, scheme and host lower-cased), so that another
    server's model of the same name is not resumed either (review 85).

    Raises:
        UserError: a local model's file cannot be found or read."""
    settings: dict[str, Any] = {}
    for name in _SETTINGS:
        value = getattr(model, name, None)
        if name == "decline_value_lists" and value is False:  # its default: reports written before it existed
            continue  # lack it, and still resume
        if name == "decline_value_lists" and value is True:  # the rule's version: since the thirty-sixth session a
            value = _VALUE_LISTS_RULE  # list is declined only where a call was likely (a report of the older rule,
            # recorded as true, is not resumed with it: review 89)
        if (value is None or isinstance(value, str | int | float | bool)) and hasattr(model, name):
            settings[name] = value
    options = getattr(model, "options", None)
    if isinstance(options, dict) and (options.get("temperature") is None
                                      or isinstance(options.get("temperature"), int | float)):
        settings.setdefault("temperature", options.get("temperature"))  # (None: its default, review 197 #1)
    digest = getattr(model, "file_sha256", None)  # a local model's file: two GGUF files of one name differ
    if callable(digest) and isinstance(value := digest(), str):
        settings["gguf_sha256"] = value
    defaults = getattr(model, "default_dialects", None)  # a local model left to its default dialects
    if callable(defaults) and isinstance(value := defaults(), str):
        settings["default_dialects"] = value
    for name in ("provider", "base_url"):  # a server model: two servers may serve models of one name (review 85)
        value = getattr(model, name, None)
        if isinstance(value, str) and value and not (name == "provider" and value == "llamacpp"):
            settings[name] = _server_url(value) if name == "base_url" else value
    return settings


_DEFAULT_PORTS = {"http": 80, "https": 443}


def _server_url(url: str) -> str:
    """``url`` as a report records a server: without credentials (:func:`_without_credentials`), its scheme and
    host lower-cased (they are case-insensitive, RFC 3986 6.2.2.1: review 238 #5 found ``http://LOCALHOST:8000/v1``
    refused on resume as another server), without the scheme's default port or an empty one (``:80`` for http,
    ``:443`` for https, ``:``; the same server, RFC 3986 6.2.3: review 244 #3), and without a trailing ``/`` on its
    path, which reaches the same endpoint (review 197 #4); the rest (path, query) is kept as it is."""
    url = _without_credentials(url)  # (no user:password@ left: the whole netloc is the host and port)
    parts = urlsplit(url)
    netloc = parts.netloc.lower()
    host, colon, port = netloc.rpartition(":")
    if colon and "]" not in port and (not port or (port.isdigit() and int(port) == _DEFAULT_PORTS.get(parts.scheme))):
        netloc = host  # (an IPv6 host's own colons end before its "]")
    lowered = parts._replace(netloc=netloc, path=parts.path.rstrip("/"))  # (urlsplit lower-cases the scheme
    if lowered == parts and url.startswith(parts.scheme):  # itself): a URL already so is kept verbatim
        return url
    return urlunsplit(lowered)


def _without_credentials(url: str) -> str:
    """``url`` without a ``user:password@`` part, and with secret query values masked (``?api_key=****``,
    :func:`toolwire._secrets.redact_url`): a report is shared; the server is what matters."""
    from toolwire._secrets import redact_url

    url = redact_url(url)
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"[{host}]" if ":" in host else host
    netloc += f":{parts.port}" if parts.port is not None else ""
    return urlunsplit(parts._replace(netloc=netloc))


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def reply_calls(reply: Any, names: dict[str, str], *, include_invalid: bool = True) -> list[dict[str, Any]]:
    """Return the calls of a model reply as a new list ``[{"name": <original BFCL name>, "args": ...}]``, valid
    calls first, then invalid ones (names not in ``names`` are kept as sent).

    Args:
        reply: an AIMessage-like object (``tool_calls`` and optionally ``invalid_tool_calls``).
        names: sent name -> original name (:attr:`toolwire.evals.bfcl.ToolSet.names`).
        include_invalid: also list calls whose arguments could not be parsed (``args`` is then the raw
            text, which the checker fails with ``wrong_type``). BFCL counts output its decoder cannot read as
            no call for (ir)relevance and as a wrong answer elsewhere, so the runner passes False for
            (ir)relevance (and reads the raw text of such calls as BFCL would, see :func:`score_item`).
    """
    calls = [{"name": names.get(str(c.get("name")), c.get("name")), "args": c.get("args")}
             for c in getattr(reply, "tool_calls", None) or ()]
    if include_invalid:
        calls += [{"name": names.get(str(c.get("name")), c.get("name")), "args": c.get("args")}
                  for c in getattr(reply, "invalid_tool_calls", None) or ()]
    return calls


def score_item(model: Any, item: BfclItem) -> ItemResult:
    """Ask ``model`` one item and score the reply.

    Args:
        model: any object with ``bind_tools(list_of_tool_dicts)`` returning an object with
            ``invoke(list_of_messages)`` that returns an AIMessage (``tool_calls``, ``usage``, ``text``).
        item: the item.

    For irrelevance and relevance, a reply without tool calls whose whole text is a call list (of any function,
    offered or not) counts as a call, as BFCL counts it (:func:`~toolwire.parsing.call_lists.text_calls`), and so do
    invalid calls that are the whole reply when BFCL's decoder reads their text (a pythonic call with a name as a
    value).

    Calls a compatible server left in the reply's text (read by ``ChatOpenAI``'s ``text_tool_calls``, marked
    ``response_metadata["tool_calls_from_text"]``), in every category: a JSON call or Python call list that ends the
    reply after prose ("I cannot help with that. Example: ```json {...}```") is no call for BFCL (FC mode reads only
    the server's ``tool_calls``; prompt mode needs the whole text to be a call list), so such a reply is scored by its
    whole text as BFCL's prompt mode reads it (:func:`~toolwire.parsing.call_lists.text_calls`: prose around them
    makes no call), and the item keeps that whole text. Calls in a marker a server's own tool-call parser reads with
    prose around them (``<tool_call>``, ``[TOOL_CALLS]``, ``<|python_tag|>``, ``<function=...>``), and calls with no
    text beside them but reasoning (``<think>`` blocks), count as read. To tell the two apart, the text reading is
    turned off on the copy ``bind_tools`` returned (``model`` is not changed) and done here with the same reader,
    which keeps the text the calls came from (:mod:`toolwire.evals._text_replies`); for a reply marked so by any other
    model, the prose left decides alone. Other models' replies (``ChatLlamaCpp``'s, native calls) are scored as they
    come.

    Returns:
        An :class:`ItemResult`. An exception from the model (any ``Exception``) becomes a failed result
        with reason ``"error"`` and the exception as the message; it is not raised.

    Raises:
        UserError: the item's function docs cannot be made tools (:meth:`BfclItem.toolset`).
    """
    toolset = item.toolset()
    start = time.perf_counter()
    try:
        bound, schemas = bind_for_scoring(model, toolset.tools)  # (calls read from text here: review 293 #1)
        reply, source = read_calls(bound.invoke(item.messages()), schemas)  # (temperature 0: the model's own setting)
    except Exception as exc:
        return ItemResult(item.id, item.category, False, "error", f"{type(exc).__name__}: {exc}",
                          item.ground_truth, [], time.perf_counter() - start, question=item.question_text,
                          decoding=_failure(exc),
                          fingerprint=item.fingerprint)
    seconds = time.perf_counter() - start
    relevance = category_kind(item.category) in ("irrelevance", "relevance")  # scored on whether a call is made
    calls = reply_calls(reply, toolset.names, include_invalid=not relevance)
    text = getattr(reply, "text", "")
    text = text if isinstance(text, str) else ""
    whole = prompt_mode_text(reply, source)
    if whole is not None:  # an example after prose: scored (and kept) as its whole text
        text = whole
        calls = [{"name": toolset.names.get(c["name"], c["name"]), "args": c["args"]} for c in text_calls(whole)]
    elif relevance and not calls:  # a reply that is itself a call list calls a function, whatever its name
        unread = [c.get("args") for c in getattr(reply, "invalid_tool_calls", None) or ()]
        # calls toolwire could not read count when they are the whole reply and BFCL's decoder reads them
        found = text_calls(text) if text.strip() else [c for raw in unread if isinstance(raw, str)
                                                       for c in text_calls(raw)]
        calls = [{"name": toolset.names.get(c["name"], c["name"]), "args": c["args"]} for c in found]
    try:
        result = check_calls(item.category, item.functions, item.ground_truth, calls)
    except Exception as exc:  # an answer key the checker cannot read fails this item, not the run
        return ItemResult(item.id, item.category, False, "error", f"The checker failed: {type(exc).__name__}: "
                          f"{exc}", item.ground_truth, calls, seconds, question=item.question_text,
                          fingerprint=item.fingerprint)
    usage = getattr(reply, "usage", None) or {}
    metadata = getattr(reply, "response_metadata", None)
    decoding = {k: metadata[k] for k in DECODING_KEYS if k in metadata} if isinstance(metadata, dict) else {}
    return ItemResult(item.id, item.category, result.valid, result.reason, result.message, item.ground_truth,
                      calls, seconds, int(usage.get("input_tokens") or 0),
                      int(usage.get("output_tokens") or 0), item.question_text, text, decoding, item.fingerprint)


_LABELS = {"dialect": "--dialect", "min_call_probability": "--min-call-probability",
           "min_value_probability": "--min-value-probability", "optional_argument_share": "--optional-argument-share",
           "parallel_call_share": "--parallel-call-share", "decline_value_lists": "--decline-value-lists",
           "default_dialects": "the model's default dialects", "gguf_sha256": "the GGUF file's sha256",
           "provider": "the provider", "base_url": "the server"}
"""How a setting is named in the message refusing to resume a report run with other settings."""

_RECORDED_LATER = frozenset({"gguf_sha256", "provider", "base_url"})
"""Settings reports began to record after reports existed: a report without one is still resumed."""


def _setting_text(value: Any) -> str:
    return "the model's default" if value is None else repr(value)


def _previous(out: Path | None, model: str, settings: dict[str, Any]
              ) -> tuple[dict[str, ItemResult], list[ItemResult], list[str], str | None, str]:
    """The scored items of an existing report at ``out``: ``(reusable by id, all items, its categories, when it
    was started, its data folder)``.

    Raises:
        UserError: the file holds another model's report, or one run with other settings (it is never replaced
            or mixed silently); a report written before settings were recorded is resumed.
    """
    old = Report.load_existing(out) if out is not None else None  # (an empty file: no report yet, review 167)
    if out is None or old is None:
        return {}, [], [], None, ""
    if old.model != model:
        raise UserError(f"{str(out)!r} holds a report of {old.model!r}, not {model!r}: pass another --out, "
                        "or delete the file to start over.")
    if old.settings is not None:
        recorded = dict(old.settings)
        if isinstance(recorded.get("base_url"), str):  # (written with its trailing / before review 197 #4)
            recorded["base_url"] = _server_url(recorded["base_url"])
        changed = [f"{_LABELS.get(k, k)} {_setting_text(recorded.get(k))} there, "
                   f"{_setting_text(settings.get(k))} now"
                   for k in sorted(set(recorded) | set(settings)) if recorded.get(k) != settings.get(k)
                   and not (k == "default_dialects" and recorded.get("dialect") != settings.get("dialect"))
                   and not (k in _RECORDED_LATER and k not in recorded)]  # reports before they were
        if changed:
            raise UserError(f"{str(out)!r} holds a run with other settings ({'; '.join(changed)}): pass another "
                            "--out, or the same --model and options to resume it.")
    return ({i.id: i for i in old.items if i.reason != "error"}, list(old.items), list(old.categories),
            old.started or None, old.data_dir)


def _folder(path: str) -> str:
    """``path`` made absolute (``~`` expanded, against the current directory) and resolved, as a report records its
    data folder; ``path`` itself when it cannot be resolved."""
    try:
        return str(Path(path).expanduser().resolve())
    except (OSError, RuntimeError, ValueError):
        return path


def _same_folder(recorded: str, out: Path | None, data_dir: str | Path) -> bool:
    """Whether a report's ``recorded`` data folder is the folder ``data_dir`` (this run's ``--data``).

    Reports since review 85 record an absolute path. Older ones recorded ``--data`` as typed, so a relative path,
    relative to a working directory the report does not record (review 87: resumed from another directory, the same
    folder was refused as another one). Such a path is taken as relative to either of the two likely directories:
    the current one (the same command run again where it was run) and the report file's own (a run started beside
    its report, ``--out r.json``); the folder is the same when either gives ``data_dir``. Neither guess can be proved
    right, but a wrong match needs a folder at that relative path from one of them that is also this run's ``--data``.
    """
    here = _folder(str(data_dir))
    if _folder(recorded) == here:
        return True
    path = Path(recorded)
    if out is None or path.is_absolute() or recorded.startswith("~"):
        return False
    return _folder(str(out.expanduser().absolute().parent / path)) == here


def load_items(data_dir: str | Path, categories: str | Iterable[str] | None = None,
               limit: int | None = None) -> list[BfclItem]:
    """Load the items of ``categories`` (as :func:`run_bfcl` takes them) and make each one's tools, so that bad data
    is found before any model is asked (or loaded).

    Args:
        data_dir: the BFCL data folder (see :func:`~toolwire.evals.bfcl.find_category_files`).
        categories, limit: as :func:`run_bfcl` takes them (``limit``: the first that many items of each category).

    Returns:
        The items, category by category, in data order, their tools already made.

    Raises:
        UserError: as :func:`~toolwire.evals.bfcl.load_category` and :meth:`BfclItem.toolset`, or two items of
            different categories with one id (a report files each result under its id: one would overwrite the
            other, and a resumed run would take one for the other).
    """
    items = [item for category in parse_categories(categories) for item in load_category(data_dir, category, limit)]
    seen: dict[str, str] = {}
    for item in items:
        item.toolset()
        other = seen.setdefault(item.id, item.category)
        if other != item.category:
            raise UserError(f"BFCL categories {other} and {item.category} both have an item with the id {item.id!r}; "
                            "ids must be unique across the categories of a run: rename one, or run them into "
                            "separate --out files.")
    return items


def _same_item(old: ItemResult, item: Any) -> bool:
    """Whether a resumed report's result ``old`` was scored on this very ``item``: the same answer key and, when
    the report recorded them, the same question and the same :attr:`~toolwire.evals.bfcl.BfclItem.fingerprint`
    (every turn and the function docs). Ids repeat across BFCL versions (``multiple_0`` in v3 and v4), so an id
    alone does not say a verdict still holds (review 42); an item that changed is run again."""
    return (old.expected == item.ground_truth and (not old.question or old.question == item.question_text)
            and (not old.fingerprint or old.fingerprint == item.fingerprint))


def run_bfcl(model: Any, data_dir: str | Path, categories: str | Iterable[str] | None = None,
             limit: int | None = None, concurrency: int = 1, out: str | Path | None = None,
             progress: Progress | None = None, on_resume: Callable[[int, int], None] | None = None) -> Report:
    """Run ``model`` over BFCL categories and return the scored :class:`Report`.

    Args:
        model: a duck-typed chat model: ``bind_tools(tools)`` (tools: OpenAI-format dicts) returning an
            object whose ``invoke(messages)`` returns a toolwire ``AIMessage``. ``model.name`` (or
            ``model_name``) names it in the report.
        data_dir: the BFCL data folder (``BFCL_v*_<category>.json`` and ``possible_answer/``).
        categories: ``"simple_python,multiple"`` or a list; None: the five core categories
            (:data:`toolwire.evals.bfcl.CATEGORIES`).
        limit: the first ``limit`` items of each category (None: all).
        concurrency: how many items run at once, on threads (1: one after the other).
        out: a JSON report file, rewritten atomically after every item (an empty file counts as none yet), and
            locked for the run (a lock file ``<out>.lock`` beside it, removed at the end: a second run into it at
            the same time is refused; one left by a killed run is taken over). If it
            holds a report, the item ids it scored are not run again (resume), unless their question or answer key
            changed (another data folder, another BFCL version); items that failed with ``"error"`` are run again.
            Items it holds outside this run's ``categories``/``limit`` are kept (after this run's items), so a
            quick ``limit`` rerun never deletes a long run's results.
        progress: ``progress(done, total, correct)``, called from the calling thread once at the start
            (resumed items counted) and after every item.
        on_resume: ``on_resume(kept, total)``, called once when ``out`` held a report this run may resume (after
            every check that refuses one, so a refused resume is never announced): ``kept`` of this run's ``total``
            items are scored already and not run again.

    Returns:
        The report: items of the selection, in data order; ``finished`` set.

    Raises:
        UserError: bad categories, missing or invalid data (an item whose function docs cannot be made tools, or
            an id in two categories, included: found before any item runs), concurrency below 1, an unreadable
            ``out``, or an ``out`` that holds another model's report, one run with other settings
            (:func:`model_settings`), items outside this run's selection scored on another data folder (kept,
            they would be counted unchecked; a report records its folder as an absolute path, and an older report's
            relative one is taken as relative to the current directory or to the report's own, either matching:
            :func:`_same_folder`), an item of another category with the id of one of this run's, or an ``out``
            another run is writing (or whose lock file cannot be made).
        RunStopped: a :class:`~toolwire.errors.UserError`: the model failed (raised) on :data:`_FAILED_IN_A_ROW`
            items in a row with server trouble, or on this run's first :data:`_FAILED_IN_A_ROW` items (those ``out``
            held as failed left out) with one and the same 4xx error, while items were left to run (the items
            scored are saved first and held as its ``report``, ``finished=None``: a rerun with the same ``out``
            resumes; with threads, no item starts once the stop is decided, and the items still running are waited
            for, each bounded by its model call's own timeout, and kept too). A stop on the last item, or once
            every item has started, is not raised: every item was run, and the report is finished (its errors
            counted as such).
        RunInterrupted: a ``KeyboardInterrupt``, raised after saving the items scored so far to ``out`` and
            holding them as its ``report`` (which then has ``finished=None``; when this run scored no item,
            ``out`` is left as it was, not written); with threads, queued items are
            cancelled and running ones abandoned (its ``running``: Python still waits for those model calls to
            return before the process exits). A rerun with the same ``out`` resumes.
    """
    if concurrency < 1:
        raise UserError(f"concurrency must be 1 or more, not {concurrency}.")
    cats = parse_categories(categories)
    items = load_items(data_dir, cats, limit)  # every item's tools, before the model is asked anything
    out_path = Path(out) if out is not None else None
    with report_lock(out_path):  # one run at a time per report (review 197 #3)
        return _run(model, items, cats, data_dir, concurrency, out_path, progress, on_resume)


def _run(model: Any, items: list[BfclItem], cats: list[str], data_dir: str | Path, concurrency: int,
         out_path: Path | None, progress: Progress | None, on_resume: Callable[[int, int], None] | None) -> Report:
    """:func:`run_bfcl`'s run once its items are loaded and its report file locked (its arguments and errors)."""
    name = model_label(model)
    settings = model_settings(model)
    done: dict[str, ItemResult] = {}
    previous, before, old_categories, started, old_data = _previous(out_path, name, settings)
    filed = {i.id: i.category for i in before}
    for item in items:  # a report files each result under its id (see load_items)
        if filed.get(item.id, item.category) != item.category:
            raise UserError(f"{str(out_path)!r} holds the item {item.id!r} of {filed[item.id]}, and this run's "
                            f"{item.category} has an item with that id: pass another --out.")
    for item in items:
        old = previous.get(item.id)
        if old is not None and _same_item(old, item):
            done[item.id] = old
    if on_resume is not None and (previous or before):
        on_resume(len(done), len(items))
    selected = {item.id for item in items}
    kept = [i for i in before if i.id not in selected]  # scored earlier, outside this run's selection
    if kept and old_data and not _same_folder(old_data, out_path, data_dir):  # (this run's items are checked one
        # by one, _same_item; those it keeps are not: review 85 found another data set's items counted as this run's)
        raise UserError(f"{str(out_path)!r} holds {len(kept)} item{'s' if len(kept) != 1 else ''} outside this "
                        f"run's selection scored on the data in {old_data!r}, not {str(data_dir)!r}: pass another "
                        "--out, or that --data to resume it.")
    report = Report(name, [*cats, *(c for c in old_categories if c not in cats)], [], _folder(str(data_dir)),
                    started or _now(), settings=settings)  # a resumed run keeps its start
    cache: dict[str, str] = {}

    def publish(final: bool = False, save: bool = True) -> None:
        report.items = [*(done[i.id] for i in items if i.id in done), *kept]
        report.finished = _now() if final else None
        if out_path is not None and save:
            report.save(out_path, cache=cache)

    def tick() -> None:
        if progress is not None:
            progress(len(done), len(items), sum(r.valid for r in done.values()))

    todo = [item for item in items if item.id not in done]
    running: list[Future[ItemResult]] = []  # with threads, after Ctrl-C: the items still running
    failures = _Failures(resumable=out_path is not None, retried=(i.id for i in before if i.reason == "error"))
    stop: str | None = None
    resumed = len(done)
    tick()
    try:
        if concurrency == 1:
            for number, item in enumerate(todo, 1):
                result = score_item(model, item)
                done[item.id] = result
                publish()
                tick()
                stop = failures.check(result)
                if stop is not None and number < len(todo):
                    break
                stop = None  # (a stop on the last item: every item was run, a finished run)
        else:
            stop = _run_threads(model, todo, concurrency, done, publish, tick, running, failures)
    except KeyboardInterrupt:  # saved only when this run scored an item: else ``out`` is left as it was (none, an
        publish(save=len(done) > resumed)  # empty one, or the report resumed), not made a report of no item (review
        raise RunInterrupted(report, running) from None  # 238 #1: a rerun with another model was then refused)
    if stop is not None:  # (saved already, finished None; the report goes with the error, as with Ctrl-C)
        raise RunStopped(stop, report)
    publish(final=True)
    return report


def _run_threads(model: Any, todo: Sequence[BfclItem], concurrency: int, done: dict[str, ItemResult],
                 publish: Callable[[], None], tick: Callable[[], None], running: list[Future[ItemResult]],
                 failures: _Failures) -> str | None:
    # workers only compute; results are recorded, saved and reported here, on the calling thread. At most
    # ``concurrency`` items are handed to the workers at a time, the next one only once a result is recorded and the
    # run goes on, so that no item starts once the server-failures stop is decided (review 87: queued items started
    # meanwhile). On that stop, the items still running are waited for (each bounded by its model call's own
    # timeout), each one that finishes recorded and saved, and then the stop's message is returned (None: the run
    # went on to the end, or the stop came once every item had started, so every item was run: review 167). On an
    # exception (Ctrl-C), the futures still running are added to ``running``.
    executor = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="bfcl")
    queue = iter(todo)
    pending: dict[Future[ItemResult], BfclItem] = {}
    stop: str | None = None
    started = 0

    def start_next() -> None:
        nonlocal started
        item = next(queue, None)
        if item is not None:
            pending[executor.submit(score_item, model, item)] = item
            started += 1

    try:
        for _ in range(concurrency):
            start_next()
        while pending:
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                item = pending.pop(future)
                done[item.id] = result = future.result()
                stop = stop or failures.check(result)
                if stop is None:
                    start_next()
                publish()
                tick()
    except BaseException:
        executor.shutdown(wait=False, cancel_futures=True)
        for future, item in pending.items():  # keep the items that finished meanwhile
            if future.done() and not future.cancelled() and future.exception() is None:
                done[item.id] = future.result()
            elif not future.done():
                running.append(future)
        raise
    executor.shutdown(wait=True)
    return stop if started < len(todo) else None
