"""``ChatOpenAI``'s sync and async drivers for a named ``tool_choice`` on an OpenAI-compatible server, sent in the form
the server takes (review 219 #1; the rule itself is :mod:`toolwire.models._openai_choice`): moved from
:mod:`toolwire.models.openai` as a mixin, so that module stays small (review 287).
"""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any

from toolwire.errors import ProviderError
from toolwire.messages import AIMessage, AIMessageChunk
from toolwire.models._openai_choice import ChoiceForm, both_refused, is_named, other_form, refuses_choice
from toolwire.models._retry import aclose_stream, close_stream
from toolwire.models._sdk import SDKChatModel
from toolwire.models.base import ChatRequest

__all__ = ["NamedChoiceTries"]


class NamedChoiceTries:
    """Mixin for :class:`~toolwire.models.openai.ChatOpenAI` (before :class:`~toolwire.models._sdk.SDKChatModel` in
    its bases): a request naming one tool, which a compatible server refuses in one form, is sent again once in the
    other (:meth:`_generate`, :meth:`_agenerate`, :meth:`_stream`, :meth:`_astream`).

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

    def _form_for(self, request: ChatRequest) -> str | None:
        """The form to send ``request``'s named ``tool_choice`` in first (:class:`~toolwire.models._openai_choice.
        ChoiceForm`), or None when the request has none whose form matters (OpenAI, the Responses API, no named
        choice)."""
        if self.use_responses_api or not self._compatible or not is_named(request):
            return None
        return self._choice.get()

    def _in_form(self, form: str) -> Any:
        """A shallow copy of this model (the same clients) whose requests send a named choice in ``form``."""
        clone = copy.copy(self)
        clone._named_form = form
        return clone

    def _generate(self, request: ChatRequest) -> AIMessage:
        """The reply (see the base class); a named ``tool_choice`` the server refuses is sent again once in the other
        form (:mod:`toolwire.models._openai_choice`). Raises: ProviderError, with the hint to force no tool when the
        server refuses both forms."""
        form = None if self.streaming else self._form_for(request)  # (streaming: _stream does it)
        if form is None:
            return super()._generate(request)
        try:
            return SDKChatModel._generate(self._in_form(form), request)
        except ProviderError as error:
            if not refuses_choice(error):
                raise
        second = other_form(form)
        try:
            reply = SDKChatModel._generate(self._in_form(second), request)
        except ProviderError as error:
            raise both_refused(error) from None
        self._choice.remember(second)
        return reply

    async def _agenerate(self, request: ChatRequest) -> AIMessage:
        """Async :meth:`_generate`."""
        form = None if self.streaming else self._form_for(request)
        if form is None:
            return await super()._agenerate(request)
        try:
            return await SDKChatModel._agenerate(self._in_form(form), request)
        except ProviderError as error:
            if not refuses_choice(error):
                raise
        second = other_form(form)
        try:
            reply = await SDKChatModel._agenerate(self._in_form(second), request)
        except ProviderError as error:
            raise both_refused(error) from None
        self._choice.remember(second)
        return reply

    def _stream(self, request: ChatRequest, *, whole: bool = False) -> Iterator[AIMessageChunk]:
        """The reply's chunks (see the base class); a named ``tool_choice`` the server refuses before any chunk is
        sent again once in the other form, as :meth:`_generate` does."""
        for tried, now, model in self._stream_tries(request):
            chunks = SDKChatModel._stream(model, request, whole=whole)
            started = False
            try:
                for chunk in chunks:
                    if not started and tried:
                        self._choice.remember(now)  # type: ignore[arg-type]
                    started = True
                    yield chunk
                if tried:
                    self._choice.remember(now)  # type: ignore[arg-type]
                return
            except ProviderError as error:
                _refused_before_any_chunk(error, started, now, tried)
            finally:
                close_stream(chunks)

    async def _astream(self, request: ChatRequest, *, whole: bool = False) -> AsyncIterator[AIMessageChunk]:
        """Async :meth:`_stream`."""
        for tried, now, model in self._stream_tries(request):
            chunks = SDKChatModel._astream(model, request, whole=whole)
            started = False
            try:
                async for chunk in chunks:
                    if not started and tried:
                        self._choice.remember(now)  # type: ignore[arg-type]
                    started = True
                    yield chunk
                if tried:
                    self._choice.remember(now)  # type: ignore[arg-type]
                return
            except ProviderError as error:
                _refused_before_any_chunk(error, started, now, tried)
            finally:
                await aclose_stream(chunks)

    def _stream_tries(self, request: ChatRequest) -> list[tuple[int, str | None, Any]]:
        """The tries of :meth:`_stream` and :meth:`_astream`: ``(index, form, model)``, one with no form for a
        request that names no tool, else the model's form and then the other."""
        form = self._form_for(request)
        forms = (None,) if form is None else (form, other_form(form))
        return [(tried, now, self if now is None else self._in_form(now)) for tried, now in enumerate(forms)]


def _refused_before_any_chunk(error: ProviderError, started: bool, form: str | None, tried: int) -> None:
    """Return when a stream's named ``tool_choice`` in ``form`` was refused before any chunk and the other form is
    still to try; else raise ``error`` (a failure of another kind, or after chunks went out) or, on the second form's
    refusal, :func:`~toolwire.models._openai_choice.both_refused`."""
    if started or form is None or not refuses_choice(error):
        raise error
    if tried:
        raise both_refused(error) from None
