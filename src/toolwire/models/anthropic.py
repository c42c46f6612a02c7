"""``ChatAnthropic``: Anthropic's Messages API through the official ``anthropic`` SDK.

Thin I/O over the official ``anthropic`` SDK (toolwire's ``anthropic`` extra); the formats live in
:mod:`toolwire.models.lowering.anthropic`.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import functools
import os
from collections.abc import Mapping, Sequence
from numbers import Integral
from typing import Any, ClassVar, Self

from toolwire._warn_site import warn_user
from toolwire.errors import ProviderError, SchemaError, UserError
from toolwire.messages import AIMessage
from toolwire.models._keys import Secret, resolve_key
from toolwire.models._retry import (
    connection_error,
    error_message,
    redact_url,
    status_error,
    stream_error_status,
    transport_error,
)
from toolwire.models._sdk import SDKChatModel
from toolwire.models._sdk_options import client_base_url
from toolwire.models._tool_conversion import ServerTool, openai_builtin
from toolwire.models.base import ChatRequest
from toolwire.models.lowering import anthropic as codec
from toolwire.models.lowering._common import fold_top_union

__all__ = ["ChatAnthropic"]


class ChatAnthropic(SDKChatModel):
    """A Claude model (``POST /v1/messages``).

    Args:
        model: e.g. ``"claude-sonnet-4-5"`` (``model_name=``, LangChain's other name for it, is taken too).
        api_key: the key, as text or a pydantic ``SecretStr`` (default: ``ANTHROPIC_API_KEY``); never shown in
            reprs, logs or errors.
        auth_token: a bearer token, as text or a ``SecretStr``, sent as ``Authorization: Bearer ...`` instead of a key,
            as the ``anthropic`` SDK sends it (what a gateway in front of Claude often takes); used when no
            ``api_key`` is given (default: ``ANTHROPIC_AUTH_TOKEN`` when ``ANTHROPIC_API_KEY`` is not set, the SDK's
            order). Masked as the key is.
        base_url: another endpoint, such as a proxy (default: ``ANTHROPIC_BASE_URL``, else Anthropic's).
        timeout: seconds one HTTP request may take before it fails and is retried (default 120).
        max_retries: retries after the first attempt, with backoff, on 429, 5xx, 408/409, connection errors and
            timeouts (default 2); then one :class:`~toolwire.errors.ProviderError`.
        retry_backoff: seconds before the first retry, doubled after each, with jitter (default 0.5).
        streaming: make ``invoke``/``ainvoke`` use the streaming API too, merging the chunks (default False).
        temperature: sampling temperature (Claude takes 0 to 1); None (default): the API's own.
        max_tokens: the most tokens a reply may have (default
            :data:`~toolwire.models.lowering.anthropic.DEFAULT_MAX_TOKENS`, 4096: the Messages API requires one).
        top_p: nucleus sampling, from 0 to 1; None (default): the API's own.
        top_k: sample from the ``top_k`` most likely tokens only, a whole number of 0 or more (as LangChain's
            ``ChatAnthropic`` takes it; sent as the Messages API's ``top_k``, as ``model_kwargs={"top_k": ...}`` sends
            it); None (default): the API's own.
        stop: a string or a list of strings that end the reply (the API's ``stop_sequences``).
        betas: beta feature names, such as ``["context-1m-2025-08-07"]``, sent as the ``anthropic-beta`` header (as
            LangChain's ``ChatAnthropic`` takes them; ``model_kwargs={"betas": [...]}`` and a per-call ``betas=`` are
            sent so too), appended to an ``anthropic-beta`` set in ``model_kwargs={"extra_headers": ...}``.
        model_kwargs: other fields sent with every request, as the Messages API names them, such as
            ``{"thinking": {"type": "enabled", "budget_tokens": 2048}}`` or ``{"tools": [server tools]}`` (a dict).

    Per-call options (``invoke(..., temperature=..., max_tokens=...)``) override these. The Messages API has no
    ``seed``: one given here (or in ``model_kwargs``) is refused when the model is built, one given per call at
    that call.

    Server tools (``{"type": "web_search_20250305", "name": "web_search"}``...) bind like other tools, or go
    in ``model_kwargs={"tools": [...]}`` (added after the bound tools); they are sent unchanged and Claude
    runs them (their ``server_tool_use`` blocks are not tool calls). The key comes from ``api_key``, ``auth_token``,
    ``ANTHROPIC_API_KEY`` or ``ANTHROPIC_AUTH_TOKEN``, in that order. Thinking blocks are kept on the reply
    (``provider_data``) and sent back unchanged, as the API requires during tool use. ``bind_tools(...,
    strict=True)`` sends each tool with ``"strict": true`` and its schema in the subset strict tool use takes
    (:mod:`toolwire.models.lowering._anthropic_strict`; a schema outside it, or past the per-request limits, goes
    non-strict with a warning).

    Raises:
        UserError: the ``anthropic`` package is missing, no key or token is given or set, an option is of the wrong
            kind or out of range, or misspelled (the message names the close match: ``anthropic_api_key`` is
            ``api_key``), or ``seed`` was given (here, or per call at that call); ``top_k`` or ``betas`` given both as
            the keyword and in ``model_kwargs`` with another value; ``betas`` that are not a list of names.
    """

    provider: ClassVar[str] = "anthropic"
    label: ClassVar[str] = "an Anthropic"
    server_tools: ClassVar[tuple[str | None, ...]] = codec.SERVER_TOOL_PROVIDERS
    key_env: ClassVar[tuple[str, ...]] = ("ANTHROPIC_API_KEY",)
    base_url_env: ClassVar[str] = "ANTHROPIC_BASE_URL"
    sdk_module: ClassVar[str] = "anthropic"
    extra: ClassVar[str] = "anthropic"
    untaken_options: ClassVar[str | None] = "anthropic"  # no seed: refused when the model is built (review 77)
    strict_mode: ClassVar[bool] = True  # sent as each tool's "strict" (strict tool use, lowering._anthropic_strict)
    _bearer: bool = False  # the key is a bearer token (auth_token, ANTHROPIC_AUTH_TOKEN: review 314 #4)

    def _takes_server_tool(self, tool: ServerTool) -> bool:
        """Anthropic's server tools (versioned types, and unversioned ones of no other provider), never one of
        OpenAI's Responses API built-in tools (``{"type": "web_search"}``, ``file_search``, ``code_interpreter``,
        ``mcp``...: :data:`~toolwire.models._tool_conversion.OPENAI_BUILTIN_TYPES`), which the Messages API
        refuses with a 400 (review 217 #4)."""
        return super()._takes_server_tool(tool) and not openai_builtin(tool)

    def __init__(self, model: str | None = None, *, top_k: int | None = None, betas: list[str] | None = None,
                 auth_token: Any = None, **kwargs: Any) -> None:
        if auth_token is not None:  # (read by _resolve_key, which the base class calls)
            if not isinstance(auth_token, str) and not callable(getattr(auth_token, "get_secret_value", None)):
                raise UserError(f"{type(self).__name__}: auth_token must be the token as text or a SecretStr, not "
                                f"{type(auth_token).__name__}.")
            self._given_token = resolve_key(auth_token, owner=type(self).__name__, key_env=(), functions=False,
                                            sdk=self.sdk_module, given_as="auth_token")
        if betas is not None:  # (LangChain's option; sent as the anthropic-beta header: with_betas, review 297 #6)
            _beta_names(betas)
            given = kwargs.get("model_kwargs")
            if isinstance(given, Mapping) and given.get("betas", betas) != betas:
                raise UserError(f"{type(self).__name__} got betas={betas!r} and model_kwargs={{'betas': "
                                f"{given['betas']!r}}}: give betas once.")
            if given is None or isinstance(given, Mapping):
                kwargs["model_kwargs"] = {**(given or {}), "betas": betas}
        if top_k is not None:  # (review 203 #4: refused, with "did you mean 'top_p'")
            owner = type(self).__name__
            if not isinstance(top_k, Integral) or isinstance(top_k, bool) or top_k < 0:
                raise UserError(f"{owner}: top_k must be a whole number of 0 or more, not {top_k!r}; pass e.g. "
                                "top_k=40.")
            given = kwargs.get("model_kwargs")
            if isinstance(given, Mapping) and given.get("top_k", top_k) != top_k:
                raise UserError(f"{owner} got top_k={top_k!r} and model_kwargs={{'top_k': {given['top_k']!r}}}: give "
                                "top_k once.")
            if given is None or isinstance(given, Mapping):  # (anything else is refused as model_kwargs)
                kwargs["model_kwargs"] = {**(given or {}), "top_k": int(top_k)}
        super().__init__(model, **kwargs)

    def _thinking(self, options: dict[str, Any] | None = None) -> bool:
        """Whether extended thinking is on in ``options`` (default: the model's own;
        ``{"thinking": {"type": "enabled" | "adaptive", ...}}``)."""
        thinking = (self.options if options is None else options).get("thinking")
        return isinstance(thinking, dict) and thinking.get("type") in ("enabled", "adaptive")

    def bind_tools(self, tools: Sequence[Any], **options: Any) -> Self:
        """:meth:`~toolwire.models.base.BaseChatModel.bind_tools` (same arguments); with extended thinking on, a
        ``tool_choice`` that forces a call (``"required"``, a tool's name; also what an ``Agent`` binds) is bound as
        ``"auto"``, with a warning, as :meth:`with_structured_output` does: Anthropic refuses a forced tool then
        ("Thinking may not be enabled when tool_choice forces tool use", extended-thinking guide) with a 400.

        Raises:
            SchemaError, UserError: as the base method raises them; UserError also for a tool with a parameter name
                Anthropic refuses (:func:`~toolwire.models.lowering.anthropic.check_property_keys`, review 145 #2),
                here rather than at the first request.
        """
        new = super().bind_tools(tools, **options)
        for spec in new.tool_specs:  # (a server tool has no parameters of ours)
            name, schema = getattr(spec, "name", ""), getattr(spec, "parameters", None)
            if isinstance(schema, dict) and any(k in schema for k in ("anyOf", "oneOf", "allOf")):  # a top-level union:
                with contextlib.suppress(SchemaError):  # its keys once folded, as the request sends them (r. 151 #7)
                    schema = fold_top_union(name, copy.deepcopy(schema), provider="Anthropic", field="input_schema")
            codec.check_property_keys(name, schema)
        if new.tool_choice in (None, "auto", "none") or not self._thinking():
            return new
        warn_user(f"Extended thinking cannot force a tool call on Anthropic, so tool_choice={new.tool_choice!r} "
                  "is sent as 'auto' (the model may answer without a call); turn thinking off to force it.")
        new.tool_choice = "auto"
        return new

    def _structured_choice(self, name: str) -> str:
        """``"auto"`` with extended thinking on (:meth:`_thinking`), with a warning: Anthropic refuses a forced tool
        then ("Thinking may not be enabled when tool_choice forces tool use", extended-thinking guide); the tool
        itself otherwise."""
        if not self._thinking():
            return name
        warn_user(f"Extended thinking cannot force a tool call on Anthropic, so {name} is offered with "
                  "tool_choice='auto': a reply without the call raises ToolCallParseError; turn thinking off to "
                  "force it.")
        return "auto"

    def _resolve_key(self, api_key: Any) -> Secret | None:
        """The key, or the bearer token (:attr:`_bearer` then set), in the ``anthropic`` SDK's order: ``api_key``,
        ``auth_token``, ``ANTHROPIC_API_KEY``, ``ANTHROPIC_AUTH_TOKEN`` (review 314 #4).

        Raises:
            UserError: none of them is given or set (naming both variables), or one is of the wrong kind.
        """
        token = self.__dict__.pop("_given_token", None)
        if api_key is None and token is None:
            if os.environ.get("ANTHROPIC_API_KEY", "").strip():
                return super()._resolve_key(None)
            token = resolve_key(None, owner=type(self).__name__, key_env=("ANTHROPIC_AUTH_TOKEN",), functions=False,
                                sdk=self.sdk_module)
        if api_key is None and token is not None:
            self._bearer = True
            return token
        if api_key is not None:
            return super()._resolve_key(api_key)
        advice = ", or pass it as api_key"  # (the command line leaves this clause out)
        raise UserError(f"{type(self).__name__} needs an API key: set ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN"
                        f"{advice}.", api_advice=advice)

    def _make_client(self, asynchronous: bool) -> Any:
        cls = self.sdk.AsyncAnthropic if asynchronous else self.sdk.Anthropic
        assert self._api_key is not None
        url = client_base_url(self.base_url, self.base_url_env, "https://api.anthropic.com")  # (review 314 #1)
        key = {"auth_token" if self._bearer else "api_key": self._api_key.get()}  # (explicit: the SDK reads no env)
        return cls(**key, base_url=url, timeout=self.timeout, max_retries=0)

    def _endpoint(self, client: Any, stream: bool) -> Any:
        create = client.messages.create
        return functools.partial(create, stream=True) if stream else create

    def _lower(self, request: ChatRequest) -> dict[str, Any]:
        """The request's body; extended thinking turned on for this call alone (``invoke(..., thinking={...})``)
        with a forced ``tool_choice`` sends ``"auto"`` with a warning, as :meth:`bind_tools` does for thinking set
        on the model (review 86: the forced choice went out and Anthropic answered 400)."""
        forced = request.tools and request.tool_choice not in (None, "auto", "none")
        if forced and "thinking" in request.options and self._thinking(request.options):
            warn_user(f"Extended thinking cannot force a tool call on Anthropic, so tool_choice="
                      f"{request.tool_choice!r} is sent as 'auto' for this call (the model may answer without "
                      "a call); leave thinking off for calls that must call a tool.")
            request = dataclasses.replace(request, tool_choice="auto")
        return with_files_beta(with_betas(codec.lower_request(request, self.model, self.options)))

    def _parse(self, raw: Any, request: ChatRequest) -> AIMessage:
        return codec.parse_response(raw, tool_names=request.tool_parameters)

    def _stream_state(self, request: ChatRequest) -> Any:
        return codec.StreamState()

    def _translate(self, exc: BaseException) -> ProviderError | None:
        """The one place where ``anthropic`` exceptions become ProviderError."""
        sdk = self.sdk
        if isinstance(exc, sdk.APIStatusError):
            status = exc.status_code
            if status < 400:  # an error event inside a stream the server opened with 200
                status = stream_error_status(exc) or status
            return status_error(self.provider, status, error_message(exc),
                                key_env="ANTHROPIC_AUTH_TOKEN" if self._bearer else "ANTHROPIC_API_KEY")
        if isinstance(exc, sdk.APITimeoutError):
            return status_error(self.provider, None, f"The request timed out after {self.timeout:g} s.",
                                base_url=self.base_url)
        if isinstance(exc, sdk.APIConnectionError):
            return connection_error(self.provider, exc, timeout=self.timeout, base_url=self.base_url)
        if isinstance(exc, sdk.AnthropicError):
            return ProviderError(redact_url(str(exc)), provider=self.provider)
        # the HTTP client's own errors while a stream is read (the SDK wraps only those of opening it)
        return transport_error(self.provider, exc, timeout=self.timeout, base_url=self.base_url)


FILES_BETA = "files-api-2025-04-14"
"""The ``anthropic-beta`` value the Messages API needs to read a block whose ``source`` is an uploaded file
(``{"type": "file", "file_id"}``; Anthropic's "Files API" guide)."""


def _holds_file_id(value: Any) -> bool:
    """Whether a lowered message list holds a content block whose ``source`` is an uploaded file, at any depth (a
    tool result's blocks too)."""
    if isinstance(value, list):
        return any(map(_holds_file_id, value))
    if not isinstance(value, dict):
        return False
    source = value.get("source")
    if isinstance(source, dict) and source.get("type") == "file":
        return True
    content = value.get("content")
    return isinstance(content, list) and _holds_file_id(content)


def _add_betas(body: dict[str, Any], wanted: list[str]) -> dict[str, Any]:
    """``body`` with the beta names ``wanted`` appended to its ``extra_headers``' ``anthropic-beta`` header (a header
    the caller set, in any letter case, keeps its values; a name already there is not repeated); ``body`` itself when
    none is new."""
    headers = dict(body.get("extra_headers") or {})
    key = next((k for k in headers if isinstance(k, str) and k.lower() == "anthropic-beta"), "anthropic-beta")
    given = headers.get(key)
    betas = [b.strip() for b in given.split(",") if b.strip()] if isinstance(given, str) else []
    new = [b for n, b in enumerate(wanted) if b not in betas and b not in wanted[:n]]
    if not new:
        return body
    headers[key] = ",".join([*betas, *new])
    return {**body, "extra_headers": headers}


def with_files_beta(body: dict[str, Any]) -> dict[str, Any]:
    """Return ``body`` (the keyword arguments of ``messages.create``) with :data:`FILES_BETA` added to its
    ``extra_headers``' ``anthropic-beta`` header when a message holds an uploaded file's id, so such a request is
    not refused for the missing beta header; a header the caller set (``model_kwargs={"extra_headers": ...}``, in
    any letter case) keeps its values, the beta appended to its comma-separated list. A body without file ids is
    returned unchanged.
    """
    if not _holds_file_id(body.get("messages")):
        return body
    return _add_betas(body, [FILES_BETA])


def _beta_names(given: Any) -> list[str]:
    """The beta names of a ``betas`` option: a list (or tuple) of names, or one text of comma-separated names.

    Raises:
        UserError: anything else (a number, a list holding a non-string).
    """
    if isinstance(given, str):
        return [b.strip() for b in given.split(",") if b.strip()]
    if isinstance(given, list | tuple) and all(isinstance(b, str) for b in given):
        return [b.strip() for b in given if b.strip()]
    raise UserError(f"ChatAnthropic's betas must be a list of beta names, such as ['context-1m-2025-08-07'], not "
                    f"{given!r}: give the names as strings.")


def with_betas(body: dict[str, Any]) -> dict[str, Any]:
    """Return ``body`` (the keyword arguments of ``messages.create``) with its ``betas`` option (LangChain
    ChatAnthropic's ``betas``, the SDK's ``beta.messages.create(betas=...)``: ``model_kwargs={"betas": [...]}``, the
    ``betas=`` keyword or a per-call option) taken out and sent as the ``anthropic-beta`` header, appended to the one
    the caller set (:func:`_add_betas`): the Messages API has no ``betas`` body field and refuses one with a 400
    (review 297 #6). A body without ``betas`` is returned unchanged.

    Raises:
        UserError: ``betas`` is not a list of beta names (nor one text of them).
    """
    if "betas" not in body:
        return body
    rest = {k: v for k, v in body.items() if k != "betas"}
    return _add_betas(rest, _beta_names(body["betas"])) if body["betas"] is not None else rest
