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
