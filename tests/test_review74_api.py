"""Review 74: a LangChain migrant's view of the API (LangChain messages taken as they are, keyword typos refused with
their close match, ``batch``/``abatch``, LangChain's ``AIMessage`` keywords, provider inference in
``init_chat_model``, docstring sections)."""

from __future__ import annotations

import pytest

from toolwire import Agent, ToolExecutor, UserError
from toolwire.examples.book import calculate
from toolwire.messages import AIMessage, HumanMessage, ToolMessage, coerce_messages
from toolwire.testing import ScriptedChatModel

# -- finding 1: LangChain message objects --------------------------------------------------------------------------


def _lc() -> object:
    return pytest.importorskip("langchain_core.messages")


def test_model_invoke_takes_langchain_messages() -> None:
    lc = _lc()
    model = ScriptedChatModel(["ok"], cycle=True)
    conversation = [lc.SystemMessage("be brief"), lc.HumanMessage("1+1?"),
                    lc.AIMessage(content="", tool_calls=[{"name": "calculate", "args": {"expression": "1+1"},
                                                          "id": "c1"}]),
                    lc.ToolMessage("2", tool_call_id="c1")]
    assert model.invoke(conversation).content == "ok"
    assert model.invoke(lc.HumanMessage("hi")).content == "ok"  # one message, not in a list
    sent = model.requests[0].messages
    assert [m.type for m in sent] == ["system", "human", "ai", "tool"]
    assert sent[2].tool_calls[0]["args"] == {"expression": "1+1"} and sent[3].tool_call_id == "c1"


def test_agent_invoke_takes_langchain_messages() -> None:
    lc = _lc()
    result = Agent(ScriptedChatModel(["ok"]), [calculate]).invoke([lc.HumanMessage("hi")])
    assert result.output == "ok"
    assert isinstance(result.messages[0], HumanMessage)


def test_executor_runs_a_langchain_reply() -> None:
    lc = _lc()
    calls = [{"name": "calculate", "args": {"expression": "1+1"}, "id": "x"}]
    executor = ToolExecutor([calculate])
    for reply in (lc.AIMessage(content="", tool_calls=calls), lc.AIMessageChunk(content="", tool_calls=calls)):
        (answer,) = executor.execute(reply)
        assert isinstance(answer, ToolMessage) and answer.content == "2" and answer.tool_call_id == "x"
        assert executor.call(reply)[0].content == "2"  # call(reply) answers it as execute does


def test_langchain_messages_without_a_toolwire_kind_are_named_with_advice() -> None:
    lc = _lc()
    with pytest.raises(UserError, match=r"a LangChain FunctionMessage as a message: .*ToolMessage"):
        coerce_messages([lc.FunctionMessage("x", name="f")])
    with pytest.raises(UserError, match=r"a LangChain RemoveMessage .*leave it out"):
        coerce_messages([lc.RemoveMessage(id="1")])
    with pytest.raises(UserError, match=r"LangChain ChatMessage with the role 'tool'.*'user'"):
        coerce_messages(lc.ChatMessage("x", role="tool"))
    assert coerce_messages([lc.ChatMessage("x", role="user")]) == [HumanMessage("x")]
    with pytest.raises(UserError, match=r"not a LangChain HumanMessage\.$"):
        ToolExecutor([calculate]).execute(lc.HumanMessage("x"))


def test_foreign_types_are_named_with_their_module() -> None:
    class HumanMessage:  # a class named like toolwire's, from elsewhere
        pass

    with pytest.raises(UserError, match=r"Cannot use test_review74_api\..*HumanMessage as a message"):
        coerce_messages([HumanMessage()])
    with pytest.raises(UserError, match="Cannot use int as a message"):
        coerce_messages([1])
    with pytest.raises(UserError, match=r"not test_review74_api\..*HumanMessage\.$"):
        ToolExecutor([calculate]).execute(HumanMessage())  # type: ignore[arg-type]


def test_toolwire_does_not_import_langchain() -> None:
    import subprocess
    import sys

    code = ("import sys, toolwire, toolwire.models, toolwire.agent; from toolwire.testing import ScriptedChatModel; "
            "ScriptedChatModel(['ok']).invoke('hi'); print(any(m.startswith('langchain') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_aimessage_text() -> None:  # (AIMessage is used by the tests of finding 3 too)
    assert AIMessage("x").text == "x"


# -- finding 2: misspelled keywords --------------------------------------------------------------------------------


@pytest.mark.parametrize(("make", "message"), [
    (lambda: Agent(ScriptedChatModel(["x"]), [], max_step=3),
     "Unknown Agent option 'max_step': did you mean 'max_steps'?"),
    (lambda: ToolExecutor([], timout=1), "Unknown ToolExecutor option 'timout': did you mean 'timeout'?"),
    (lambda: ScriptedChatModel(["x"]).bind_tools([calculate], tool_chioce="auto"),
     "Unknown bind_tools option 'tool_chioce': did you mean 'tool_choice'?"),
    (lambda: ScriptedChatModel(["x"]).with_structured_output(dict, include_rw=True),
     "Unknown with_structured_output option 'include_rw': did you mean 'include_raw'?"),
    (lambda: __import__("toolwire").tool(timout=3), "Unknown @tool option 'timout': did you mean 'timeout'?"),
])
def test_misspelled_keywords_name_the_close_match(make, message) -> None:
    with pytest.raises(UserError) as error:
        make()
    assert str(error.value) == message


def test_checked_constructors_keep_their_signatures() -> None:
    import inspect

    assert "max_steps" in inspect.signature(Agent).parameters
    assert "timeout" in inspect.signature(ToolExecutor).parameters
    assert list(inspect.signature(ScriptedChatModel.bind_tools).parameters)[:2] == ["self", "tools"]
    executor = ToolExecutor(tools=[calculate], timeout=2)  # every name still taken by keyword
    assert executor.timeout == 2


def test_llamacpp_constructor_lists_its_own_options() -> None:
    from toolwire.models import ChatLlamaCpp

    with pytest.raises(UserError) as error:
        ChatLlamaCpp(n_batch=512)
    text = str(error.value)
    assert text.startswith("Unknown ChatLlamaCpp option 'n_batch': use one of model, n_ctx, n_threads,")
    assert all(name in text for name in ("dialect", "min_call_probability", "top_p", "repeat_penalty"))
    with pytest.raises(UserError, match=r"'model_path': pass the \.gguf file's path \(or a registry name\) as model="):
        ChatLlamaCpp(model_path="/tmp/x.gguf")
    with pytest.raises(UserError, match="'n_gpu_layers': leave it out, as toolwire runs the embedded model on the CPU"):
        ChatLlamaCpp(n_gpu_layers=0)
    with pytest.raises(UserError, match="did you mean 'n_threads'"):
        ChatLlamaCpp(n_thread=2)


def test_llamacpp_per_call_says_which_options_belong_to_the_constructor() -> None:
    from toolwire.models import ChatLlamaCpp

    model = ChatLlamaCpp("no-such-model-file.gguf")  # never loaded: the option is refused first
    with pytest.raises(UserError, match=r"option 'n_ctx' is set when the model is made, ChatLlamaCpp\(n_ctx=\.\.\.\)"):
        model.invoke("hi", n_ctx=4096)
    with pytest.raises(UserError, match="'colour': use one of temperature, max_tokens, stop, seed, top_p"):
        model.invoke("hi", colour=1)


# -- finding 3a: batch and abatch ----------------------------------------------------------------------------------


class _Timed:
    """A chat model whose reply to ``"<seconds> <text>"`` comes after that many seconds (``fail`` raises), counting
    the calls running at once. With ``together`` set, each call first waits (10 s at most) until that many calls have
    run at once: calls that run concurrently then overlap however slowly a loaded machine starts their threads."""

    def __new__(cls) -> object:
        import threading
        import time

        from toolwire.models.base import BaseChatModel

        class Timed(BaseChatModel):
            def __init__(self) -> None:
                self.lock = threading.Condition()
                self.running = self.peak = self.together = 0
                self.asked: list[str] = []

            def _generate(self, request):  # type: ignore[no-untyped-def]
                seconds, text = request.messages[-1].text.split(" ", 1)
                with self.lock:
                    self.asked.append(text)
                    self.running += 1
                    self.peak = max(self.peak, self.running)
                    self.lock.notify_all()
                    self.lock.wait_for(lambda: self.peak >= self.together, timeout=10)
                try:
                    time.sleep(float(seconds))
                    if text == "fail":
                        raise ValueError(f"{text} failed")
                    return AIMessage(text.upper())
                finally:
                    with self.lock:
                        self.running -= 1

        return Timed()


def test_batch_answers_in_input_order_at_once() -> None:
    import asyncio

    model = _Timed()
    model.together = 4  # (was: none, and the call of 0 s could end before a slowly started thread began)
    inputs = ["0.15 a", "0.05 b", "0.1 c", "0 d"]  # finishing d, b, c, a
    assert [r.content for r in model.batch(inputs)] == ["A", "B", "C", "D"]
    assert model.peak == 4
    assert [r.content for r in asyncio.run(model.abatch(inputs))] == ["A", "B", "C", "D"]


def test_batch_max_concurrency_bounds_the_calls_running() -> None:
    import asyncio

    model = _Timed()
    model.together = 2  # the first two calls overlap, however slowly the second starts (was: within 50 ms)
    assert [r.content for r in model.batch(["0.05 a"] * 5, max_concurrency=2)] == ["A"] * 5
    assert model.peak == 2
    model.together = 0
    model.peak = 0
    assert len(asyncio.run(model.abatch(["0.02 a"] * 4, max_concurrency=1))) == 4
    assert model.peak == 1


def test_batch_return_exceptions_puts_each_failure_in_its_place() -> None:
    import asyncio

    model = _Timed()
    out = model.batch(["0 a", "0 fail", "0 c"], return_exceptions=True)
    assert out[0].content == "A" and isinstance(out[1], ValueError) and out[2].content == "C"
    out = asyncio.run(model.abatch(["0 fail", "0 b"], return_exceptions=True))
    assert isinstance(out[0], ValueError) and out[1].content == "B"


def test_batch_raises_the_first_failure_and_starts_no_more_calls() -> None:
    import asyncio

    model = _Timed()
    with pytest.raises(ValueError, match="fail failed"):
        model.batch(["0 fail", "0 b", "0 c"], max_concurrency=1)
    assert model.asked == ["fail"]
    model.asked.clear()
    with pytest.raises(ValueError, match="fail failed"):
        asyncio.run(model.abatch(["0 fail", "0 b"], max_concurrency=1))
    assert model.asked == ["fail"]


def test_batch_on_a_structured_output_model() -> None:
    import asyncio

    from pydantic import BaseModel

    class City(BaseModel):
        name: str

    reply = AIMessage("", tool_calls=[{"name": "City", "args": {"name": "Paris"}, "id": "c1"}])
    structured = ScriptedChatModel([reply], cycle=True).with_structured_output(City)
    assert structured.batch(["a", "b"]) == [City(name="Paris")] * 2
    assert asyncio.run(structured.abatch(["a"], max_concurrency=1)) == [City(name="Paris")]
    bad = ScriptedChatModel(["no call"], cycle=True).with_structured_output(City)
    from toolwire import ToolCallParseError

    assert isinstance(bad.batch(["a"], return_exceptions=True)[0], ToolCallParseError)


def test_batch_checks_its_arguments() -> None:
    model = ScriptedChatModel(["x"], cycle=True)
    assert model.batch([]) == []
    with pytest.raises(UserError, match=r"batch\(\) takes a list of inputs.*not str; for a single input, call invoke"):
        model.batch("hi")  # type: ignore[arg-type]
    with pytest.raises(UserError, match="max_concurrency must be a whole number of at least 1"):
        model.batch(["a"], max_concurrency=0)
    with pytest.raises(UserError, match="return_exceptions must be True or False"):
        model.batch(["a"], return_exceptions="yes")  # type: ignore[arg-type]
    with pytest.raises(UserError, match=r"batch\(config=\.\.\.\) is LangChain's RunnableConfig.*max_concurrency="):
        model.batch(["a"], config={"max_concurrency": 2})


def test_batch_passes_options_and_the_callers_context() -> None:
    import contextvars

    from toolwire.models.base import BaseChatModel

    var: contextvars.ContextVar[str] = contextvars.ContextVar("review74", default="unset")

    class Echo(BaseChatModel):
        def _generate(self, request):  # type: ignore[no-untyped-def]
            return AIMessage(f"{var.get()} {request.options.get('temperature')}")

    var.set("request-7")
    assert [r.content for r in Echo().batch(["a", "b"], temperature=0.5)] == ["request-7 0.5"] * 2


def test_a_cancelled_abatch_cancels_its_calls() -> None:
    import asyncio

    from toolwire.models.base import BaseChatModel

    cancelled: list[str] = []

    class Hangs(BaseChatModel):
        async def _agenerate(self, request):  # type: ignore[no-untyped-def]
            try:
                await asyncio.sleep(30)
            except asyncio.CancelledError:
                cancelled.append(request.messages[-1].text)
                raise
            return AIMessage("late")

    async def main() -> None:
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(Hangs().abatch(["a", "b"]), 0.5)  # (both calls have started by then, loaded too)

    asyncio.run(main())
    assert sorted(cancelled) == ["a", "b"]


# -- finding 3b: LangChain's AIMessage keywords --------------------------------------------------------------------


def test_aimessage_takes_usage_metadata_as_usage() -> None:
    counts = {"input_tokens": 3, "output_tokens": 2, "total_tokens": 5}
    message = AIMessage("hi", usage_metadata={**counts, "input_token_details": {"cache_read": 1},
                                              "output_token_details": {"reasoning": 1}})
    # the details other than cache_read are kept (review 287 #1: a reasoning count was lost)
    assert message.usage == {**counts, "cached_tokens": 1, "output_token_details": {"reasoning": 1}}
    # given back in LangChain's shape too (review 93), and read again as the same usage
    assert message.usage_metadata == {**counts, "cached_tokens": 1, "input_token_details": {"cache_read": 1},
                                      "output_token_details": {"reasoning": 1}}
    assert AIMessage("hi", usage_metadata=message.usage_metadata).usage == message.usage
    assert AIMessage("hi", usage_metadata=counts) == AIMessage("hi", usage=counts)
    assert AIMessage("hi", usage=counts, usage_metadata=dict(counts)).usage == counts  # the same counts twice
    with pytest.raises(UserError, match="pass usage= or usage_metadata="):
        AIMessage("hi", usage=counts, usage_metadata={**counts, "input_tokens": 9})
    with pytest.raises(UserError, match="usage_metadata must be a dict of token counts"):
        AIMessage("hi", usage_metadata=5)  # type: ignore[arg-type]


def test_aimessage_keeps_additional_kwargs_where_langchain_interop_does() -> None:
    openai_call = {"id": "c1", "type": "function",
                   "function": {"name": "calculate", "arguments": '{"expression": "2"}'}}
    message = AIMessage("", additional_kwargs={"tool_calls": [openai_call], "reasoning_content": "think",
                                               "refusal": None, "toolwire_provider_data": {"k": 1}})
    assert message.tool_calls == [{"name": "calculate", "args": {"expression": "2"}, "id": "c1", "type": "tool_call"}]
    assert message.response_metadata == {"additional_kwargs": {"reasoning_content": "think"}}
    assert message.provider_data == {"k": 1}
    given = AIMessage("", tool_calls=[{"name": "a", "args": {}, "id": "x"}], additional_kwargs={
        "tool_calls": [openai_call], "refusal": "no"})
    assert [c["name"] for c in given.tool_calls] == ["a"] and given.response_metadata == {"refusal": "no"}
    assert AIMessage("x", additional_kwargs={}) == AIMessage("x")
    with pytest.raises(UserError, match="additional_kwargs must be a dict, not list"):
        AIMessage("x", additional_kwargs=[])  # type: ignore[arg-type]


def test_aimessage_additional_kwargs_go_back_to_langchain() -> None:
    _lc()
    from toolwire.interop.langchain import to_langchain_messages

    (lc_message,) = to_langchain_messages([AIMessage("x", additional_kwargs={"reasoning_content": "r"})])
    assert lc_message.additional_kwargs == {"reasoning_content": "r"}


# -- finding 3c: init_chat_model infers the provider of a well-known model name ------------------------------------


@pytest.mark.parametrize(("name", "provider"), [
    ("gpt-4o", "openai"), ("gpt-5-mini", "openai"), ("chatgpt-4o-latest", "openai"), ("o1", "openai"),
    ("o3-mini", "openai"), ("o4-mini", "openai"), ("claude-sonnet-4-5", "anthropic"),
    ("gemini-2.5-flash", "google"), ("llama3", None), ("omni-x", None), ("o5", None), ("qwen2.5-coder-0.5b", None),
])
def test_infer_provider(name: str, provider: str | None) -> None:
    from toolwire.models.factory import infer_provider

    assert infer_provider(name) == provider


def test_init_chat_model_takes_bare_well_known_names(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolwire.models import init_chat_model

    classes = {}
    for module, name in (("openai", "ChatOpenAI"), ("anthropic", "ChatAnthropic"), ("google", "ChatGoogleGenAI")):
        classes[name] = pytest.importorskip(f"toolwire.models.{module}")
    for env in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.setenv(env, "test-key-0123456789")
    for name, cls in (("gpt-4o", "ChatOpenAI"), ("claude-sonnet-4-5", "ChatAnthropic"),
                      ("gemini-2.5-flash", "ChatGoogleGenAI")):
        model = init_chat_model(name, temperature=0)
        assert type(model).__name__ == cls and model.model == name  # type: ignore[attr-defined]
    assert type(init_chat_model("qwen2.5-coder-0.5b")).__name__ == "ChatLlamaCpp"  # a registry name stays local
    with pytest.raises(UserError, match=r"Unknown model 'llama3': .*'provider:model'"):
        init_chat_model("llama3")


# -- finding 4: docstring sections ---------------------------------------------------------------------------------


@pytest.mark.parametrize("path", [
    "toolwire.mcp.connect", "toolwire.Agent.invoke", "toolwire.Agent.ainvoke", "toolwire.ToolExecutor.aexecute",
    "toolwire.Tool.from_function", "toolwire.Tool.from_schema", "toolwire.tool",
    "toolwire.models.base.BaseChatModel.batch", "toolwire.models.base.BaseChatModel.abatch",
])
def test_public_docstrings_have_their_sections(path: str) -> None:
    import importlib
    import inspect

    module_name, _, rest = path.partition(".")
    target: object = importlib.import_module(module_name)
    for part in rest.split("."):
        target = getattr(target, part) if hasattr(target, part) else importlib.import_module(
            f"{target.__name__}.{part}")  # type: ignore[attr-defined]
    doc = inspect.getdoc(target) or ""
    for section in ("Args:", "Returns:", "Raises:"):
        assert f"\n{section}\n" in doc, (path, section)


def test_mcp_connect_refuses_a_misspelled_option() -> None:
    from toolwire.mcp import connect

    with pytest.raises(UserError, match=r"Unknown connect option 'timout': did you mean 'timeout'\?"):
        connect("python server.py", timout=3)


@pytest.mark.parametrize("name", ["ChatOpenAI", "ChatAnthropic", "ChatGoogleGenAI"])
def test_provider_classes_document_their_own_options(name: str) -> None:
    import inspect

    from toolwire._keywords import keyword_names

    pytest.importorskip({"ChatOpenAI": "openai", "ChatAnthropic": "anthropic", "ChatGoogleGenAI": "google.genai"}[name])
    import toolwire.models as models
    from toolwire.models._sdk import SDKChatModel

    doc = inspect.getdoc(getattr(models, name)) or ""
    assert "_sdk.SDKChatModel" not in doc  # not sent to a private class for its options
    missing = [option for option in keyword_names(SDKChatModel.__init__)
               if not any(form in doc for form in (f"{option}:", f"``{option}``", f"``{option}=``"))]
    assert missing == []
