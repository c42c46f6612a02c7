"""Evaluations of tool-calling models: the Berkeley Function Calling Leaderboard (BFCL) single-turn set.

* :mod:`toolwire.evals.bfcl`: load the data (:func:`load_category`), convert BFCL function docs to
  OpenAI-format tools (:func:`functions_to_tools`) and questions to messages.
* :mod:`toolwire.evals.bfcl_checker`: toolwire's own AST checker following BFCL's rules
  (:func:`check_calls` returns a :class:`CheckResult`).
* :mod:`toolwire.evals.bfcl_runner`: :func:`run_bfcl` runs a model (threads, resume, progress).
* :mod:`toolwire.evals.report`: :class:`Report` (JSON) and :func:`write_html` (self-contained page).
* :mod:`toolwire.evals.cli`: the ``toolwire eval bfcl`` command.
"""

from toolwire.evals.bfcl import (
    CATEGORIES,
    BfclItem,
    ToolSet,
    available_categories,
    function_to_tool,
    functions_to_tools,
    load_category,
    question_to_messages,
)
from toolwire.evals.bfcl_checker import REASONS, CheckResult, check_call, check_calls, normalize_string
from toolwire.evals.bfcl_runner import run_bfcl
from toolwire.evals.report import (
    CategorySummary,
    ItemResult,
    Report,
    load_published_scores,
    parse_published_table,
    write_html,
)

__all__ = [
    "CATEGORIES",
    "REASONS",
    "BfclItem",
    "CategorySummary",
    "CheckResult",
    "ItemResult",
    "Report",
    "ToolSet",
    "available_categories",
    "check_call",
    "check_calls",
    "function_to_tool",
    "functions_to_tools",
    "load_category",
    "load_published_scores",
    "normalize_string",
    "parse_published_table",
    "question_to_messages",
    "run_bfcl",
    "write_html",
]
