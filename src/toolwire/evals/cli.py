"""Command line of the evaluations: ``toolwire eval bfcl ...`` (this module's ``app`` is mounted as ``eval``).

Example::

    toolwire eval bfcl --data ../shared/bfcl --category simple_python,irrelevance --limit 50 \\
        --model qwen2.5-coder-0.5b --out bfcl.json --html bfcl.html

Errors are printed as one line (``error: ...``, as the main ``toolwire`` command does) with exit
code 1 (a run stopped on server failures in a row first prints the table of the items scored and writes ``--html``
for them, as Ctrl-C does); Ctrl-C prints the table of the items scored so far, writes ``--html`` for them, saves them to
``--out`` (rerun the same command to resume) and exits with code 130 (with ``--concurrency``, once the items still
running end; a second Ctrl-C quits at once).
"""

from __future__ import annotations

import os
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import Future, wait
from contextlib import ExitStack
from datetime import timedelta
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from toolwire._cli_errors import share, whole_number
from toolwire._printing import terminal_text
from toolwire._std_streams import output_failed, unwritable_output
from toolwire.errors import ToolwireError, UserError
from toolwire.evals._report_lock import report_lock
from toolwire.evals.bfcl import CATEGORIES, parse_categories
from toolwire.evals.bfcl_runner import RunStopped, load_items, run_bfcl
from toolwire.evals.report import Report, load_published_scores, parse_item_counts, write_html

__all__ = ["LogLines", "app", "bfcl", "default_temperature_only"]

app = typer.Typer(help="Evaluate a model on public benchmarks.", no_args_is_help=True,
                  add_completion=False, pretty_exceptions_enable=False)


@app.callback()
def _group() -> None:
    """Evaluate a model on public benchmarks (BFCL)."""


def _check_report_before_loading(old: Report, out: Path, model: str | None, dialect: str | None) -> None:
    """Refuse the report ``old`` at ``out`` when ``--model`` names another model of toolwire's registry (``None``,
    ``"local"``, a registry name or ``"local:<name>"``) or ``--dialect`` another dialect than it was run with, before
    the model is fetched and loaded; the run's own check (:func:`~toolwire.evals.bfcl_runner.run_bfcl`) refuses
    every other difference once the model is made.

    Raises:
        UserError: as that check words it.
    """
    from toolwire.models.registry import DEFAULT_MODEL, REGISTRY

    name = (model or "local").strip().removeprefix("local:")
    name = DEFAULT_MODEL if name in ("local", "") else name
    if name in REGISTRY and old.model != name:
        raise UserError(f"{str(out)!r} holds a report of {old.model!r}, not {name!r}: pass another --out, "
                        "or delete the file to start over.")
    if dialect is not None and old.settings is not None and old.settings.get("dialect", dialect) != dialect:
        from toolwire.evals.bfcl_runner import _setting_text  # (worded as the run's own check words it)

        there = _setting_text(old.settings["dialect"])
        raise UserError(f"{str(out)!r} holds a run with other settings (dialect {there} there, "
                        f"{_setting_text(dialect)} now): pass another --out, or the same --model and options to resume "
                        "it.")


def default_temperature_only(chat_model: Any) -> bool:
    """Whether ``chat_model`` takes only its default temperature: an OpenAI reasoning model (o-series, gpt-5, codex,
    as :data:`toolwire.models.lowering.openai._REASONING_MODEL` names them), which answers any other with 400
    "Unsupported value: 'temperature'", so ``toolwire eval bfcl`` runs it without one (review 197 #1).

    Args:
        chat_model: a built chat model (its ``provider`` and ``model_name`` are read; anything else gives False).

    Returns:
        True for a ``ChatOpenAI`` (any server: a gateway in front of OpenAI refuses it too) of such a model name."""
    from toolwire.models.lowering.openai import _REASONING_MODEL

    name = getattr(chat_model, "model_name", None)
    return (getattr(chat_model, "provider", "") == "openai" and isinstance(name, str)
            and _REASONING_MODEL.match(name) is not None)


def _load_model(model: str | None, dialect: str | None, min_call_probability: float | None = None,
                min_value_probability: float | None = None, optional_argument_share: float | None = None,
                parallel_call_share: float | None = None, decline_value_lists: bool = False) -> Any:
    """Build the chat model with ``toolwire.models.init_chat_model`` (imported lazily), at temperature 0 as BFCL
    asks every item (greedy decoding: a rerun gives the same replies), or without a temperature for a model that
    takes only its default (:func:`default_temperature_only`: the command says so in a line).

    ``min_call_probability``, ``min_value_probability``, ``optional_argument_share`` and
    ``parallel_call_share``: the local model's options of those names (None: its own default);
    ``decline_value_lists``: True turns the local model's option of that name on.

    Raises:
        UserError: toolwire.models.init_chat_model is not available, or ``dialect`` or one of those options was
            set for a model that is not local (it would be ignored, and the run would not measure it).
    """
    try:
        from toolwire.models import init_chat_model
    except (ImportError, AttributeError) as exc:
        raise UserError("toolwire.models.init_chat_model is not available in this installation.") from exc
    from toolwire._warn_site import collected_warnings, warn_user
    from toolwire.cli import check_server_url  # (here: toolwire.cli mounts this module's app)

    check_server_url(model)
    with collected_warnings() as warned:  # (a reasoning model's "temperature left out": this command's own line says)
        chat_model = init_chat_model(model, dialect=dialect, temperature=0)  # (BFCL's rule; a local model's default)
    if dialect is not None and getattr(chat_model, "provider", "") != "llamacpp":  # as `toolwire ask` refuses it
        raise UserError(f"--dialect applies to local models only, not to {model!r}: leave it out.")
    if default_temperature_only(chat_model):  # OpenAI refuses every item sent temperature 0 (review 197 #1)
        chat_model = init_chat_model(model)
    else:
        for text, category in warned:
            warn_user(text, category)
    local = {"min_call_probability": min_call_probability, "min_value_probability": min_value_probability,
             "optional_argument_share": optional_argument_share, "parallel_call_share": parallel_call_share}
    for name, value in local.items():
        if value is None:
            continue
        if getattr(chat_model, "provider", "") != "llamacpp":
            flag = "--" + name.replace("_", "-")
            raise UserError(f"{flag} applies to local models only, not to {model!r}: leave it out.")
        setattr(chat_model, name, float(value))
    if decline_value_lists:
        if getattr(chat_model, "provider", "") != "llamacpp":
            raise UserError(f"--decline-value-lists applies to local models only, not to {model!r}: leave it out.")
        chat_model.decline_value_lists = True
    if getattr(chat_model, "provider", "") == "llamacpp":
        # every BFCL item has its own tools, so a disk cache of the system turn would only be written; and
        # each item is evaluated from an empty KV cache, so its reply does not depend on the item run before
        # it (a prompt cut into other batches gives logits that differ in their last bits, which can flip a
        # near-tie): a subset, a resumed run and a full run give an item the same reply
        chat_model.prompt_cache = False
        chat_model.reuse_kv = False
    return chat_model


def _count_notes(items: Sequence[Any], readme: Path) -> list[str]:
    """A note for each category whose data holds another number of items than the data's README lists (a file cut
    at a line boundary reads as a shorter category: review 85), whose scores then do not compare with the
    published ones."""
    try:
        listed = parse_item_counts(readme.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    found = Counter(item.category for item in items)
    return [f"note: {category} has {found[category]} items, but {readme} lists {listed[category]}: the data file "
            "may be cut short, and its accuracy does not compare with the published scores."
            for category in found if category in listed and listed[category] != found[category]]


def _our_page(path: Path) -> bool:
    """Whether ``path`` is a page ``--html`` wrote (its ``<meta name="generator">``, or for pages written before it
    its ``<title>BFCL report: ...``, in its first 2,000 bytes), or an empty file, which it may overwrite."""
    from toolwire.evals.report_html import GENERATOR

    try:
        with path.open("rb") as f:
            head = f.read(2000)
    except OSError:
        return True  # (the write permission check below says what is wrong)
    return (not head.strip() or f'<meta name="generator" content="{GENERATOR}">'.encode() in head
            or (b"<title>BFCL report: " in head and b"<!DOCTYPE html>" in head))  # (pages written before the tag)


def _check_outputs(out: Path | None, html: Path | None) -> None:
    """Refuse, before the model loads, an ``--out`` or ``--html`` that cannot be written, so a long run does not
    end without its report (reviews 26 and 42): a folder, a path under a file, a file or folder without write
    permission, or one file named for both (the page would overwrite the report, which could then not be resumed).

    An existing ``--html`` file must be a page it wrote (or empty): review 85 had it replace a JSON report.

    Raises:
        UserError: one of those; the message says which option and what to pass instead.
    """
    if out is not None and html is not None and out.resolve() == html.resolve():
        raise UserError(f"--out and --html both name {str(out)!r}: give the HTML page its own file, such as "
                        f"{str(out.with_suffix('.html'))!r}.")
    for flag, path, example in (("--out", out, "bfcl.json"), ("--html", html, "bfcl.html")):
        if path is None:
            continue
        if path.is_dir():
            raise UserError(f"{flag} {str(path)!r} is a folder: give a file name, such as {str(path / example)!r}.")
        folder = path.absolute().parent
        while not folder.exists():  # (the report's folders are made when it is written)
            folder = folder.parent
        if not folder.is_dir():
            raise UserError(f"{flag} {str(path)!r} cannot be written: {str(folder)!r} is a file, not a folder; "
                            "pass a path in a folder.")
        target = path if path.exists() else folder
        if flag == "--html" and path.is_file() and not _our_page(path):  # (review 85: it replaced a JSON report)
            other = path.with_suffix(".html") if path.suffix != ".html" else path.with_stem(path.stem + "-bfcl")
            raise UserError(f"--html {str(path)!r} is a file that is not a toolwire report page: pass a new file "
                            f"name, such as {str(other)!r}.")
        if not os.access(target, os.W_OK):
            raise UserError(f"{flag} {str(path)!r} cannot be written: no permission to write "
                            f"{'the file' if target is path else repr(str(folder))}; pass a path you can write.")


def _results_table(report: Report) -> Table:
    """The terminal table of ``report``: a row per category, then the overall row, its items and correct counts
    pooled and its accuracy the mean of the categories' (:meth:`Report.overall`, the leaderboard's rule), labelled
    so (review 167: 1 of 4 right showed as 50.00 with nothing saying why), as the HTML page labels it."""
    table = Table(title=f"BFCL: {report.model}", title_justify="left")
    for header in ("category", "items", "correct", "accuracy %", "mean s", "in tok", "out tok", "errors"):
        table.add_column(header, justify="left" if header == "category" else "right", no_wrap=True)
    for s in report.summary():
        table.add_row(s.category, str(s.count), str(s.correct), "" if s.accuracy is None else f"{s.accuracy:.2f}",
                      f"{s.mean_seconds:.2f}",
                      str(s.input_tokens), str(s.output_tokens), str(s.errors))
    overall = report.overall()
    table.add_row("overall (mean of categories)", str(len(report.items)), str(sum(i.valid for i in report.items)),
                  "" if overall is None else f"{overall:.2f}", "", "", "", "", style="bold")
    return table


def _print_whole(console: Console, table: Table) -> None:
    """Print ``table`` at the width it needs, whatever the terminal's (whose lines then wrap): rich cut the score
    table's headers to "…" at 80 columns and blanked its counts below that (review 227 #8), as it cut the model
    file names of ``models list``."""
    needed = console.measure(table, options=console.options.update_width(1000)).maximum
    if needed <= console.width:
        console.print(table)
        return
    Console(file=console.file, width=needed, force_terminal=console.is_terminal, no_color=console.no_color,
            color_system=console.color_system, highlight=False, soft_wrap=True).print(table)


def _published_table(report: Report, published: dict[str, dict[str, float]]) -> Table | None:
    ours = report.accuracy()
    cats = [c for c in report.categories if c in ours]
    rows = [(label, scores) for label, scores in published.items() if any(c in scores for c in cats)]
    if not rows:
        return None
    table = Table(title="Published (leaderboard) vs this run, accuracy %", title_justify="left")
    table.add_column("model", no_wrap=True, overflow="ellipsis", max_width=40)
    for category in cats:
        table.add_column(category, justify="right", no_wrap=True)
    table.add_row(f"{report.model} (this run)", *[f"{ours[c]:.2f}" for c in cats], style="bold")
    for label, scores in rows:
        table.add_row(label, *[f"{scores[c]:.2f}" if c in scores else "" for c in cats])
    return table


def _show_scored(report: Report | None, console: Console, html: Path | None,
                 published: dict[str, dict[str, float]]) -> Path | None:
    """For a run that ended early (Ctrl-C, or the stop on server failures in a row): print the table of the items
    ``report`` scored and, with ``--html``, write their page. Returns the page's path; None when there is no item,
    no ``--html``, or the page could not be written (said on stderr: the early end is the news, and is not hidden)."""
    if report is None or not report.items:
        return None
    _print_whole(console, _results_table(report))
    if html is None:
        return None
    try:
        write_html(report, html, published=published)
    except Exception as exc:
        typer.echo(terminal_text(f"error: the HTML report could not be written: {exc}"), err=True)
        return None
    return html


def _interrupted(report: Report | None, console: Console, out: Path | None, html: Path | None,
                 published: dict[str, dict[str, float]]) -> None:
    """On Ctrl-C: the table of the items scored so far and, with ``--html``, their page (with ``--out`` they are
    saved already), then where they are kept."""
    page = _show_scored(report, console, html, published)
    kept = [f"saved in {out}, rerun to resume"] if out is not None and _holds_report(out) else []
    # (none scored yet: no file was written, review 85, or an empty or blank one is still so, reviews 167, 168 #6)
    if page is not None:
        kept.append(f"HTML report: {page}")
    typer.echo(f"Interrupted{'; the items scored are ' + '; '.join(kept) if kept else ''}.", err=True)


def _holds_report(out: Path) -> bool:
    """Whether ``out`` holds a report (not missing, empty or blank: :meth:`Report.load_existing`)."""
    try:
        return Report.load_existing(out) is not None
    except (UserError, OSError, ValueError):
        return out.is_file() and bool(out.read_bytes().strip())


def _await_running(running: Sequence[Future[Any]], exit_now: Callable[[int], None] = os._exit) -> None:
    """After Ctrl-C with ``--concurrency`` above 1: wait, saying so, for the items still ``running`` (model calls
    cannot be stopped, and Python waits for them before it exits); a second Ctrl-C quits at once with code 130,
    through ``exit_now`` (``os._exit``: no exit handler runs, for one would free a local model that a running item
    still uses, a crash). What was scored is saved already."""
    left = [future for future in running if not future.done()]
    if not left:
        return
    typer.echo(f"Waiting for the {len(left)} item{'s' if len(left) != 1 else ''} still running to end (not kept); "
               "Ctrl-C again to quit now.", err=True)
    try:
        wait(left)
    except KeyboardInterrupt:
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        exit_now(130)


class LogLines:
    """Progress as plain lines, for a run whose stderr is a log file or a pipe (where rich draws no bar).

    Called as the runner's progress callback (``done``, ``total`` items; ``correct`` of the done ones); it
    writes one line for the first item, then at most one every ``every`` seconds, and one for the last:
    ``BFCL 120/1240 items, 78.33% right, 0:15:02 elapsed, about 2:20:10 left``. The time left is the mean
    time of the items scored by this run (resumed ones do not count) times the items still to do.

    Args:
        echo: receives each line.
        every: the least seconds between two lines.
        clock: a monotonic clock in seconds (a parameter for tests).
    """

    def __init__(self, echo: Callable[[str], None], every: float = 60.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.echo, self.every, self.clock = echo, every, clock
        self.started = clock()
        self.first: int | None = None  # items already done when this run began (a resumed report)
        self.last = float("-inf")

    def __call__(self, done: int, total: int, correct: int) -> None:
        """Take one progress report (``done`` of ``total`` items scored, ``correct`` of them right; counts of
        items) and write a line with ``echo`` when one is due (see the class)."""
        now = self.clock()
        if self.first is None:
            self.first = done
            return  # the runner's first call reports what a resumed report already holds
        if done < total and now - self.last < self.every:
            return
        self.last = now
        elapsed = now - self.started
        acc = f"{100.0 * correct / done:.2f}% right" if done else "no item scored yet"
        line = f"BFCL {done}/{total} items, {acc}, {timedelta(seconds=round(elapsed))} elapsed"
        if done < total and done > self.first:
            left = elapsed / (done - self.first) * (total - done)
            line += f", about {timedelta(seconds=round(left))} left"
        self.echo(line)


_LIMIT = whole_number("number of items", 0, 100)
"""``--limit``'s parser, and ``--concurrency``'s below: a bad value is refused in the project's sentence, not pydantic's
"Input should be ..." (review 173 #3); their help= says the range, which typer no longer shows."""
_CONCURRENCY = whole_number("number of threads", 1, 4)


# The docstring below is the command's --help text (Typer), so it has no Args section: each option's help= says
# what it is. Exits with code 1 after a one-line "error: ..." on any failure, 130 on Ctrl-C (typer.Exit).
@app.command("bfcl")
def bfcl(
    data: Annotated[Path, typer.Option("--data", help=(
        "Folder of BFCL_v*_<category>.json question files, with the answers in its possible_answer/ folder "
        "(and the published scores read from its README.md, when there is one)."))],
    # (the default said in the text, which wraps at its spaces: typer's "[default: a,b,c]" was cut, review 199 #9)
    category: Annotated[str, typer.Option(show_default=False, help=(
        "Comma-separated categories: " + ", ".join(CATEGORIES) + " (all of these by default), or live_* ones "
        "(v1-v3 names are read too)."))] = ",".join(CATEGORIES),
    limit: Annotated[int | None, typer.Option(help="First N items of each category, 0 or more.", metavar="N",
                                              parser=_LIMIT)] = None,
    model: Annotated[str | None, typer.Option(
        help="'local' (default), a registry name, a .gguf path or 'provider:model'.")] = None,
    dialect: Annotated[str | None, typer.Option(
        help="Tool-calling dialect of a local model: template, pythonic or json (default: the model's).")] = None,
    min_call_probability: Annotated[float | None, typer.Option(
        help="Local models: make a tool call only when the model opens it with at least this probability "
             "(from 0 to 1; default: the dialect's bar; 0 turns it off).",
        metavar="SHARE", parser=share)] = None,
    min_value_probability: Annotated[float | None, typer.Option(
        help="Local models: decline a tool call with a value the model is less sure of than this and "
             "that the conversation does not hold (from 0 to 1; default: the dialect's bar; 0 turns it off).",
        metavar="SHARE", parser=share)] = None,
    optional_argument_share: Annotated[float | None, typer.Option(
        help="Local models: where a pythonic tool call would close with an optional parameter left, go on "
             "with another argument when the model gives that at least this share (from 0 to 1; default: the "
             "dialect's; 0 turns it off).",
        metavar="SHARE", parser=share)] = None,
    parallel_call_share: Annotated[float | None, typer.Option(
        help="Local models: where a pythonic or json call list would close, go on with another call when the "
             "model gives that at least this share (from 0 to 1; default: the dialect's; 0 turns it off).",
        metavar="SHARE", parser=share)] = None,
    decline_value_lists: Annotated[bool, typer.Option(
        "--decline-value-lists",
        help="Local models: decline a pythonic reply that is only a list of values (['BRCA1']) so that the "
             "model calls or answers in text (off by default: it lost more irrelevance items than it won "
             "simple ones, benchmarks/ACCURACY.md).")] = False,
    concurrency: Annotated[int, typer.Option(help="Items run at once (threads), at least 1.", metavar="N",
                                             parser=_CONCURRENCY)] = 1,
    out: Annotated[Path | None, typer.Option(help=(
        "JSON report; rerun with the same file to resume (items outside the run's selection are kept; "
        "a file of another model, server, data folder or other settings, or one another run is writing, is "
        "refused)."))] = None,
    html: Annotated[Path | None, typer.Option(help="Write a self-contained HTML report here.")] = None,
) -> None:
    """Score a model on BFCL single-turn categories with toolwire's AST checker.

    Exits with 2 on a bad option (click's usage error), with 1 after a one-line error (a run stopped on server
    failures in a row: after the table of what was scored), and with 130 on Ctrl-C (after the table of what was
    scored).
    """
    console = Console()
    if not console.is_terminal:  # a log file or a pipe: rich would cut the tables at 80 columns (review 59)
        console = Console(width=max(console.width, 160))
    err = Console(stderr=True)
    published: dict[str, dict[str, float]] = {}
    locks = ExitStack()
    try:
        cats = parse_categories(category)
        _check_outputs(out, html)  # before the run: a folder given as --html would fail only after it
        locks.enter_context(report_lock(out))  # another run into --out refused before the model loads (review 197 #3)
        items = load_items(data, cats, limit)  # read and checked before the model loads (a GGUF takes seconds), then
        # again by the run: a function doc that makes no tool, or an id in two categories, said now, not mid-run
        resumed = Report.load_existing(out) if out is not None else None  # (an empty file: none yet, review 167)
        if out is not None and resumed is not None:  # a report that cannot be read, or one of another embedded model
            _check_report_before_loading(resumed, out, model, dialect)  # or dialect, said before the model is fetched
            # and loaded (review 120: a 1.1 GB download, then the refusal)
        readme = data / "README.md"
        published = load_published_scores(readme) if readme.is_file() else {}
        if limit is None and readme.is_file():
            for note in _count_notes(items, readme):
                typer.echo(terminal_text(note), err=True)
        chat_model = _load_model(model, dialect, min_call_probability, min_value_probability, optional_argument_share,
                                 parallel_call_share, decline_value_lists)
        if default_temperature_only(chat_model):
            typer.echo(terminal_text(f"note: {chat_model.model_name} takes only its default temperature, so it runs "
                                     "without temperature 0 and its replies may differ from run to run."), err=True)
        with Progress(TextColumn("[bold]BFCL[/]"), BarColumn(), MofNCompleteColumn(),
                      TextColumn("acc {task.fields[acc]}"), TimeElapsedColumn(), TextColumn("left"),
                      TimeRemainingColumn(), console=err, transient=False, disable=not err.is_terminal) as bar:
            task = bar.add_task("bfcl", total=None, acc="-")

            lines = None if err.is_terminal else LogLines(lambda line: typer.echo(line, err=True))

            def on_progress(done: int, total: int, correct: int) -> None:
                acc = f"{100.0 * correct / done:.2f}%" if done else "-"
                bar.update(task, completed=done, total=total, acc=acc)
                if lines is not None:
                    lines(done, total, correct)

            def on_resume(kept: int, total: int) -> None:  # said once the report is known to fit this run
                typer.echo(f"Resuming {out}: {kept} of this run's {total} item{'s' if total != 1 else ''} "
                           f"{'is' if kept == 1 else 'are'} scored already and not run again.", err=True)

            report = run_bfcl(chat_model, data, cats, limit=limit, concurrency=concurrency, out=out,
                              progress=on_progress, on_resume=on_resume)
        _print_whole(console, _results_table(report))
        comparison = _published_table(report, published)
        if comparison is not None:
            _print_whole(console, comparison)
        if out is not None:
            console.print(f"Report: {out}", markup=False, highlight=False)
        if html is not None:
            write_html(report, html, published=published)
            console.print(f"HTML report: {html}", markup=False, highlight=False)
    except KeyboardInterrupt as exc:
        _interrupted(getattr(exc, "report", None), console, out, html, published)
        _await_running(getattr(exc, "running", ()))
        raise typer.Exit(130) from None
    except typer.Exit:
        raise
    except RunStopped as exc:  # the server failed on items in a row: what was scored is kept, as on Ctrl-C
        page = _show_scored(exc.report, console, html, published)
        if out is not None and out.is_file():
            console.print(f"Report (unfinished): {out}", markup=False, highlight=False)
        if page is not None:
            console.print(f"HTML report: {page}", markup=False, highlight=False)
        typer.echo(terminal_text(f"error: {_said(exc)}"), err=True)
        raise typer.Exit(1) from None
    except Exception as exc:  # one clear line, never a traceback
        if isinstance(exc, OSError) and output_failed(exc):  # (a full disk: as every command says it, review 227 #2)
            unwritable_output(exc)
            raise typer.Exit(1) from None
        typer.echo(terminal_text(f"error: {_said(exc)}"), err=True)
        raise typer.Exit(1) from None
    finally:
        locks.close()


def _said(exc: Exception) -> str:
    """``exc`` as the command line says it (review 156 #3): a library error in the words of ``toolwire ask``
    (:func:`~toolwire._cli_errors.error_text`), with the advice that names a Python argument no option sets left out
    also where it quotes an item's recorded failure (the run stopped on failures in a row); the type's name for an
    error with no text."""
    from toolwire._cli_errors import error_text, recorded_text

    text = error_text(exc) if isinstance(exc, ToolwireError) else str(exc)
    return recorded_text(text) if text else type(exc).__name__
