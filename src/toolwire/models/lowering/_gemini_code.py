"""The visible text of a Gemini reply's parts, code execution included.

With the ``code_execution`` tool (``tools=[{"code_execution": {}}]``) Gemini answers with ``executableCode``
parts (``{"language": "PYTHON", "code"}``, the code it wrote) and ``codeExecutionResult`` parts
(``{"outcome": "OUTCOME_OK", "output"}``, what running it printed) between its text parts (Gemini API
reference, ``Part``, ``ExecutableCode``, ``CodeExecutionResult``; the "Code execution" guide). Those parts are
kept in ``provider_data["gemini"]["parts"]`` and sent back unchanged; the reply's text shows them as fenced
blocks, each on lines of its own, so the code and its output are not glued to the prose around them::

    Let me compute.
    ```python
    print(sum(range(101)))
    ```
    ```output
    5050
    ```
    The sum is 5050.

:class:`VisibleText` gives each part's text from what came before it only, so a whole reply and the same
reply streamed part by part read the same.
"""

from __future__ import annotations

from typing import Any

__all__ = ["CODE_PARTS", "VisibleText"]

CODE_PARTS = ("executable_code", "code_execution_result")
"""The keys (snake_case, as :func:`~toolwire.models.lowering._gemini_parts.read_part` gives them) of code parts."""


def _fenced(label: str, body: Any) -> str:
    text = body.rstrip("\n") if isinstance(body, str) else ""
    return f"```{label}\n{text}\n```" if text else f"```{label}\n```"


def _code_text(part: dict[str, Any]) -> str | None:
    """The fenced block of a code part, or ``None`` when ``part`` is not one."""
    if isinstance(part.get("executable_code"), dict):
        code = part["executable_code"]
        language = str(code.get("language") or "").lower()
        return _fenced("" if language in ("", "language_unspecified") else language, code.get("code"))
    if isinstance(part.get("code_execution_result"), dict):
        result = part["code_execution_result"]
        outcome = result.get("outcome")
        block = _fenced("output", result.get("output"))
        if outcome and str(outcome) != "OUTCOME_OK":
            return f"The code ended with {outcome}:\n{block}"
        return block
    return None


class VisibleText:
    """The text each reply part adds to the reply, in order (thoughts and calls add none)."""

    def __init__(self) -> None:
        self._tail = ""  # the last character given so far

    def add(self, part: dict[str, Any]) -> str:
        """The text ``part`` adds: its text (not a thought's), or a code part's fenced block on lines of its
        own (a newline before it unless the text so far ends one, and one after it)."""
        if "text" in part:
            text = "" if part.get("thought") else str(part.get("text") or "")
        else:
            block = _code_text(part)
            if block is None:
                return ""
            text = ("\n" if self._tail not in ("", "\n") else "") + block + "\n"
        if text:
            self._tail = text[-1]
        return text

    def of(self, parts: list[dict[str, Any]]) -> str:
        """The text all ``parts`` add."""
        return "".join(self.add(part) for part in parts)
