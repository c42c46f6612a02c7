"""``ChatOpenAI``: OpenAI's Chat Completions and Responses APIs, and OpenAI-compatible servers.

Thin I/O over the official ``openai`` SDK (toolwire's ``openai`` extra); the formats live in
:mod:`toolwire.models.lowering.openai`. With ``base_url`` it talks to any server that speaks Chat
Completions: vLLM, SGLang, llama.cpp server, Ollama, LM Studio (there a dummy key is fine). An Azure OpenAI
``base_url`` is OpenAI's own service behind Microsoft's v1 API, so it keeps OpenAI's rules (see
:func:`azure_v1_url`).
"""

from __future__ import annotations

import dataclasses
import functools
import os
from collections.abc import Mapping
from typing import Any, ClassVar

from toolwire._extras import install_hint
from toolwire._keywords import MODEL_ADVICE, RENAMED, keyword_names
from toolwire._secrets import header_secrets, scrub_exception
from toolwire.errors import ProviderError, UserError
from toolwire.messages import AIMessage
from toolwire.models._keys import takes_key_function
from toolwire.models._openai_choice import ChoiceForm
from toolwire.models._openai_choice_tries import NamedChoiceTries
from toolwire.models._openai_errors import SERVER_KEY_HINT as _SERVER_KEY_HINT  # noqa: F401 (the CLI's)
from toolwire.models._openai_errors import adapt_error, server_hint, unknown_endpoint
from toolwire.models._openai_errors import own_server as _own_server
from toolwire.models._openai_errors import server_hint as _server_hint
from toolwire.models._openai_options import (
    client_defaults,
    leave_out_refused_temperature,
    refuse_chat_reasoning,
    refuse_two_forms,
    refuse_unknown,
    responses_fields,
    taken_options,
    without_replaced_forms,
)
from toolwire.models._openai_urls import azure_v1_url, is_mistral_url, is_openai_url, split_query
from toolwire.models._retry import (
    body_message,
    connection_error,
    error_code,
    error_message,
    redact_url,
    status_error,
    transport_error,
)
from toolwire.models._sdk import SDKChatModel, _check_base_url
from toolwire.models._sdk_options import _CLIENT, check_generation_options, merge_model_kwargs, refuse_class_format
from toolwire.models._text_calls import TextCallStream, with_text_calls
from toolwire.models.base import ChatRequest, ServerTool
from toolwire.models.lowering import openai as codec
from toolwire.models.lowering._calls import read_as_cut
from toolwire.models.lowering._openai_replies import as_dict
from toolwire.models.lowering._openai_turns import mistral_call_ids, mistral_family, unique_responses_ids
from toolwire.models.lowering._stream_errors import NotAReply, error_status

__all__ = ["ChatOpenAI", "azure_v1_url", "is_openai_url"]


class ChatOpenAI(NamedChoiceTries, SDKChatModel):
    """A chat model served by OpenAI, or by an OpenAI-compatible server at ``base_url``.

    Args:
        model: e.g. ``"gpt-5-mini"``, or the name a local server gives its model (``model_name=``, LangChain's
            other name for it, is taken too).
        use_responses_api: call the Responses API (``POST /v1/responses``) instead of Chat Completions
            (``POST /v1/chat/completions``). Reasoning items are kept and sent back unchanged.
        stream_usage: ask for token usage at the end of a stream (``stream_options.include_usage``); turn it
            off for a server that refuses ``stream_options`` (its error then says so).
        organization: the OpenAI organization id, if any (sent as the ``OpenAI-Organization`` header; default:
            ``OPENAI_ORG_ID``).
        project: the OpenAI project id, if any (sent as the ``OpenAI-Project`` header, as the ``openai`` SDK sends
            it; default: ``OPENAI_PROJECT_ID``).
        text_tool_calls: read tool calls the server left in the reply's text (``<tool_call>`` blocks, JSON
            call objects, ``[f(a=1)]`` lists, for bound tool names only) when the reply has no native
            ``tool_calls``; a server that does not parse the model's calls itself sends them that way. JSON
            calls and call lists, which carry no marker, only where they end the reply (followed by
            more text they are an example the reply shows).
            ``None`` (default): on for a compatible server (see ``compatible``), off for OpenAI and Azure. Such a
            reply has ``response_metadata["tool_calls_from_text"] = True`` (:mod:`toolwire.models._text_calls` gives
            the rules, the same in ``invoke`` and ``stream``). Never with ``tool_choice="none"``.
        azure: whether ``base_url`` is Azure OpenAI's v1 API. ``None`` (default): when its host is an Azure OpenAI
            host (:func:`azure_v1_url`); ``True`` for any host (an API Management gateway or a custom domain in
            front of the resource; ``init_chat_model("azure_openai:...")`` passes it); ``False`` never.
        compatible: whether ``base_url`` is an OpenAI-compatible server (vLLM, SGLang, llama.cpp, Ollama...) rather
            than OpenAI itself. ``None`` (default): decided by the host: OpenAI's (``api.openai.com`` and its
            data-residency hosts ``*.api.openai.com``, :func:`is_openai_url`) and Azure's are OpenAI, any other is
            a compatible server. ``False``: OpenAI's rules whatever the host, for a proxy or gateway in front of
            OpenAI (LiteLLM, Portkey, a company gateway). ``True``: a compatible server's rules whatever the host.
            A compatible server is sent a ``tool_choice`` naming one tool (``with_structured_output``,
            ``bind_tools(..., tool_choice="<tool>")``) with only that tool, as ``{"type": "function", "function":
            {"name"}}``; when it refuses that (HTTP 400 refusing ``tool_choice`` in the server's own words, not one
            that only quotes the request body: LM Studio takes only the string values) the request is sent again
            once as ``"required"``, and the form that worked is kept for the model's next
            requests (:mod:`toolwire.models._openai_choice`). ``compatible=False`` sends the object form with every
            tool from the start, but changes the other rules above too.
        mistral_call_ids: send every tool call id (alike in a call and its result) as 9 letters and digits, the only
            form Mistral-family servers take (Mistral's API, vLLM in Mistral mode and llama.cpp with a Mistral chat
            template answer any other id with HTTP 400 "Tool call id was ... but must be a-z, A-Z, 0-9, with a
            length of 9"), so ids toolwire gives calls read from text, the Agent's renames of repeated ids and ids
            of another provider in a stored conversation reach them. ``None`` (default): when the model name is a
            Mistral AI model's (``mistral``, ``mixtral``, ``codestral``, ``ministral``, ``devstral``, ``magistral``,
            ``pixtral``, ``voxtral`` or ``mathstral`` in it, any case) or ``base_url``'s host is Mistral AI's
            (``api.mistral.ai``); ``True``: always (a Mistral model served under a name of its own); ``False``:
            never. Only the request changes: ids that already fit are kept, any other becomes the start of its
            SHA-256 (the same conversation gives the same request, so prompt caching works; two ids never share
            one), and the conversation's messages keep their own ids
            (:func:`~toolwire.models.lowering._openai_turns.mistral_call_ids`). Chat Completions only: a Responses
            API request is sent as it is.
        api_key: the key, as text, a pydantic ``SecretStr``, or a function that returns it (the ``openai`` SDK
            calls it before each request: a key that rotates); default: ``OPENAI_API_KEY`` (see below for Azure
            and compatible servers). Never shown in reprs, logs or errors.
        base_url: an OpenAI-compatible server, Azure OpenAI, or a proxy (default: ``OPENAI_BASE_URL``, else OpenAI).
        timeout: seconds one HTTP request may take before it fails and is retried (default 120).
        max_retries: retries after the first attempt, with backoff, on 429, 5xx, 408/409, connection errors and
            timeouts (default 2); then one :class:`~toolwire.errors.ProviderError`.
        retry_backoff: seconds before the first retry, doubled after each, with jitter (default 0.5).
        streaming: make ``invoke``/``ainvoke`` use the streaming API too, merging the chunks (default False).
        temperature: sampling temperature (OpenAI takes 0 to 2); None (default): the server's own. OpenAI's
            reasoning models (o1, o3, o4-mini, gpt-5 and gpt-5-mini, not gpt-5-chat) take only the default, 1, and
            refuse any other: on OpenAI and Azure another is left out of their requests, with a warning, as
            langchain-openai leaves it out (unless ``reasoning_effort="none"``); a compatible server is sent it.
        reasoning_effort: how much a reasoning model reasons (``"minimal"``, ``"low"``, ``"medium"``, ``"high"``,
            ``"none"``...), sent with every request (the Responses API's ``reasoning.effort``; a call's or ``bind``'s
            own replaces the effort of the model's ``reasoning`` dict, as its ``verbosity`` does ``text``'s).
        reasoning: the Responses API's ``reasoning`` options, a dict (``{"effort": "low", "summary": "auto"}``);
            Chat Completions on OpenAI or Azure takes ``reasoning_effort`` instead.
        verbosity: how long a reasoning model's answers are (``"low"``, ``"medium"``, ``"high"``; the Responses
            API's ``text.verbosity``).
        service_tier: OpenAI's processing tier (``"auto"``, ``"default"``, ``"flex"``, ``"priority"``).
        max_tokens: the most tokens a reply may have; None (default): the server's own.
        top_p: nucleus sampling, from 0 to 1; None (default): the server's own.
        stop: a string or a list of strings that end the reply.
        seed: a whole number for repeatable sampling, as far as the server makes it so.
        model_kwargs: other fields sent with every request, as the API names them, such as
            ``{"reasoning_effort": "low"}`` (a dict).
        default_headers: HTTP headers sent with every request, ``{name: text}`` (a gateway's token: masked in errors
            and logs when its name or scheme says it is a secret); a call's ``extra_headers`` add to them.
        default_query: query parameters sent with every request, ``{name: text or number}``, beside those of
            ``base_url`` (one of which it may not give another value).

    Per-call options (``invoke(..., temperature=..., max_tokens=...)``) override these.

    The key comes from ``api_key`` or ``OPENAI_API_KEY``; with a ``base_url`` (or ``OPENAI_BASE_URL``) of a
    compatible server and no key, a dummy key is sent (local servers ignore it). ``max_tokens`` is sent as
    ``max_completion_tokens`` to OpenAI and as ``max_tokens`` to compatible servers.

    An Azure OpenAI ``base_url`` (:func:`azure_v1_url`, or any with ``azure=True``; the model is the deployment
    name) is treated as OpenAI:
    a key is needed (``api_key``, ``AZURE_OPENAI_API_KEY`` or ``OPENAI_API_KEY``), ``max_completion_tokens``
    is sent (Azure's reasoning deployments refuse ``max_tokens``) and no calls are read from text.

    Raises:
        UserError: the ``openai`` package is missing, no key is set for OpenAI or Azure, an Azure ``base_url``
            is not of the v1 API, ``azure=True`` without a ``base_url``, ``compatible=True`` without a
            ``base_url`` or with an Azure one, ``use_responses_api=True`` with an ``openai`` package too old to
            have the Responses API, ``use_responses_api=True`` with ``stop`` or ``seed`` (the Responses API has
            neither: also refused per call, at that call), or an option of the wrong kind or out of range
            (``use_responses_api``,
            ``stream_usage`` and ``text_tool_calls`` take a bool, ``mistral_call_ids`` a bool or None,
            ``organization`` and ``project`` text), or misspelled (the message
            names the close match: ``openai_api_base`` is ``base_url``; an option with none, that it goes in
            ``model_kwargs`` when it is a field of the API's requests), ``reasoning_effort``, ``verbosity`` or
            ``service_tier`` not text, ``reasoning`` not a dict or given for Chat Completions on OpenAI or Azure,
            or one of them given in ``model_kwargs`` too with another value, ``default_headers`` not a dict of text
            or ``default_query`` not a dict of text or numbers, or (Responses API) ``reasoning_effort``
            and ``reasoning["effort"]`` (``verbosity`` and ``text["verbosity"]``) with different values.
    """

    provider: ClassVar[str] = "openai"
    strict_mode: ClassVar[bool] = True  # sent as each tool's "strict" (OpenAI strict mode)
    label: ClassVar[str] = "an OpenAI"
    key_env: ClassVar[tuple[str, ...]] = ("OPENAI_API_KEY",)
    base_url_env: ClassVar[str] = "OPENAI_BASE_URL"
    sdk_module: ClassVar[str] = "openai"
    extra: ClassVar[str] = "openai"

    def __init__(self, model: str | None = None, *, use_responses_api: bool = False, stream_usage: bool = True,
                 organization: str | None = None, project: str | None = None, text_tool_calls: bool | None = None,
                 azure: bool | None = None, compatible: bool | None = None, mistral_call_ids: bool | None = None,
                 reasoning_effort: str | None = None, reasoning: dict[str, Any] | None = None,
                 verbosity: str | None = None, service_tier: str | None = None,
                 default_headers: Mapping[str, str] | None = None, default_query: Mapping[str, Any] | None = None,
                 **kwargs: Any) -> None:
        if kwargs.keys() - _BASE_OPTIONS:  # an unknown option: model_kwargs named where no other advice is (277 #3)
            refuse_unknown(type(self), kwargs, keyword_names(ChatOpenAI.__init__, SDKChatModel.__init__),
                           _HANDLED)
        check_generation_options(type(self).__name__, {
            "use_responses_api": use_responses_api, "stream_usage": stream_usage, "organization": organization,
            "project": project, "text_tool_calls": text_tool_calls, "mistral_call_ids": mistral_call_ids})
        self.mistral_call_ids = mistral_call_ids
        self.use_responses_api = use_responses_api
        if isinstance(kwargs.get("model_kwargs"), Mapping):  # (the shared check gives the advice of every API)
            refuse_class_format(type(self).__name__, "model_kwargs", kwargs["model_kwargs"],
                                schema_dict=not use_responses_api)
        if use_responses_api:  # no stop or seed: refused when the model is built (review 77)
            self.untaken_options = "responses"  # type: ignore[misc]
        self.stream_usage = stream_usage
        self.organization, self.project = organization, project  # (project: review 314 #2)
        setting = "base_url" if kwargs.get("base_url") else "OPENAI_BASE_URL"
        kwargs["base_url"] = _check_base_url(kwargs.get("base_url") or (os.environ.get("OPENAI_BASE_URL") or "").strip()
                                             or None, setting)
        if azure and not kwargs["base_url"]:
            raise UserError("azure=True needs the Azure OpenAI endpoint: pass base_url=https://RESOURCE.openai.azure.com.")
        azure_url = None if azure is False else azure_v1_url(kwargs["base_url"], any_host=bool(azure),
                                                             setting=setting)
        if azure_url:
            kwargs["base_url"] = azure_url
            self.key_env = ("AZURE_OPENAI_API_KEY", *type(self).key_env)  # type: ignore[misc]
        # (a parameter the URL repeats is refused here, not at the first request)
        self._default_headers, self._default_query = client_defaults(
            type(self).__name__, default_headers, default_query, split_query(kwargs["base_url"], setting)[1])
        if compatible is not None and not isinstance(compatible, bool):
            raise UserError(f"compatible must be True, False or None, not {compatible!r}.")
        if compatible and (azure_url or not kwargs["base_url"]):
            raise UserError("compatible=True is for an OpenAI-compatible server: pass its base_url (and no Azure "
                            "endpoint, which follows OpenAI's rules).")
        self._compatible = (not is_openai_url(kwargs["base_url"]) and not azure_url) if compatible is None \
            else compatible
        self.text_tool_calls = self._compatible if text_tool_calls is None else bool(text_tool_calls)
        self._choice = ChoiceForm()  # the form of a named tool_choice on a compatible server (review 219 #1)
        taken = taken_options(type(self).__name__, {
            "reasoning_effort": reasoning_effort, "reasoning": reasoning, "verbosity": verbosity,
            "service_tier": service_tier}, kwargs.get("model_kwargs"), responses=use_responses_api,
            compatible=self._compatible)
        super().__init__(model, **kwargs)
        self.options.update(taken)  # (review 277 #3) and no temperature OpenAI refuses for the model (#1):
        if use_responses_api:  # (a setting in both its forms: review 287 #2)
            refuse_two_forms(type(self).__name__, self.options)
        leave_out_refused_temperature(type(self).__name__, self.model, self.options, compatible=self._compatible)
        if use_responses_api and not hasattr(self.sdk.OpenAI, "responses"):
            raise UserError("The Responses API needs a newer openai package, "
                            f"{install_hint('openai', upgrade=True)}.")

    def _request(self, input: Any, options: dict[str, Any]) -> ChatRequest:
        """The request of one call (see the base class), a class as ``response_format`` refused with the advice of
        this model's API: Chat Completions takes a JSON Schema dict there, the Responses API (``text.format``) does
        not (review 187 #4).

        Raises:
            UserError: see :func:`~toolwire.models._sdk_options.refuse_class_format` and the base class; ``reasoning``
                for Chat Completions on OpenAI or Azure, as the constructor refuses it
                (:func:`~toolwire.models._openai_options.refuse_chat_reasoning`, ``bind`` too: review 287 #6).
        """
        refuse_class_format(type(self).__name__, "a call's options", options, schema_dict=not self.use_responses_api)
        request = super()._request(input, options)
        if self.use_responses_api:  # a setting in both its forms (review 287 #2)
            own = merge_model_kwargs(type(self).__name__, options)
            refuse_two_forms(type(self).__name__, own, "a call's options")
            kept = without_replaced_forms(request.options, own, self._bound_options) if self._bound_options else None
            if kept is not None:
                request = dataclasses.replace(request, options=kept)
        elif not self._compatible:
            refuse_chat_reasoning(type(self).__name__, "a call's options", request.options)
        return request

    def _structured_parallel(self) -> bool | None:
        """This model's own ``parallel_tool_calls`` (``None``: the field is not sent): OpenAI's o-series reasoning
        models (o3, o3-mini, o4-mini) answer 400 "Unsupported parameter: 'parallel_tool_calls' is not supported with
        this model", and some compatible servers refuse unknown fields (FastAPI's "Extra inputs are not permitted").
        The structured output's forced ``tool_choice`` asks for the one call, and toolwire keeps one
        (:mod:`toolwire.models._one_call`)."""
        return self.parallel_tool_calls

    def _takes_server_tool(self, tool: ServerTool) -> bool:
        """The Responses API runs OpenAI's built-in tools (``{"type": "web_search"}``, ``file_search``,
        ``code_interpreter``...: OpenAI API reference, Responses, "Tools"), typed dicts of no other provider;
        Chat Completions takes function tools only."""
        return self.use_responses_api and tool.provider is None

    def _server_tool_refusal(self, tool: ServerTool) -> str:
        if tool.provider is None:  # OpenAI's own built-in tools: the Responses API takes them (review 52)
            return (f"Tool {tool.definition!r} is a built-in tool, which only the Responses API takes: create the "
                    f"model with {type(self).__name__}(..., use_responses_api=True), or use a toolwire tool.")
        return super()._server_tool_refusal(tool)

    def _key_optional(self) -> bool:
        return self._compatible

    def _takes_key_function(self) -> bool:
        """The ``openai`` SDK calls a function given as ``api_key`` before each request (in its newer releases)."""
        return takes_key_function(self.sdk.OpenAI)

    def _make_client(self, asynchronous: bool) -> Any:
        cls = self.sdk.AsyncOpenAI if asynchronous else self.sdk.OpenAI
        key = self._api_key.for_client(asynchronous) if self._api_key else "not-needed"
        url, query = split_query(self.base_url)
        return cls(api_key=key, base_url=url or "https://api.openai.com/v1",  # (never None: review 314 #1)
                   default_query={**query, **self._default_query} or None,
                   default_headers=self._default_headers or None, organization=self.organization,
                   project=self.project, timeout=self.timeout, max_retries=0)

    def _scrub(self, exc: BaseException) -> bool:
        """As the base class masks secrets in ``exc``, and the secret values of ``default_headers`` too
        (:func:`~toolwire._secrets.header_secrets`: a proxy may echo them; review 287 #3)."""
        clean = super()._scrub(exc)
        return all([clean, *[scrub_exception(exc, secret) for secret in header_secrets(self._default_headers)]])

    def _endpoint(self, client: Any, stream: bool) -> Any:
        if self.use_responses_api:
            create = client.responses.create
            return functools.partial(create, stream=True) if stream else create
        create = client.chat.completions.create
        if not stream:
            return create
        if self.stream_usage:
            return functools.partial(create, stream=True, stream_options={"include_usage": True})
        return functools.partial(create, stream=True)

    def _lower(self, request: ChatRequest) -> dict[str, Any]:
        if self.use_responses_api:  # (each call_id once: the API refuses a repeat, review 279 #1)
            body = codec.lower_responses_request(request, self.model, self.options)
            body["input"] = unique_responses_ids(body["input"])
            if responses_fields(body, request.options) and body.get("store") is False:  # (review 277 #3)
                codec._unstored(body)
            return body
        field = "max_tokens" if self._compatible else "max_completion_tokens"
        body = codec.lower_request(request, self.model, self.options, max_tokens_field=field,
                                   compatible=self._compatible,
                                   named_form=self.__dict__.get("_named_form") or self._choice.get())
        if self._sends_mistral_ids():
            body["messages"] = mistral_call_ids(body["messages"])
        return body

    def _sends_mistral_ids(self) -> bool:
        """Whether this model's Chat Completions requests send call ids as 9 letters and digits (``mistral_call_ids``;
        ``None``: a Mistral AI model name or host). Review 262 #1."""
        if self.mistral_call_ids is not None:
            return self.mistral_call_ids
        return mistral_family(self.model) or is_mistral_url(self.base_url)

    def _parse(self, raw: Any, request: ChatRequest) -> AIMessage:
        names = request.tool_parameters
        try:
            if self.use_responses_api:
                message = codec.parse_responses_response(raw, tool_names=names)
            else:
                message = codec.parse_response(raw, tool_names=names)
        except NotAReply:
            error = self._error_body(raw)
            if error is None:
                raise
            raise error from None
        message = with_text_calls(message, _schemas(request)) if self._reads_text(request) else message
        return self._cut_at_limit(message, request)

    def _cut_at_limit(self, message: AIMessage, request: ChatRequest) -> AIMessage:
        """``message`` with the calls whose argument text is not closed read as cut off by ``max_tokens``
        (:func:`~toolwire.models.lowering._calls.read_as_cut`: a ``"length"`` finish, or on a compatible server every
        output token used whatever its ``finish_reason`` says; llama-cpp-python's server reports ``"tool_calls"`` for
        a call it stopped at the limit, review 90), calls read from the reply's text too: the error then tells the
        user to raise ``max_tokens`` rather than the model to send complete JSON. Other invalid calls (an unknown
        tool) keep their error (review 91). When the limit rule acts, ``finish_reason`` becomes ``"length"`` and the
        server's is kept in ``response_metadata["server_finish_reason"]``."""
        finish = message.response_metadata.get("finish_reason")
        cut, reason = read_as_cut(message.invalid_tool_calls, finish, message.usage,
                                  self._limit(request) if self._compatible else None)
        if cut is message.invalid_tool_calls:
            return message
        metadata = {**message.response_metadata, "finish_reason": reason}
        if reason != finish:
            metadata["server_finish_reason"] = finish
        return message.copy(invalid_tool_calls=cut, response_metadata=metadata)  # type: ignore[return-value]

    def _limit(self, request: ChatRequest) -> Any:
        """The request's output token limit (``max_tokens``, or ``max_completion_tokens`` given in ``model_kwargs``),
        per call or on the model; None when none was set."""
        for options in (request.options, self.options):  # (model_kwargs are merged into self.options)
            for key in ("max_tokens", "max_completion_tokens"):
                if isinstance(options, dict) and type(options.get(key)) is int:
                    return options[key]
        return None

    def _reads_text(self, request: ChatRequest) -> bool:
        """Whether calls left in the reply's text are read (``text_tool_calls``, tools bound, calls allowed)."""
        return self.text_tool_calls and bool(request.tools) and request.tool_choice != "none"

    def _text_reader(self, request: ChatRequest) -> TextCallStream | None:
        """The reader of the calls left in a streamed reply's text, when they are read (see :meth:`_reads_text`)."""
        if not self._reads_text(request):
            return None
        return TextCallStream(_schemas(request), limit=self._limit(request) if self._compatible else None)

    def _chunk_reader(self, request: ChatRequest) -> TextCallStream | None:
        """The reader of a stream's calls written as text (:meth:`_text_reader`), made for each try of the stream, so
        a try whose call text it held back (the caller got nothing) is tried again after a failure (review 206 #1)."""
        return self._text_reader(request)

    def _stream_state(self, request: ChatRequest) -> Any:
        if self.use_responses_api:
            return codec.ResponsesStreamState()
        state = codec.StreamState(compatible=self._compatible,  # OpenAI's own streams always end with a finish_reason
                                  limit=self._limit(request) if self._compatible else None)
        # two id-less calls of tools without parameters on one index are two calls, not one joined name (review 177 #7)
        state.merger.tool_names = frozenset(request.tool_parameters) or None
        return state

    def _stream_options_hint(self, status: int, message: str, body: Any) -> str | None:
        """The hint for a server that refuses ``stream_options`` (older vLLM and Mistral answer 400/422
        ``extra_forbidden`` on ``body.stream_options``, Azure "Unrecognized request argument supplied:
        stream_options"), which ``stream_usage=True`` sends with every stream."""
        if not self.stream_usage or not 400 <= status < 500 or status in (401, 403, 404, 429):
            return None
        if "stream_options" not in message and "stream_options" not in str(body):
            return None
        return ("The server does not take stream_options (sent to get token usage at the end of a stream): "
                "pass stream_usage=False to ChatOpenAI.")

    def _error_body(self, raw: Any) -> ProviderError | None:
        """The error of a whole reply body that is ``{"error": {...}}`` (or ``{"error": "<text>"}``) with no reply
        in it, which a server sends with HTTP 200 for a failure after the model started (OpenRouter's "Errors":
        ``{"error": {"code": 502, "message"}}``): read as the same error in a stream is (:meth:`_error_event`;
        review 146 #1), for a call without a stream and for a stream request answered with that JSON body
        (:meth:`~toolwire.models._sdk_errors.SDKErrors._check_empty_stream`; review 151 #4). None for any other body
        (it is then not a reply: check ``base_url``)."""
        data = as_dict(raw) if isinstance(raw, dict) or hasattr(raw, "model_dump") else None
        error = data.get("error") if data else None
        if not (isinstance(error, dict) or (isinstance(error, str) and error.strip())):
            return None
        return self._error_event(error, body_message(error) or "The server answered with an error and no reply.")

    def _error_event(self, error: Any, message: str) -> ProviderError:
        """The ProviderError of an error the server reported with HTTP 200: an ``{"error": {...}}`` event in a stream
        (the SDK raises it as an ``APIError`` whose ``body`` is the error) or a whole body of that shape
        (:meth:`_error_body`).

        Args:
            error: the error object (``{"message", "type", "code"}``) or its text.
            message: the server's message, shown as the error's text.

        Returns:
            A ProviderError with the HTTP status the error's ``type`` or ``code`` stands for
            (:func:`~toolwire.models.lowering._stream_errors.error_status`: an HTTP status code itself, ``server_error``
            500, rate limits 429...), retryable as that status is (not a 4xx); LM Studio's "Unexpected endpoint or
            method" (a path it does not serve: a ``base_url`` without ``/v1``) not retryable, with the hint to check
            ``base_url`` that a compatible server's 404 gets (review 177 #3); without either, retryable with the hint
            to try again, like a stream that broke off. (:meth:`_translate_any` then gives a server of the user's own
            the hint of its status, as for an HTTP status: review 177 #6.)
        """
        fields = error if isinstance(error, dict) else {}
        status = error_status(fields.get("type"), fields.get("code"))
        if status is None and unknown_endpoint(message):
            return ProviderError(redact_url(message), provider=self.provider, hint=server_hint(404, self.base_url))
        if status is None:
            return ProviderError(redact_url(message), provider=self.provider, retryable=True,
                                 hint="Try the request again.")
        code = next((c for c in (fields.get("code"), fields.get("type")) if isinstance(c, str) and c), None)
        return status_error(self.provider, status, message, key_env=" or ".join(self.key_env), code=code)

    def _translate_any(self, exc: BaseException) -> ProviderError | None:
        """As :class:`~toolwire.models._sdk_errors.SDKErrors` translates any failure, with the hints of the server
        the error came from (:func:`~toolwire.models._openai_errors.adapt_error`) however it came: an HTTP status, an
        error event in a stream, an error body sent with HTTP 200, or one a codec raised. A server started without
        tool calling (vLLM without ``--enable-auto-tool-choice --tool-call-parser``, llama.cpp without ``--jinja``)
        gets the hint naming the flag and is not retried (review 177 #1); an OpenAI-compatible server's 401/403 the
        hint to pass its own key (:data:`_SERVER_KEY_HINT`; review 136 #7: those said to check OPENAI_API_KEY, which
        would send an OpenAI key to that server); a 404 or 5xx of a server of the user's own the hint to check
        ``base_url`` or its log (review 177 #6)."""
        found = super()._translate_any(exc)
        return None if found is None else adapt_error(found, self.base_url, compatible=self._compatible)

    def _translate(self, exc: BaseException) -> ProviderError | None:
        """The one place where ``openai`` exceptions become ProviderError."""
        sdk = self.sdk
        if isinstance(exc, sdk.APIStatusError):
            message = error_message(exc)
            hint = self._stream_options_hint(exc.status_code, message, exc.body)
            # (a compatible server's 401/403 gets the hint to pass its own key from adapt_error, in _translate_any,
            # unless its code or message says the location or billing is the problem: review 270 #3)
            if hint is None and self._compatible and _own_server(self.base_url):  # (review 90: "check the model
                hint = _server_hint(exc.status_code, self.base_url)  # name" and "try again later" sent users the
                # wrong way on their own server; a hosted API's 404 and 503 keep those hints: review 91)
            return status_error(self.provider, exc.status_code, message, key_env=" or ".join(self.key_env),
                                hint=hint,
                                code=error_code(exc))
        if isinstance(exc, sdk.APITimeoutError):
            return status_error(self.provider, None, f"The request timed out after {self.timeout:g} s.",
                                base_url=self.base_url)
        if isinstance(exc, sdk.APIConnectionError):
            error = connection_error(self.provider, exc, timeout=self.timeout, base_url=self.base_url)
            hint = self.__dict__.get("_unreachable_hint")  # (an ollama: model's: where it looked, OLLAMA_HOST)
            if hint and str(error.args[0]).startswith("Could not connect"):  # (review 310 #2)
                error.hint = hint
            return error
        if type(exc) is sdk.APIError:  # an {"error": ...} event in a stream (the SDK's body: the error)
            return self._error_event(exc.body, error_message(exc))
        if isinstance(exc, sdk.OpenAIError):
            return ProviderError(redact_url(error_message(exc)), provider=self.provider)
        # the HTTP client's own errors while a stream is read (the SDK wraps only those of opening it)
        return transport_error(self.provider, exc, timeout=self.timeout, base_url=self.base_url)


_BASE_OPTIONS = frozenset(keyword_names(SDKChatModel.__init__))
"""The options ChatOpenAI passes on to its base class: any other left in its ``**kwargs`` is unknown."""
_HANDLED = frozenset({*RENAMED, *MODEL_ADVICE, *_CLIENT})
"""Unknown options the shared check refuses with advice of its own (:func:`~toolwire._keywords.check_keywords`)."""


def _schemas(request: ChatRequest) -> dict[str, Any]:
    """``{tool name: parameters JSON Schema}`` of the bound tools: the text parsers type raw values with it
    (Qwen3-Coder's ``<parameter=...>`` text) and map pythonic spellings such as ``from_`` back."""
    return {t.name: t.parameters for t in request.tools}
