"""The form in which :class:`~toolwire.models.openai.ChatOpenAI` sends an OpenAI-compatible server a ``tool_choice``
that names one tool (review 219 #1).

Servers disagree on it, and neither form works everywhere:

* ``{"type": "function", "function": {"name"}}`` with only that tool sent, the form OpenAI's API reference gives and
  the one sent first: vLLM before 0.8.3 (and servers built on it: DJL-LMI, vendor forks) answers ``"required"`` with
  400 'tool_choice = "required" is not supported!' and serves the object form by guided decoding, and
  llama-cpp-python's server fails ``"required"`` with a 500; llama-server reads the object form as ``"auto"``, where
  the one tool sent is all it can call.
* ``"required"`` with only that tool sent (the same forced call): LM Studio refuses the object form (400 "Invalid
  tool_choice type: 'object'. Supported string values: none, auto, required"), so it is asked this way next
  (review 214 #1).

``tool_choice="required"`` with exactly one bound tool forces that tool, so when a compatible server refuses
``"required"`` itself (vLLM before 0.8.3: 400 'tool_choice = "required" is not supported!') the request is asked
again once with that tool named, in the object form those servers take, and the model remembers to send it so from
then on (:func:`forces_one`, :meth:`ChoiceForm.refuse_required`); with several tools there is no such form, and the
error's hint (:data:`REQUIRED_REFUSED`) says what to do (review 310 #4).

So a request whose named choice the server refuses (HTTP 400 or 422 whose message names ``tool_choice`` in its own
words, not one that only quotes the request body back: :func:`refuses_choice`) is asked again
once in the other form, and the form that worked is remembered on the model
(:class:`ChoiceForm`, shared by its ``bind_tools`` and ``with_structured_output`` copies), so the next requests are
sent that way from the start. A server that refuses both forms gets the error of the second with
:data:`BOTH_REFUSED`. The rule is written once here; ``ChatOpenAI``'s sync and async drivers (and their streams) only
call it.
"""

from __future__ import annotations

import re
import threading
from typing import Any

from toolwire.errors import ProviderError
from toolwire.models.base import ChatRequest

__all__ = ["BOTH_REFUSED", "FORMS", "REQUIRED_AND_NAMED_REFUSED", "REQUIRED_REFUSED", "ChoiceForm", "both_refused",
           "forces_one", "is_named", "other_form", "refuses_choice", "required_and_named_refused", "required_refused"]

FORMS = ("object", "required")
"""The two forms, the first sent first (``lower_request``'s ``named_form``)."""

BOTH_REFUSED = ("The server refuses to force a named tool both as tool_choice=\"required\" with that one tool and as "
                "{\"type\": \"function\", \"function\": {\"name\"}}: bind the tool with tool_choice=\"auto\" and "
                "ask for it in the question, or use a server that can force a tool.")

REQUIRED_REFUSED = ("This server cannot force a tool with tool_choice=\"required\" (vLLM before 0.8.3 refuses it): "
                    "name the tool to call (tool_choice=\"<tool name>\"), or use tool_choice=\"auto\" and ask for "
                    "the tool in the question, or upgrade vLLM to 0.8.3 or later.")
"""The hint of a server's refusal of ``tool_choice="required"`` with several tools bound."""

REQUIRED_AND_NAMED_REFUSED = ("This server refuses to force a tool, both with tool_choice=\"required\" and with its "
                              "one tool named: use tool_choice=\"auto\" and ask for the tool in the question, or "
                              "use a server that can force a tool.")
"""The hint of a server's refusal of ``tool_choice="required"`` with one tool, and then of that tool named (review
318 #1: the hint said to name the tool, which had just been refused)."""


class ChoiceForm:
    """The form a model sends a named ``tool_choice`` in (one of :data:`FORMS`), learned from the server's refusals.

    Thread-safe: ``get`` and ``remember`` take a lock. A shallow copy of the model (``bind_tools``) shares this object,
    so what one copy learned serves the others; ``copy.deepcopy`` of the model gives an independent one with the same
    form.

    Args:
        form: the form to start with (default ``"object"``).
    """

    def __init__(self, form: str = FORMS[0], *, required_refused: bool = False) -> None:
        self._lock = threading.Lock()
        self._form = form
        self._required_refused = required_refused

    def required_refused(self) -> bool:
        """Whether the server refused ``tool_choice="required"`` and took the one tool named instead."""
        with self._lock:
            return self._required_refused

    def refuse_required(self) -> None:
        """Send ``"required"`` with one tool as that tool named from now on (the server refused ``"required"``)."""
        with self._lock:
            self._required_refused = True

    def get(self) -> str:
        """Return the form to send now."""
        with self._lock:
            return self._form

    def remember(self, form: str) -> None:
        """Send ``form`` from now on (it just worked)."""
        with self._lock:
            self._form = form

    def __deepcopy__(self, memo: dict[int, Any]) -> ChoiceForm:
        """An independent copy (a lock cannot be copied): the same form, its own lock."""
        return ChoiceForm(self.get(), required_refused=self.required_refused())

    def __repr__(self) -> str:
        return f"ChoiceForm({self.get()!r}{', required_refused=True' if self.required_refused() else ''})"


def is_named(request: ChatRequest) -> bool:
    """Whether ``request`` forces one bound tool by its name (so its form matters): a ``tool_choice`` other than
    ``"auto"``, ``"none"`` or ``"required"`` that names one of ``request.tools``."""
    choice = request.tool_choice
    if not choice or choice in ("auto", "none", "required"):
        return False
    return any(tool.name == choice for tool in request.tools)


def forces_one(request: ChatRequest) -> bool:
    """Whether ``request`` is ``tool_choice="required"`` with exactly one bound tool: the same forced call as that
    tool named, which a server that refuses ``"required"`` is asked for instead (review 310 #4)."""
    return request.tool_choice == "required" and len(request.tools) == 1


def other_form(form: str) -> str:
    """The form of :data:`FORMS` that is not ``form``."""
    return FORMS[1] if form == FORMS[0] else FORMS[0]


_INPUT = re.compile(r"""(['"])input\1\s*:\s*""")  # a validation error's echo of what it judged: 'input': ...
_KEY = re.compile(r"""['"]tool_choice['"]\s*:""", re.IGNORECASE)  # tool_choice as a key of an echoed request body
_NAMED = re.compile(r"tool[_ ]choice", re.IGNORECASE)
_CLOSE = {"{": "}", "[": "]", "(": ")"}


def _value_end(text: str, start: int) -> int:
    """Where the Python-repr or JSON value that starts at ``text[start]`` ends (one past it): a quoted string, a
    bracketed value (its quoted strings skipped whole), or a bare word up to the next ``,`` or closing bracket."""
    stack: list[str] = []
    index = start
    while index < len(text):
        char = text[index]
        if char in "'\"":
            index += 1
            while index < len(text) and text[index] != char:
                index += 2 if text[index] == "\\" else 1
        elif char in _CLOSE:
            stack.append(_CLOSE[char])
        elif stack and char == stack[-1]:
            stack.pop()
        elif not stack and char in ",)]}":
            return index
        index += 1
        if not stack and text[start] in "'\"{[(":
            return index
    return index


def _without_echoes(message: str) -> str:
    """``message`` with the request values it quotes back cut out: each validation error's ``'input': ...`` (vLLM
    and FastAPI put the whole request body there, ``tool_choice`` and all)."""
    parts = []
    index = 0
    for match in _INPUT.finditer(message):
        if match.start() < index:
            continue  # (inside an echo already cut)
        parts.append(message[index:match.start()])
        index = _value_end(message, match.end())
    parts.append(message[index:])
    return "".join(parts)


def _inside_braces(text: str, at: int) -> bool:
    """Whether position ``at`` of ``text`` lies inside a ``{...}`` opened before it and not yet closed."""
    return text.count("{", 0, at) > text.count("}", 0, at)


def refuses_choice(error: BaseException) -> bool:
    """Whether ``error`` is a server's refusal of the request's ``tool_choice`` value itself: a
    :class:`ProviderError` of HTTP 400 or 422 whose message names ``tool_choice`` in its own words (vLLM's
    'tool_choice = "required" is not supported!' and "`tool_choice` must either be a named tool, ...", LM Studio's
    "Invalid tool_choice type: 'object'. Supported string values: none, auto, required", a validation error located
    at ``('body', 'tool_choice')``).

    A message that only quotes the request back does not count (review 225 #3): vLLM's 400 for another field is
    the validation error with the whole request body as its ``'input'``, ``'tool_choice': 'required'`` among it, so
    the echoed ``'input'`` values are cut first, and ``tool_choice`` written as a key of a quoted body
    (``"tool_choice": ...``) is no refusal either."""
    if not isinstance(error, ProviderError) or error.status not in (400, 422):
        return False
    message = _without_echoes(str(error.args[0]) if error.args else "")
    # a key of a quoted body ({... 'tool_choice': ...}) is an echo; "Invalid type for 'tool_choice': ..." (OpenAI's
    # wording, which gateways copy) is the server's own words (review 232 #5)
    message = _KEY.sub(lambda m: "" if _inside_braces(m.string, m.start()) else m.group(0), message)
    return _NAMED.search(message) is not None


def required_refused(error: ProviderError) -> ProviderError:
    """``error``, a refusal of a request sent with ``tool_choice="required"`` (or, after that, with its one tool
    named), with :data:`REQUIRED_REFUSED` as its hint when it names ``tool_choice`` (changed in place; not
    retryable)."""
    if refuses_choice(error):
        error.hint, error.retryable, error.api_advice = REQUIRED_REFUSED, False, None
    return error


def required_and_named_refused(error: ProviderError) -> ProviderError:
    """``error``, the refusal of ``tool_choice="required"``'s one tool named (tried after ``"required"`` was
    refused), with :data:`REQUIRED_AND_NAMED_REFUSED` as its hint when it names ``tool_choice`` (changed in place; not
    retryable)."""
    if refuses_choice(error):
        error.hint, error.retryable, error.api_advice = REQUIRED_AND_NAMED_REFUSED, False, None
    return error


def both_refused(error: ProviderError) -> ProviderError:
    """``error``, the second form's refusal, with :data:`BOTH_REFUSED` as its hint when it names ``tool_choice``
    too (changed in place; not retryable)."""
    if refuses_choice(error):
        error.hint, error.retryable, error.api_advice = BOTH_REFUSED, False, None
    return error
