"""How the ``toolwire`` command's help is laid out: boolean flags shown bare, each paragraph of a command's help on one
line (typer's own help keeps a docstring's line ends), and an option's help and default wrapped whole, never cut with
"…" (:func:`_folded`). Used by :mod:`toolwire.cli`'s app."""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Iterator
from typing import Any

from typer.core import TyperCommand, TyperGroup

__all__ = ["HelpCommand", "HelpGroup"]


def _flags_take_no_value(command: Any, ctx: Any) -> None:
    """Blank the type column of ``command``'s boolean flags (``--json``, ``--help``...) in its help: typer writes
    ``<bool>`` there, which reads as if the flag took a value. A flag's metavar is shown nowhere else.

    Args:
        command: a typer (click) command or group; ``ctx``: its click context (typer's vendored click types).
    """
    for param in command.get_params(ctx):
        if getattr(param, "is_flag", False) and not getattr(param, "count", False) and param.metavar is None:
            param.metavar = ""


def _reflow(command: Any) -> None:
    """Join the lines of each paragraph of ``command``'s help: typer's rich help keeps a docstring's line ends, so a
    sentence wrapped in the source broke in the middle of the terminal's line (review 48)."""
    if command.help:
        paragraphs = inspect.cleandoc(command.help).split("\n\n")
        command.help = "\n\n".join(" ".join(line.strip() for line in p.splitlines()) for p in paragraphs)


@contextlib.contextmanager
def _folded() -> Iterator[None]:
    """While help is written, fold an option's help text and ``[default: ...]`` at the column's edge where a word is
    longer than the column: rich's table cut it with "…", losing ``provider:model`` from ``--model`` at 40 columns
    and the default categories of ``eval bfcl --category`` (review 199 #9). Typer builds that text in
    ``typer.rich_utils._get_parameter_help`` (a ``rich.columns.Columns`` of ``Text``); a typer without it is left as
    it is."""
    from rich.text import Text
    from typer import rich_utils

    made = getattr(rich_utils, "_get_parameter_help", None)
    if made is None:
        yield
        return

    def folded(*args: Any, **kwargs: Any) -> Any:
        columns = made(*args, **kwargs)
        for item in getattr(columns, "renderables", ()):
            if isinstance(item, Text):
                item.overflow = "fold"
        return columns

    rich_utils._get_parameter_help = folded
    try:
        yield
    finally:
        rich_utils._get_parameter_help = made


class HelpCommand(TyperCommand):
    """A typer command whose help shows boolean flags bare (:func:`_flags_take_no_value`) and its paragraphs
    unbroken (:func:`_reflow`)."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        """Write this command's help into ``formatter`` (a ``click.HelpFormatter``), flags bare and paragraphs
        whole; ``ctx`` is the ``click.Context`` of the ``--help`` call. Raises nothing of its own."""
        _flags_take_no_value(self, ctx)
        _reflow(self)
        with _folded():
            super().format_help(ctx, formatter)


class HelpGroup(TyperGroup):
    """A typer group whose help, and that of every command and group under it (mounted sub-apps included),
    shows boolean flags bare (:func:`_flags_take_no_value`) and paragraphs unbroken (:func:`_reflow`)."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        """Write this group's help into ``formatter`` (a ``click.HelpFormatter``), flags bare; ``ctx`` is the
        ``click.Context`` of the ``--help`` call. Raises nothing of its own."""
        _flags_take_no_value(self, ctx)
        with _folded():
            super().format_help(ctx, formatter)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        """The command or group named ``cmd_name`` under this group (``None`` when there is none, as click's
        ``Group.get_command``), its help text reflowed for the group's list of commands."""
        command = super().get_command(ctx, cmd_name)
        if command is not None:  # the group's list of commands shows their first paragraphs
            _reflow(command)
        if type(command) is TyperCommand:  # typer's own classes (same state, one method more)
            command.__class__ = HelpCommand
        elif type(command) is TyperGroup:
            command.__class__ = HelpGroup
        return command
