"""The ``toolwire`` command: ask a question, chat, manage local models, evaluate.

* ``toolwire ask "question" [--model M] [--tools FILE_OR_MODULE] [--max-steps N] [--json]``
* ``toolwire chat [--model M] [--tools ...]``
* ``toolwire models pull|list|path``
* ``toolwire eval bfcl --data DIR ...``

Every error a person can cause (unknown model, a tools file that does not load, a model that cannot
be fetched) ends the command with one clear line on stderr and exit code 1, never a traceback.

``--tools`` imports the named Python file or module: it is the user's own code and runs with the
user's rights. toolwire never imports anything a model names.
"""

from __future__ import annotations

import contextlib
import sys
import warnings
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from toolwire._cli_errors import error_text as _error_text
from toolwire._cli_errors import seconds as _seconds
from toolwire._cli_errors import whole_number
from toolwire._cli_input import line_editing, read_question
from toolwire._cli_model import check_dialect as _check_dialect
from toolwire._cli_model import check_server_url
from toolwire._cli_run import _LINE, _print_event, _run, _warning_line, each_run_warned, err, log_lines, out  # noqa: F401
from toolwire._printing import terminal_text
from toolwire._std_streams import (
    closed_errors_dropped,
    closed_output_fails,
    output_failed,
    output_to_stderr,
    tolerant_input,
    tolerant_output,
    unwritable_output,
    utf8_arg,
    utf8_line,
)
from toolwire.cli_help import HelpGroup
from toolwire.cli_text import interrupted_turn
from toolwire.cli_text import max_steps_text as _max_steps_text
from toolwire.cli_text import tools_ran as _tools_ran
from toolwire.cli_text import without_oldest_exchange as _without_oldest_exchange
from toolwire.cli_tools import default_tools, load_tools, same_tool
from toolwire.errors import (
    ContextOverflowError,
    MaxStepsExceeded,
    ProviderError,
    ToolwireError,
    UserError,
)
from toolwire.models._threads import MOST_THREADS
from toolwire.results import valid_text

app = typer.Typer(
    name="toolwire",
    cls=HelpGroup,
    help="Connect Python tools to language models; runs offline on an embedded local model.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

def _print_version(asked: bool) -> None:
    """``--version``'s callback: print ``toolwire <version>`` (:data:`toolwire.__version__`) and exit 0 when asked.

    Raises:
        typer.Exit: when ``asked``, after printing.
    """
    if asked:
        from toolwire import __version__

        typer.echo(f"toolwire {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[bool, typer.Option("--version", is_eager=True, callback=_print_version,
                                          help="Print toolwire's version and exit.")] = False,
) -> None:
    """Connect Python tools to language models; runs offline on an embedded local model."""


def _mount() -> None:
    try:
        from toolwire.cli_models import app as models_app

        app.add_typer(models_app, name="models", help="Get and list the embedded GGUF models.")
    except ImportError:  # pragma: no cover - only in a broken install
        pass
    try:
        from toolwire.evals.cli import app as eval_app

        app.add_typer(eval_app, name="eval", help="Measure tool-call accuracy (BFCL).")
    except ImportError:  # pragma: no cover
        pass
    try:
        from toolwire.cli_mcp import app as mcp_app

        app.add_typer(mcp_app, name="mcp", help="Publish tools as an MCP server.")
    except ImportError:  # pragma: no cover
        pass


def fail(message: str, code: int = 1) -> None:
    """Print ``error: <message>`` on stderr and exit with ``code`` (the process exit status).

    Raises:
        typer.Exit: always.
    """
    err.print(f"[red]error:[/red] {escape(terminal_text(message))}")
    raise typer.Exit(code)


def _model(name: str | None, dialect: str | None, n_ctx: int | None = None, n_threads: int | None = None) -> Any:
    from toolwire.models.factory import init_chat_model

    check_server_url(name)
    if name and name.lower().endswith(".gguf"):  # a file that is not there fails now, before chat starts (review 104)
        from toolwire.models.registry import model_file

        model_file(name)
    kwargs: dict[str, Any] = {}
    if dialect:
        kwargs["dialect"] = dialect
    if n_ctx is not None:
        kwargs["n_ctx"] = n_ctx
    if n_threads is None:
        return init_chat_model(name or "local", **kwargs)
    from toolwire.models._threads import check_n_threads

    check_n_threads(n_threads, name="--n-threads")  # more threads than cores: warned in the command's words
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"n_threads=\d+ is more than")  # (not a second time)
        return init_chat_model(name or "local", n_threads=n_threads, **kwargs)



ModelOpt = Annotated[
    str | None, typer.Option("--model", "-m", metavar="MODEL",
                             help="local | registry name | .gguf path | provider:model")
]
ToolsOpt = Annotated[
    list[str] | None, typer.Option("--tools", "-t", metavar="FILE", help=(
        "A .py file or module with tools (repeatable): its TOOLS list, else its @tool objects (not those named "
        "_x), else its public functions with docstrings. Its folder and the current one are on the import path."))
]
DialectOpt = Annotated[str | None, typer.Option(
    "--dialect", metavar="NAME",
    help="Tool-call dialect of a local model: template, pythonic or json (local models only).")]


NCtxOpt = Annotated[int | None, typer.Option(
    "--n-ctx", parser=whole_number("number of tokens", 256, 8192), metavar="TOKENS",
    help="Context window of a local model, in tokens, at least 256 (default 8192; local models only).")]
_STEPS = whole_number("number of model calls", 1, 6)
"""``--max-steps``' parser (review 170 #11; its help= says the range: review 173 #3)."""
NThreadsOpt = Annotated[int | None, typer.Option(  # (ggml's own bound; 1,000,000 aborted the process: review 199 #2)
    "--n-threads", parser=whole_number("number of threads", 1, 4, MOST_THREADS), metavar="N",
    help=f"CPU threads a local model uses, 1 to {MOST_THREADS} (default: all cores, up to {MOST_THREADS}; "
         "local models only).")]
McpOpt = Annotated[list[str] | None, typer.Option(
    "--mcp", metavar="SERVER",
    help="An MCP server whose tools to add: 'command args...' (stdio), an http(s):// URL, or one mcpServers entry as "
         "JSON, with or without its name key ('{\"command\": ..., \"args\": [...], \"env\": {...}}') (repeatable).")]
RepeatOpt = Annotated[list[str] | None, typer.Option(
    "--repeat-calls", metavar="NAME", help=(
        "A tool to run again on each repeated identical call, as one that adds or sends something must be "
        "(repeatable; 'all' for every tool). By default a repeated call is answered with the result it already "
        "had, which stops models that loop."))]
TimeoutOpt = Annotated[float | None, typer.Option(
    "--tool-timeout", metavar="SECONDS", parser=_seconds,
    help=("Seconds a tool call may take; a call that takes longer is answered to the model as an error (default: no "
          "limit; a tool's own @tool(timeout=...) is kept)."))]


def _agent(model: str | None, tools: list[str] | None, max_steps: int, system: str | None,
           dialect: str | None, mcp: list[str] | None = None, n_ctx: int | None = None,
           tool_timeout: float | None = None, n_threads: int | None = None,
           repeat_calls: list[str] | None = None) -> Any:
    from toolwire.agent import Agent

    _check_dialect(model, dialect, n_ctx, n_threads)  # before tools load and MCP servers start
    loaded = _loaded(tools) if tools or mcp else default_tools()
    if mcp:  # each session lives until the command ends (closed at exit)
        from toolwire.mcp import load_tools as load_mcp_tools
        from toolwire.mcp.common import server_from

        labels: list[str] = []  # (the servers' masked labels: the text given may hold secrets, review 301 #2)
        for index, server in enumerate(mcp, 1):
            offered = load_mcp_tools(server)
            labels.append(server_from(server).label)
            taken = {t.name for t in loaded}
            clash = sorted({t.name for t in offered} & taken)
            if clash:  # a name another --mcp server (or --tools) has: this server's tools get a prefix, one whose
                client = offered.client
                for attempt in range(1, 27):  # names are all free (review 114: mcp3_add was taken already)
                    client.prefix = f"mcp{index}_" if attempt == 1 else f"mcp{index}{chr(96 + attempt)}_"
                    offered = client.refresh()
                    if not {t.name for t in offered} & taken:
                        break
                shown = ", ".join(map(repr, clash[:3])) + (f" and {len(clash) - 3} more" if len(clash) > 3 else "")
                err.print(f"note: --mcp server {index} offers tools named like those before it ({shown}), so its "
                          f"tools are named {client.prefix}<name>.")
            loaded += offered
        if not loaded:  # (in place of the book's three: the question went to the model with no tools, review 227 #5)
            which = "server offers" if len(mcp) == 1 else "servers offer"
            raise UserError(f"The --mcp {which} no tools ({', '.join(map(repr, labels))}): check that it is the server "
                            "you meant, or leave out --mcp to use the book's three tools.")
    return Agent(_model(model, dialect, n_ctx, n_threads), loaded, max_steps=max_steps, system_prompt=system,
                 timeout=tool_timeout, repeat_calls=_repeat_calls(repeat_calls, loaded))


def _loaded(specs: list[str] | None, *, server_tools: bool = True) -> list[Any]:
    """The tools of the ``--tools`` files and modules, each read once (the same one given twice, or one file named
    two ways, as ``x.py`` and ``./x.py``, is read once), and each tool once (one that two files give, the one file
    importing it from the other, is one tool: :func:`~toolwire.cli_tools.same_tool`);
    ``server_tools`` as :func:`load_tools` takes it (False for ``mcp serve``).

    Raises:
        UserError: two of them give different tools of one name (the message names both: review 104), or one does
            not load.
    """
    loaded: list[Any] = []
    origin: dict[str, str] = {}
    read: set[str] = set()
    for spec in specs or ():
        if (key := _file_key(spec)) in read:  # ("x.py", "./x.py" and its absolute path are one file: review 156 #7)
            continue
        read.add(key)
        for found in load_tools(spec, server_tools=server_tools):
            if any(same_tool(found, before) for before in loaded):  # one tool reached through two files (review 189)
                continue
            name = getattr(found, "name", "")
            if name in origin and origin[name] != spec:
                raise UserError(f"Two tools are named {name!r}, one in {origin[name]} and one in {spec}: rename one "
                                "(@tool(\"other_name\")) or leave one of the files out.")
            origin.setdefault(name, spec)
            loaded.append(found)
    return loaded


def _file_key(spec: str) -> str:
    """What names the file a ``--tools`` value reads: its resolved path for a ``.py`` file or any file there, else
    the value itself (a module's name)."""
    path = Path(spec)
    with contextlib.suppress(OSError, RuntimeError, ValueError):  # (a symbolic link loop, a NUL in the name)
        if path.suffix == ".py" or path.is_file():
            return str(path.resolve())
    return spec


def _repeat_calls(names: list[str] | None, tools: list[Any]) -> Any:
    """The Agent's ``repeat_calls`` for ``--repeat-calls`` (``"run"`` for ``all``).

    Raises:
        UserError: a name no loaded tool has (the message names the close match, or the tools).
    """
    if not names:
        return "answer"
    if "all" in names:
        return "run"
    known = [getattr(t, "name", "") for t in tools]
    for name in names:
        if name not in known:
            import difflib

            close = difflib.get_close_matches(name, known, n=1)
            hint = f"did you mean {close[0]!r}?" if close else f"the tools are {', '.join(map(repr, known))}."
            raise UserError(f"--repeat-calls {name!r} names no tool: {hint}")
    return names


@app.command()
def ask(
    question: Annotated[str, typer.Argument(metavar="QUESTION", help="The question to answer.")],
    model: ModelOpt = None,
    tools: ToolsOpt = None,
    max_steps: Annotated[int, typer.Option(help="The most model calls, at least 1.", parser=_STEPS,
                                           metavar="N")] = 6,
    system: Annotated[str | None, typer.Option(help="A system prompt.", metavar="TEXT")] = None,
    dialect: DialectOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help=(
        "Print the conversation as JSON: a list of messages, each as Message.to_dict() writes it, a tool result "
        "given to a repeated call without running the tool with \"answer_reused_from\": the index, in the list, of "
        "the result whose answer it got (on an error, the conversation so far, and the error on stderr)."))] = False,
    mcp: McpOpt = None,
    n_ctx: NCtxOpt = None,
    n_threads: NThreadsOpt = None,
    tool_timeout: TimeoutOpt = None,
    repeat_calls: RepeatOpt = None,
) -> None:
    """Answer one question, calling tools as the model asks (the book's three tools by default).

    Exits with 2 on a bad option (click's usage error), with 1 after a one-line error, and with 130 on Ctrl-C.
    """
    if not question.strip():
        fail('The question is empty: pass it in quotes, e.g. toolwire ask "Como está o clima em Paris?".')
    question, system = _utf8_args(question, system)  # (not sent with U+FFFD in place of letters: review 227 #4)
    try:
        # with --json, what a tools file prints on import goes to stderr, as during the run (see _run)
        with output_to_stderr() if as_json else contextlib.nullcontext():
            agent = _agent(model, tools, max_steps, system, dialect, mcp, n_ctx, tool_timeout,
                           n_threads, repeat_calls)
        if not as_json:
            out.print(f"? {terminal_text(question)}", style="bold", markup=False)  # (review 156 #6: raw escapes)
        _run(agent, question, as_json)
    except MaxStepsExceeded as exc:
        fail(_max_steps_text(exc, max_steps))
    except ToolwireError as exc:
        fail(_error_text(exc))
    except KeyboardInterrupt:
        fail("interrupted.", 130)
    finally:
        _note_cut_off()


def _utf8_args(question: str, system: str | None) -> tuple[str, str | None]:
    """``question`` and ``--system`` as text, after refusing (:func:`fail`) either when its bytes are not UTF-8; a
    surrogate pair written as two code points is joined (:func:`~toolwire.results.valid_text`)."""
    for what, given in (("The question", question), ("The --system text", system or "")):
        if utf8_arg(given) is None:
            fail(f"{what} is not UTF-8 text: set your terminal to UTF-8 and type it again.")
    return valid_text(utf8_arg(question) or ""), None if system is None else valid_text(utf8_arg(system) or "")


def _note_cut_off() -> None:
    """Say which tool calls still run as the command ends, past their timeout (review 104: an email tool cut off
    half-way, silently, after the model was told it may still take effect) or with none, a sync call Ctrl-C stopped
    the run during (review 199 #5): Python stops their threads at exit."""
    from toolwire._concurrency import late_calls, still_running

    for names, why in ((late_calls(), " past its timeout"), (still_running(late=False), "")):  # (r. 208 #3)
        if names := list(dict.fromkeys(names)):
            shown = ", ".join(map(repr, names))
            err.print(f"[yellow]warning:[/yellow] the call of {escape(terminal_text(shown))} still running{why} is "
                      "stopped part-way now that the command ends: check what it did.")


@app.command()
def chat(
    model: ModelOpt = None,
    tools: ToolsOpt = None,
    max_steps: Annotated[int, typer.Option(help="The most model calls per question, at least 1.", parser=_STEPS,
                                           metavar="N")] = 6,
    system: Annotated[str | None, typer.Option(help="A system prompt.", metavar="TEXT")] = None,
    dialect: DialectOpt = None,
    mcp: McpOpt = None,
    n_ctx: NCtxOpt = None,
    n_threads: NThreadsOpt = None,
    tool_timeout: TimeoutOpt = None,
    repeat_calls: RepeatOpt = None,
) -> None:
    """An interactive session that keeps the conversation (type 'exit' or Ctrl-D to leave, 'clear' to start a new
    conversation; Ctrl-C during an answer stops that question only, keeping the results of its tool calls that had
    run, so asking again does not run them again; Ctrl-C at the prompt clears the line). Each line is one question (a
    pasted question of any length is read whole in a terminal).

    Exits with 2 on a bad option (click's usage error), and with 1 after a one-line error (a model or tools that do
    not load), or when standard input is closed.
    """
    if sys.stdin is None:  # (started with <&-: a traceback, review 227 #7)
        fail("standard input is closed: chat reads its questions from it; run it in a terminal, or pipe them in.")
    _, system = _utf8_args("", system)
    try:
        agent = _agent(model, tools, max_steps, system, dialect, mcp, n_ctx, tool_timeout,
                       n_threads, repeat_calls)
    except ToolwireError as exc:
        fail(_error_text(exc))
        return
    try:
        _chat(agent, max_steps)
    finally:
        _note_cut_off()


def _load_local(model: Any) -> None:
    """Load ``model`` now when it is the embedded model (:meth:`~toolwire.models.llamacpp.ChatLlamaCpp.load`: once;
    later calls return at once), so that ``chat`` ends when it cannot load, as ``ask`` does, rather than say the same
    error for every question and exit 0 (review 199 #4: a damaged .gguf, an --n-ctx past the trained context).

    Raises:
        ToolwireError: the model does not load (a ``UserError`` in one sentence).
    """
    llamacpp = sys.modules.get("toolwire.models.llamacpp")  # (loaded already when the model is one of its)
    if llamacpp is not None and isinstance(model, llamacpp.ChatLlamaCpp):
        model.load()


def _chat(agent: Any, max_steps: int) -> None:
    """The ``chat`` session's loop, until 'exit' or the end of input."""
    conversation: list[Any] = []
    out.print("[dim]toolwire chat: type a question; 'clear' starts a new conversation; 'exit' or Ctrl-D leaves.[/dim]")
    # questions read from a pipe, or answered into one (`| tee log`: review 274 #8), are shown, so the output reads as
    echo = not (sys.stdin.isatty() and sys.stdout.isatty())  # a conversation
    tolerant_input()
    line_editing()  # (a paste longer than 4095 characters was cut: review 274 #2)
    told = False
    first = True  # (the input's first line, which a BOM may start)
    while True:
        try:
            line = read_question("you> ")  # a line a question: lines typed ahead stay apart (review 276 #1)
        except EOFError:
            out.print()
            return
        except KeyboardInterrupt:  # at the prompt: the line is cleared, the session goes on (review 274 #4)
            out.print()
            if not told:
                err.print("[dim](press Ctrl-D or type exit to leave)[/dim]")
                told = True
            continue
        except UnicodeDecodeError:  # a stream that could not be read tolerantly: the session goes on
            line = "\udcff"
        text = utf8_line(line)  # whatever the locale (review 157 #1)
        if first and text:  # a file saved with a UTF-8 BOM (Notepad): a mark of the encoding, not text (review 282 #5)
            text = text.removeprefix("\ufeff").strip()
        first = False
        if text is None:  # this line alone is refused, not the lines read with it (review 156)
            if echo:  # its prompt's line ends, so the next prompt starts a line (review 199 #7)
                out.print()
            err.print("[red]error:[/red] that line is not UTF-8 text: set your terminal to UTF-8 and type it again.")
            continue
        if "\x00" in text:  # (UTF-16 without a BOM, a binary file: never a question; with a BOM it is read as
            if echo:  # UTF-16, _std_streams.tolerant_input; review 286 #8)
                out.print()
            err.print("[red]error:[/red] that line holds NUL characters, as a UTF-16 file's lines do: save the file as "
                      "UTF-8 and pipe it in again.")
            continue
        line = text
        if echo:  # (a blank line too, ending its prompt's line: review 199 #7)
            out.print(terminal_text(line), markup=False)  # (escape() doubled a "\\" that ends it: review 156 #5)
        if line.lower() in ("exit", "quit", ":q"):
            return
        if not line:
            continue
        if line.lower() in ("clear", "/clear"):
            conversation = []
            out.print("[dim]a new conversation starts.[/dim]")
            continue
        from toolwire.messages import HumanMessage

        kept = conversation
        bound = getattr(getattr(agent, "executor", None), "tools", None)  # (calls refused did not run: r. 274 #7)
        try:
            try:
                _load_local(agent.model)
            except ToolwireError as exc:  # every question would fail the same way: the session ends (review 199 #4)
                fail(_error_text(exc))
            while True:
                try:
                    with each_run_warned():  # (every question's reused calls said: review 227 #1)
                        result = _run(agent, [*kept, HumanMessage(line)], False)
                    break
                except ContextOverflowError as exc:  # the oldest exchange makes room, if no tool of this one ran
                    shorter = None if exc.no_question_fits or _tools_ran(exc, kept) else _without_oldest_exchange(kept)
                    if shorter is None:
                        raise
                    kept = shorter
            if kept is not conversation:  # (review 110: once the history filled the window, every question failed)
                err.print("[dim](the oldest exchanges were dropped from the conversation: it no longer fit the "
                          "model's context window)[/dim]")
        except ContextOverflowError as exc:  # the question does not fit: it is dropped, so the session can go on
            if exc.no_question_fits:  # the system prompt and the tools leave no room for any question: it ends, as
                fail(_error_text(exc))  # tools that do not load end it (review 104)
            err.print(f"[red]error:[/red] {escape(terminal_text(_error_text(exc)))}")
            err.print(f"[yellow]that question was dropped from the conversation{_tools_ran(exc, kept, tools=bound)}:"
                      "[/yellow] ask something shorter, or type 'clear' to start a new conversation.")
            continue
        except ToolwireError as exc:  # the turn so far (tool calls already run) is kept, as the Agent hands it back
            text = _max_steps_text(exc, max_steps, chat=True) if isinstance(exc, MaxStepsExceeded) else _error_text(exc)
            err.print(f"[red]error:[/red] {escape(terminal_text(text))}")
            refused = isinstance(exc, ProviderError) and not exc.retryable  # (too long, a content filter)
            if refused and not _tools_ran(exc, kept, "", bound):  # dropped, or every later question would be refused
                err.print("[yellow]that question was dropped from the conversation:[/yellow] ask again, or type "
                          "'clear' to start a new conversation.")  # the same way (review 117)
                continue
            if refused:  # its tools' results are kept (so they do not run again), and may be what the provider refused
                err.print("[dim](if the next question is refused the same way, type 'clear')[/dim]")
            kept = getattr(exc, "messages", None)
            if isinstance(kept, list) and kept:
                conversation = list(kept)
                if not (refused or isinstance(exc, MaxStepsExceeded)):  # (asked again, it was sent twice: r. 274 #5)
                    err.print("[dim](that question stays in the conversation, so do not type it again: send a short "
                              "'go on' to have it answered, or type 'clear' to start a new conversation)[/dim]")
            continue
        except KeyboardInterrupt as exc:  # Ctrl-C stops this question only: the session and the conversation go on
            if not _LINE.ended_by_run:  # (a half-written answer's line was ended already: review 108)
                out.print()
            stopped = interrupted_turn(exc, kept, bound)  # its tools' results, if any ran, are kept (review 164 #1)
            if stopped is None:
                err.print("[yellow]interrupted:[/yellow] that question was dropped from the conversation; ask again, "
                          "or type 'exit' to leave.")
                continue
            conversation, said = stopped
            err.print(f"[yellow]interrupted:[/yellow] {escape(said)}")
            continue
        if result is not None:
            conversation = list(result.messages)


_mount()


def main() -> None:
    """Console entry point: run the app, turning stray user errors into one line, and warnings into one line each."""
    tolerant_output()
    closed_output_fails()  # (>&-: one line, not a traceback nor exit 0 with the output lost: review 251 #4)
    closed_errors_dropped()  # (2>&-: as 2>/dev/null, not the JSON or the prompt lost, nor progress on stdout: r. 258)
    warnings.showwarning = _warning_line
    log_lines()  # (toolwire's log warnings as warning: lines, not raw: review 274 #6)
    try:
        try:
            app()
        finally:  # what is still buffered: a full disk is said now, not as the process exits
            if sys.stdout is not None:
                sys.stdout.flush()
    except UserError as exc:  # commands catch their own (`toolwire eval` lets its model's errors come here)
        err.print(f"[red]error:[/red] {escape(terminal_text(_error_text(exc)))}")
        sys.exit(1)
    except OSError as exc:  # output that cannot be written (a full disk): one line, no traceback (review 227 #2)
        if not output_failed(exc):
            raise
        unwritable_output(exc)
        sys.exit(1)


if __name__ == "__main__":
    main()
