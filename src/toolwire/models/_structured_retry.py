"""Asking again, with the error, after a structured-output reply that does not fit the schema
(``with_structured_output(schema, retries=n)``).

The rule is Pydantic AI's output retries (``Agent(output_retries=...)``, ``retries``): when the output tool's call
cannot be read as the schema, the reply goes back to the model with what was wrong, and the model is asked again,
up to ``retries`` more times. Asking the same request again (``with_retry``) gives a model at temperature 0 the same
reply; telling it which field did not fit, and why, lets it correct the call.

What did not fit is worded by :func:`problems_text`; the conversation for the next request is made by one pure
function, :func:`next_conversation`, and the counting by :class:`Attempts`, so that ``invoke``, ``ainvoke``,
``stream`` and ``astream`` (and ``batch``/``abatch``, which use the first two) share them and only the call of the
model differs.

Private to :mod:`toolwire.models.structured`.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import ValidationError

from toolwire._run_usage import record_attempt
from toolwire.errors import ToolCallParseError, UserError
from toolwire.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

__all__ = ["Attempts", "Problem", "check_retries", "next_conversation", "problems_text"]


@dataclasses.dataclass(frozen=True)
class Problem:
    """Why a reply could not be read as the schema.

    Attributes:
        error: the :class:`~toolwire.errors.ToolCallParseError` raised for it (its ``raw`` is the reply).
        feedback: what the model is told, one sentence ending with a full stop (``"Invoice was not accepted:
            total: Field required."``); None when asking again cannot help (a reply cut off at ``max_tokens``: the
            same limit would cut the next one too, so the error, which says to raise ``max_tokens``, is raised).
    """

    error: ToolCallParseError
    feedback: str | None


def check_retries(retries: Any) -> int:
    """``retries`` checked: a whole number of at least 0, not a bool.

    Raises:
        UserError: any other value.
    """
    if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
        raise UserError(f"with_structured_output(retries=...) takes a whole number of at least 0, the extra requests "
                        f"made after a reply that does not fit the schema (e.g. retries=2), not {retries!r}.")
    return retries


_MOST_PROBLEMS = 5  # schema problems named in one error; the rest are counted


def _validation_errors() -> tuple[type[Exception], ...]:
    """pydantic's ``ValidationError``, and pydantic.v1's once a v1 model may have been given (it is imported)."""
    v1 = sys.modules.get("pydantic.v1")
    return (ValidationError, v1.ValidationError) if v1 is not None else (ValidationError,)


def problems_text(exc: Exception, name: str, schema: Mapping[str, Any] | None = None) -> str:
    """What did not fit, as one sentence's tail (no closing full stop), for the error and for what the model is told.

    pydantic's ``errors()`` each named (up to :data:`_MOST_PROBLEMS`, the rest counted) with where it is, so a
    caller that asks again can tell the model all of them at once (review 96: only the first was named); a dict
    schema's problems as its check wrote them; any other exception (a validator's ``KeyError``: review 185 #4) by its
    type and text. Errors inside a union are worded as a toolwire tool's
    (:func:`~toolwire._schema_refs.validation_message` on ``schema``): the paths the model wrote, without pydantic's
    member labels (``steps.0.Add.op``), and for a union told apart by a tag only the errors of the member the tag
    picks (``with op "delete": 'steps.0.id': ...``; review 242 #3: the model was told to switch to the other member).

    Args:
        exc: what the output tool's reader raised.
        name: the output tool's name.
        schema: the output tool's JSON Schema (``$ref`` inlined), or None.

    Returns:
        The problems, e.g. ``"total: Field required; and 2 more"``.
    """
    from toolwire.models._structured_dicts import DictSchemaError

    if isinstance(exc, DictSchemaError):
        return exc.problems
    if not isinstance(exc, _validation_errors()):
        return f"the schema's validation raised {type(exc).__name__}: {str(exc)[:200] or 'no message'}"
    errors = exc.errors()
    if isinstance(exc, ValidationError) and isinstance(schema, Mapping):
        worded = _as_a_tools(exc, errors, name, schema)
        if worded is not None:
            return worded
    parts = []
    for problem in errors[:_MOST_PROBLEMS]:
        where = ".".join(str(part) for part in problem.get("loc", ())) or "the arguments"
        parts.append(f"{where}: {str(problem.get('msg', 'invalid')).rstrip('.')}")
    more = len(errors) - _MOST_PROBLEMS
    return "; ".join(parts) + (f"; and {more} more" if more > 0 else "")


def _as_a_tools(exc: ValidationError, errors: list[Any], name: str, schema: Mapping[str, Any]) -> str | None:
    """``exc`` worded as a tool's arguments are (:func:`~toolwire._schema_refs.validation_message`), without its
    opening and closing, its problems capped at :data:`_MOST_PROBLEMS` as the others are, when one of ``errors`` is
    inside a union (a step of its ``loc`` is a member's label, which
    the path the model wrote leaves out); else None."""
    from toolwire._schema_refs import shown_path, validation_message

    if not any(shown_path(tuple(err.get("loc", ())), schema) != ".".join(map(str, err.get("loc", ())))
               for err in errors):
        return None
    properties = schema.get("properties")
    text = validation_message(exc, name, list(properties) if isinstance(properties, Mapping) else (), schema,
                              most=_MOST_PROBLEMS)  # (capped as the other errors are: review 247 #5)
    opening = f"Invalid arguments for tool '{name}': "
    return text[len(opening):].removesuffix(".") if text.startswith(opening) else None


def next_conversation(messages: list[BaseMessage], reply: AIMessage, name: str, feedback: str) -> list[BaseMessage]:
    """The conversation to ask the model again with, after ``reply`` could not be read as the schema.

    ``messages``, then ``reply``, then: when ``reply`` called tools, one error :class:`~toolwire.messages.ToolMessage`
    per call (each call must be answered), in the order the model sent them: a call of the output tool ``name``
    gets ``feedback`` and ``"Call <name> again with the corrected arguments."``, a call of another tool (a provider
    that ignored ``tool_choice``) a sentence saying to call ``name`` instead; when ``reply`` called nothing, a
    :class:`~toolwire.messages.HumanMessage` with ``feedback`` asking for the answer as a call of ``name``. This is
    what Pydantic AI sends back (a retry prompt answering the tool call, or a user prompt when there was no call).

    Args:
        messages: the conversation the reply answered (not changed).
        reply: the model's reply that could not be read.
        name: the output tool's name.
        feedback: what was wrong, one sentence ending with a full stop (:attr:`Problem.feedback`).

    Returns:
        A new list: ``messages``, the reply (its repeated call ids renamed, as an Agent's are), and the answer above.
    """
    from toolwire._agent_checks import unique_call_ids
    from toolwire._call_records import in_reply_order

    reply = unique_call_ids(reply)
    calls = in_reply_order(reply.tool_calls, reply.invalid_tool_calls, reply.invalid_tool_calls)
    answers: list[BaseMessage] = []
    for call in calls:
        called = call.get("name")
        if called in (name, None):  # (an invalid call may have no name: parse reads it as the output tool's)
            text = f"{feedback} Call {name} again with the corrected arguments."
        else:
            text = f"{called} is not a tool you can call here: give your answer by calling {name}."
        answers.append(ToolMessage(text, tool_call_id=str(call.get("id") or ""), name=called or name,
                                   status="error"))
    if not calls:
        answers.append(HumanMessage(f"{feedback} Give your answer by calling {name} with it as the arguments."))
    return [*messages, reply, *answers]


class Attempts:
    """One structured-output call's requests: what to send next, and when to stop.

    Args:
        input: the call's input, as ``invoke`` takes it (with ``retries`` above 0 it is read into messages once,
            by :func:`~toolwire.messages.coerce_messages`, as the model reads it; with 0 it is sent as given).
        retries: the extra requests allowed (checked by :func:`check_retries`).
        name: the output tool's name.
        check: reads a reply: ``(value, None)``, or ``(None, Problem)`` when it cannot be read.
        include_raw: return ``{"raw", "parsed", "parsing_error"}`` instead of the value, and for the last failure.

    Attributes:
        input: what to send with the next request.
        made: the requests whose replies were given to :meth:`outcome` so far.
        usages: the ``usage`` of each of those replies (None where the reply has none), in order.

    After more than one request, the last reply (``raw`` of the ``include_raw`` dict or of the error raised) is a copy
    whose ``response_metadata["attempts_usage"]`` is :attr:`usages`, the usage of every request this call made, that
    reply's own last (its ``usage`` stays its own): the earlier replies are not returned, and their tokens were billed
    (review 281 #1). Each reply is also recorded for an Agent's run (:func:`~toolwire._run_usage.record_attempt`).
    A request that fails (a ``ProviderError``) gets the usage of the replies before it from :meth:`failed`.
    """

    def __init__(self, input: Any, retries: int, name: str,
                 check: Callable[[AIMessage], tuple[Any, Problem | None]], include_raw: bool) -> None:
        if retries:
            from toolwire.messages import coerce_messages

            input = coerce_messages(input)
        self.input = input
        self.made = 0
        self.usages: list[Any] = []
        self._retries = retries
        self._name = name
        self._check = check
        self._include_raw = include_raw

    def outcome(self, reply: AIMessage) -> tuple[bool, Any]:
        """Read ``reply``, the answer to :attr:`input`.

        Returns:
            ``(True, result)``: what ``invoke`` returns (the value, or the ``include_raw`` dict, for the last failure
            too); or ``(False, None)``: ask again, with :attr:`input` now the conversation of
            :func:`next_conversation`.

        Raises:
            ToolCallParseError: (without ``include_raw``) the reply cannot be read and no request is left, or asking
                again cannot help (:attr:`Problem.feedback` None); after more than one request its message ends by
                saying how many were made.
        """
        self.made += 1
        usage = getattr(reply, "usage", None)
        self.usages.append(dict(usage) if isinstance(usage, dict) else None)
        record_attempt(reply)
        value, problem = self._check(reply)
        if problem is None:
            return True, ({"raw": self._marked(reply), "parsed": value, "parsing_error": None} if self._include_raw
                          else value)
        if problem.feedback is not None and self.made <= self._retries:
            self.input = next_conversation(self.input, reply, self._name, problem.feedback)
            return False, None
        error = problem.error
        if self.made > 1:
            reply = self._marked(reply)
            error = ToolCallParseError(f"{error} The model was asked {self.made} times (retries={self._retries}), "
                                       "each earlier reply sent back with what was wrong.", raw=reply)
            error.__cause__ = problem.error.__cause__
        if not self._include_raw:
            raise error
        return True, {"raw": reply, "parsed": None, "parsing_error": error}

    def failed(self, exc: BaseException) -> BaseException:
        """Write :attr:`usages` (copies; empty when ``exc`` ended the first request) on ``exc``, the error a request
        of this call raised (a ``ProviderError``), as ``exc.attempts_usage``, so the tokens of the replies read
        before it, billed but not returned, can be found (review 285 #2); an error that refuses new attributes is
        left as it is. For the caller's ``except`` around the model's request.

        Returns:
            ``exc``, to raise.
        """
        from contextlib import suppress

        with suppress(AttributeError, TypeError):
            exc.attempts_usage = [None if u is None else dict(u) for u in self.usages]  # type: ignore[attr-defined]
        return exc

    def _marked(self, reply: AIMessage) -> AIMessage:
        """``reply``, or after more than one request a copy with ``response_metadata["attempts_usage"]`` (see the
        class docs)."""
        if self.made < 2:
            return reply
        return reply.copy(response_metadata={**reply.response_metadata,  # type: ignore[return-value]
                                             "attempts_usage": [None if u is None else dict(u) for u in self.usages]})
