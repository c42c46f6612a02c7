"""How the commands print a run: its tool calls and results as they come, the answer as the model writes it, the
notes beside it (a cut answer, a refusal, an empty reply, an answer no tool backs), ``--json``'s conversation, and the
warnings a run gives, one line each. Kept apart from :mod:`toolwire.cli`, whose commands call them.
"""

from __future__ import annotations

import contextlib
import json
import logging
import sys
import warnings
from collections.abc import Iterator
from typing import Any

from rich.console import Console
from rich.markup import escape

from toolwire._printing import terminal_json, terminal_text
from toolwire._std_streams import output_to_stderr
from toolwire.cli_text import called_this_turn, cut_off_answers, refusal_text
from toolwire.cli_text import cut_reason as _cut_reason
from toolwire.cli_text import marked_messages as _marked
from toolwire.cli_text import result_line as _result_line
from toolwire.errors import RepeatedCallWarning, ToolwireError, window_advice
from toolwire.messages import AIMessage

out = Console(highlight=False, soft_wrap=True)
"""The commands' standard output."""
err = Console(stderr=True, highlight=False, soft_wrap=True)
"""The commands' standard error."""

def _fmt_args(args: Any) -> str:
    if isinstance(args, dict):
        return ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in args.items())
    return json.dumps(args, ensure_ascii=False)


def _print_event(event: Any) -> None:
    if event.type == "tool_call":  # an invalid call may have no name, and its args as raw text (or None)
        call = event.data
        name, args = terminal_text(str(call.get("name") or "?")), terminal_text(_fmt_args(call.get("args")))
        out.print(f"→ {name}({args})", style="cyan", markup=False)  # (not markup: review 156 #5, see below)
    elif event.type == "tool_result":
        msg = event.data
        style = "red" if msg.status == "error" else "green"
        # not read as markup: escape() before a closing tag lost a backslash that ends the text (review 156 #5)
        out.print(f"← {terminal_text(_result_line(msg))}", style=style, markup=False)
    elif event.type == "model_reply":
        for bad in event.data.invalid_tool_calls:
            out.print(f"! invalid tool call: {terminal_text(str(bad.get('error')))}", style="yellow", markup=False)
    elif event.type == "final":
        if event.data.output.strip():
            out.print(terminal_text(event.data.output), style="bold", markup=False)
            _say_cut(event.data)
        else:  # (review 90: a blank line; review 227 #9: on stdout, "stop reason answer")
            err.print(f"[yellow]({_no_answer(event.data)})[/yellow]")


def _no_answer(result: Any) -> str:
    """What the commands say on stderr, not as the answer, when a run (``result``, an AgentResult) ended with no
    text: why, in the user's words, not the ``stop_reason`` value."""
    reason = result.stop_reason
    if reason == "return_direct":
        return "the tool that gives the answer returned nothing"
    if reason == "length":
        return f"the model gave no answer: {_cut_text(result.messages)}"
    if reason == "refusal":
        return refusal_text(result.messages)
    if reason == "max_steps":
        return "the model gave no answer within the most model calls allowed: raise --max-steps"
    return "the model gave no answer: its reply was empty; ask again, or in other words"


def _cut_text(messages: list[Any]) -> str:
    """Why a run (its ``messages``) ended with ``stop_reason="length"``, read from its last reply: a tool call cut
    where the context window ran out (``response_metadata["context_full"]``: the run then ends after that reply's
    results, so they come last: review 267 #1), or :func:`~toolwire.cli_text.cut_reason`'s answer cut by the window or
    at the most tokens a reply may have."""
    at = next((i for i in range(len(messages) - 1, -1, -1) if isinstance(messages[i], AIMessage)), len(messages) - 1)
    reply = messages[at] if messages else None
    metadata = getattr(reply, "response_metadata", None) or {}
    if metadata.get("context_full") and (reply.tool_calls or reply.invalid_tool_calls):  # type: ignore[union-attr]
        return ("the run stopped at a tool call cut off where the model's context window ran out: "
                + window_advice(metadata, "a larger --n-ctx"))
    return _cut_reason(messages[:at + 1])


def _say_cut(result: Any) -> None:
    """Say why an answer stopped at its token limit (review 110: a cut answer, and nothing said so), or that the text
    printed is a refused reply's, not an answer (review 135 #5: it read as the answer)."""
    if result.stop_reason == "length":
        err.print(f"[yellow]({_cut_text(result.messages)})[/yellow]")
    elif result.stop_reason == "refusal":
        err.print(f"[yellow]({refusal_text(result.messages)})[/yellow]")


def _run(agent: Any, conversation: Any, as_json: bool) -> Any:
    if as_json:  # what the tools print goes to stderr, so stdout holds the JSON alone (review 48), also what their
        with output_to_stderr(until_exit=True) as stdout:  # threads print later, up to the exit (review 251 #2)
            try:
                result = agent.invoke(conversation)
            except (ToolwireError, KeyboardInterrupt) as exc:  # the conversation so far, then the error (review 59)
                kept = getattr(exc, "messages", None)
                if isinstance(kept, list) and kept:  # (ask ends now: a call still running is stopped part-way)
                    from toolwire._concurrency import still_running

                    _print_json(cut_off_answers(_marked(kept, getattr(exc, "reused_calls", None)),
                                                set(still_running())), stdout)
                raise
            _print_json(_marked(result.messages, result.reused_calls), stdout)
        return result
    from toolwire.models._sdk import SDKChatModel

    # a model run in this process (the embedded one) writes its answer as it comes; a hosted or server model's
    # replies are read whole, which a server that ignores stream=true answers too, and a cut reply is tried again
    result = None
    writing = shown = ""  # the text of the reply being written, printed as it comes; that of the last one
    _LINE.warned = False
    try:
        for event in agent.stream(conversation, stream_tokens=not isinstance(agent.model, SDKChatModel)):
            if event.type == "model_chunk":
                if event.data.text:  # not read as markup: escape() doubles a "\\" that ends a chunk (review 108)
                    text = ("\r" if writing.endswith("\r") else "") + event.data.text  # (a CR held back: below)
                    writing += event.data.text
                    # a CR that ends the chunk waits for the next one, so a CR LF cut in two is a line end
                    out.print(terminal_text(text.removesuffix("\r")), style="bold", markup=False, end="",
                              soft_wrap=True)
                    _LINE.open = True
                continue
            if event.type == "model_reply":
                if writing.endswith("\r"):  # the CR held back ended the reply: shown as terminal_text shows it
                    out.print(terminal_text("\r"), style="bold", markup=False, end="", soft_wrap=True)
                _end_line()
                if not writing and event.data.tool_calls and event.data.text.strip():  # a hosted model's text beside
                    out.print(terminal_text(event.data.text), style="bold", markup=False)  # its calls (review 117)
                    writing = event.data.text  # (a refusal's output: not printed twice, review 135 #5)
                writing, shown = "", writing
            if event.type == "final":
                result = event.data
                if shown.strip() and result.output == shown:  # already on the screen, as it was written
                    _say_cut(result)
                    continue
            _print_event(event)
    finally:  # an error, a warning or the next prompt starts on a line of its own (review 107)
        _LINE.ended_by_run = _end_line() or _LINE.warned
    tools = agent.executor.tools
    if result is not None and tools and result.output.strip() and result.stop_reason != "refusal" \
            and not called_this_turn(result, tools):
        err.print("[dim](no tool was called for this answer: it comes from the model alone)[/dim]")  # (review 126)
    return result


def _print_json(value: Any, stdout: Any = None) -> None:
    """Print ``value`` (JSON data) on standard output as ``--json`` shows it: indented, coloured on a terminal, with
    its terminal controls escaped (:func:`~toolwire._printing.terminal_json`; rich's ``print_json`` wrote the C1
    controls raw: review 154 #3). Coloured only when standard output is a terminal: ``FORCE_COLOR`` (set in many CI
    systems) made rich colour it on a pipe too, which ``jq`` could not read (review 199 #6). ``stdout``: the text
    stream standard output is while ``sys.stdout`` goes to stderr (:func:`~toolwire._std_streams.output_to_stderr`),
    used unless ``out`` was given a file of its own; None: ``out``."""
    from rich.highlighter import JSONHighlighter
    from rich.text import Text

    console = out if stdout is None or out.file is not sys.stdout else Console(file=stdout, highlight=False,
                                                                                soft_wrap=True)
    shown = terminal_json(value)
    text = JSONHighlighter()(shown) if _on_terminal(console) else Text(shown)
    text.no_wrap, text.overflow = True, None
    console.print(text, soft_wrap=True)


def _on_terminal(console: Console | None = None) -> bool:
    """Whether ``console`` (``out`` by default) writes to a real terminal (whatever ``FORCE_COLOR`` or
    ``TTY_COMPATIBLE`` say)."""
    try:
        return bool((console or out).file.isatty())
    except (AttributeError, OSError, ValueError):  # (a closed or unusual stream)
        return False


class _Line:
    """The state of the answer line the commands print as a model writes it (one terminal per process)."""

    open = False  # the last thing printed was part of an answer still being written (no newline yet)
    ended_by_run = False  # the last run ended such a line as it stopped (so a Ctrl-C there needs no line of its own)
    warned = False  # a log warning was printed at an interrupt since the run began, on a line of its own


_LINE = _Line()


def _end_line() -> bool:
    """End the line of an answer being written, if one is open, so that what is printed next starts a line; return
    whether it did."""
    if not _LINE.open:
        return False
    _LINE.open = False
    out.print()
    return True


def _warning_line(message: Warning | str, category: type[Warning], filename: str, lineno: int, file: Any = None,
                  line: str | None = None) -> None:
    """Show a warning on the command line as one line, ``warning: <text>`` (the Agent's note on a repeated call, a
    strict-mode fallback), without Python's file and line of the code that raised it, which is toolwire's own."""
    _end_line()
    if isinstance(message, RepeatedCallWarning):  # the command's own option, not the Agent's argument
        message = (f"the Agent answered a repeated call of {message.tool_name!r} with the result it already had, "
                   "without running the tool again: for a tool that must run on every call, pass "
                   f"{' '.join('--repeat-calls ' + name for name in message.names)}.")
    err.print(f"[yellow]warning:[/yellow] {escape(terminal_text(str(message)))}")


class _LogLine(logging.Handler):
    """Shows toolwire's log warnings (a tool call given up at a second Ctrl-C) as the commands' other warnings, one
    ``warning: <text>`` line each, starting a line of their own (review 274 #6: Python's last-resort handler printed
    them raw, on the line of the terminal's ``^C^C``)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = record.getMessage()
            if not _end_line() and "interrupt" in text and _terminal(sys.stderr):  # after the ^C the terminal echoed
                err.print()
                _LINE.warned = True
            err.print(f"[yellow]warning:[/yellow] {escape(terminal_text(text))}")
        except Exception:
            self.handleError(record)


def _terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def log_lines() -> None:
    """Show the warnings the ``toolwire`` logger gives as ``warning: ...`` lines on standard error, when the program
    set no handler of its own for it (the command line's entry point calls it once).

    Returns:
        None; the handler is added to the ``toolwire`` logger, whose records then no longer reach the root logger.
    """
    logger = logging.getLogger("toolwire")
    if not logger.handlers:
        handler = _LogLine(logging.WARNING)
        logger.addHandler(handler)
        logger.propagate = False


@contextlib.contextmanager
def each_run_warned() -> Iterator[None]:
    """Let the Agent's repeated-call warning (:class:`~toolwire.errors.RepeatedCallWarning`, issued once per run and
    tool) be shown for every run started inside the ``with``, as every question of ``toolwire chat`` is: Python's
    default filter shows a warning once per line of code and text, and every question starts from the same line, so
    a repeated call in a later question was answered with the result it already had without a word (review 227 #1).

    Returns:
        A context manager; the warning filters are as they were when it exits.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("always", RepeatedCallWarning)
        yield
