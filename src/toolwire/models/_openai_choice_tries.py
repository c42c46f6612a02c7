"""``ChatOpenAI``'s sync and async drivers for a named ``tool_choice`` (and ``"required"`` with one tool: review 310
#4) on an OpenAI-compatible server, sent in the form the server takes (review 219 #1; the rule itself is
:mod:`toolwire.models._openai_choice`): moved from
:mod:`toolwire.models.openai` as a mixin, so that module stays small (review 287).
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import AsyncIterator, Callable, Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

from toolwire.errors import ProviderError
from toolwire.messages import AIMessage, AIMessageChunk
from toolwire.models._openai_choice import (
    FORMS,
    ChoiceForm,
    both_refused,
    forces_one,
    is_named,
    other_form,
    refuses_choice,
    required_and_named_refused,
    required_refused,
)
from toolwire.models._retry import aclose_stream, close_stream
from toolwire.models._sdk import SDKChatModel
from toolwire.models.base import ChatRequest

__all__ = ["NamedChoiceTries"]


class NamedChoiceTries:
    """Mixin for :class:`~toolwire.models.openai.ChatOpenAI` (before :class:`~toolwire.models._sdk.SDKChatModel` in
    its bases): a request naming one tool, which a compatible server refuses in one form, is sent again once in the
    other, and ``tool_choice="required"`` with one tool, refused, once with that tool named (:meth:`_generate`,
    :meth:`_agenerate`, :meth:`_stream`, :meth:`_astream`).

    Attributes (the model's):
        _choice: the :class:`~toolwire.models._openai_choice.ChoiceForm` shared by the model's copies.
        _compatible: whether the model talks to a compatible server.
        use_responses_api: whether it calls the Responses API (no named form matters there).
        streaming: whether ``invoke`` streams (its :meth:`_stream` then does the tries).
    """

    if TYPE_CHECKING:
        _choice: ChoiceForm
        _compatible: bool
        use_responses_api: bool
        streaming: bool

    def _tries(self, request: ChatRequest) -> tuple[list[_Try], Callable[[ProviderError], ProviderError] | None]:
        """The tries of ``request``, in order, and what the last one's refusal of its ``tool_choice`` becomes (None:
        any error as it is).

        A named choice on a compatible server: the model's form, then the other (a refusal of both:
        :func:`~toolwire.models._openai_choice.both_refused`). ``"required"`` with one bound tool on a compatible
        server: ``"required"``, then that tool named in the object form (only the latter once the server refused
        ``"required"``); with several tools ``"required"`` alone; either refusal gets
        :func:`~toolwire.models._openai_choice.required_refused`'s hint (review 310 #4). Anything else: one try."""
        if self.use_responses_api or not self._compatible:
            return [_Try(request, self, None)], None
        if is_named(request):
            form = self._choice.get()
            second = other_form(form)
            return [_Try(request, self._in_form(form), None), _Try(request, self._in_form(second), second)], \
                both_refused
        if request.tool_choice != "required":
            return [_Try(request, self, None)], None
        if not forces_one(request):
            return [_Try(request, self, None)], required_refused
        named = _Try(dataclasses.replace(request, tool_choice=request.tools[0].name), self._in_form(FORMS[0]),
                     _REQUIRED_REFUSED)
        return ([named] if self._choice.required_refused() else [_Try(request, self, None), named]), \
            required_and_named_refused  # (the last try is the tool named: review 318 #1)

    def _in_form(self, form: str) -> Any:
        """A shallow copy of this model (the same clients) whose requests send a named choice in ``form``."""
        clone = copy.copy(self)
        clone._named_form = form
        return clone

    def _learn(self, learned: str | None) -> None:
        """Remember what a try that worked after a refusal taught (:class:`_Try`'s ``learned``)."""
        if learned == _REQUIRED_REFUSED:
            self._choice.refuse_required()
        elif learned is not None:
            self._choice.remember(learned)

    def _generate(self, request: ChatRequest) -> AIMessage:
        """The reply (see the base class); a ``tool_choice`` the server refuses is sent again once in the other form
        (:meth:`_tries`, :mod:`toolwire.models._openai_choice`). Raises: ProviderError, with a hint that says what to
        do when the server refuses every form."""
        tries, last = ([], None) if self.streaming else self._tries(request)  # (streaming: _stream does it)
        if len(tries) < 2 and last is None:
            return super()._generate(request)
        for n, one in enumerate(tries):
            try:
                reply = SDKChatModel._generate(one.model, one.request)
            except ProviderError as error:
                _refused(error, n == len(tries) - 1, last)
                continue
            self._learn(one.learned)
            return reply
        raise AssertionError("unreachable")  # pragma: no cover

    async def _agenerate(self, request: ChatRequest) -> AIMessage:
        """Async :meth:`_generate`."""
        tries, last = ([], None) if self.streaming else self._tries(request)
        if len(tries) < 2 and last is None:
            return await super()._agenerate(request)
        for n, one in enumerate(tries):
            try:
                reply = await SDKChatModel._agenerate(one.model, one.request)
            except ProviderError as error:
                _refused(error, n == len(tries) - 1, last)
                continue
            self._learn(one.learned)
            return reply
        raise AssertionError("unreachable")  # pragma: no cover

    def _stream(self, request: ChatRequest, *, whole: bool = False) -> Iterator[AIMessageChunk]:
        """The reply's chunks (see the base class); a ``tool_choice`` the server refuses before any chunk is sent
        again once in the other form, as :meth:`_generate` does."""
        tries, last = self._tries(request)
        for n, one in enumerate(tries):
            chunks = SDKChatModel._stream(one.model, one.request, whole=whole)
            started = False
            try:
                for chunk in chunks:
                    if not started:
                        self._learn(one.learned)
                    started = True
                    yield chunk
                self._learn(one.learned)
                return
            except ProviderError as error:
                if started:
                    raise
                _refused(error, n == len(tries) - 1, last)
            finally:
                close_stream(chunks)

    async def _astream(self, request: ChatRequest, *, whole: bool = False) -> AsyncIterator[AIMessageChunk]:
        """Async :meth:`_stream`."""
        tries, last = self._tries(request)
        for n, one in enumerate(tries):
            chunks = SDKChatModel._astream(one.model, one.request, whole=whole)
            started = False
            try:
                async for chunk in chunks:
                    if not started:
                        self._learn(one.learned)
                    started = True
                    yield chunk
                self._learn(one.learned)
                return
            except ProviderError as error:
                if started:
                    raise
                _refused(error, n == len(tries) - 1, last)
            finally:
                await aclose_stream(chunks)


_REQUIRED_REFUSED = "required-refused"
"""A :class:`_Try`'s ``learned``: the server refused ``"required"`` and took its one tool named."""


class _Try(NamedTuple):
    """One try of a request: the request sent, the model (copy) that sends it, and what to remember when it works
    (a form of :data:`~toolwire.models._openai_choice.FORMS`, :data:`_REQUIRED_REFUSED`, or None: nothing)."""

    request: ChatRequest
    model: Any
    learned: str | None


def _refused(error: ProviderError, last: bool, final: Callable[[ProviderError], ProviderError] | None) -> None:
    """Return when ``error`` refused a try's ``tool_choice`` and another try is left; else raise ``error`` (a failure
    of another kind, or a request with nothing else to try) or, on the last try's refusal, ``final(error)``."""
    if final is None or not refuses_choice(error):
        raise error
    if last:
        raise final(error) from None
