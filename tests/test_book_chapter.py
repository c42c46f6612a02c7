"""The book chapter's code (shared/seed, chapter 13), run on toolwire with only the imports changed.

``ChatOpenAI(model="gpt-5-mini")`` is replaced by a ScriptedChatModel that answers as the chapter
shows; every line the chapter prints is asserted.
"""

from __future__ import annotations

from toolwire import AIMessage
from toolwire.testing import ScriptedChatModel

PARIS_CALL = AIMessage("", tool_calls=[{"name": "get_weather", "args": {"city": "Paris"}, "id": "call_hgXrHGD",
                                        "type": "tool_call"}])
CALC_CALL = AIMessage("", tool_calls=[{"name": "calculate", "args": {"expression": "123 * 456"},
                                       "id": "call_xyz789", "type": "tool_call"}])
BOTH_CALLS = AIMessage("", tool_calls=[
    {"name": "get_weather", "args": {"city": "Tóquio"}, "id": "call_a1", "type": "tool_call"},
    {"name": "calculate", "args": {"expression": "123 * 456"}, "id": "call_b2", "type": "tool_call"},
])


def lines(capsys) -> list[str]:
    return [line for line in capsys.readouterr().out.splitlines() if line.strip()]


def test_13_1_bind_tools_and_inspect(capsys):
    # --- chapter code, imports switched ---
    from toolwire import tool

    llm = ScriptedChatModel([PARIS_CALL])

    @tool
    def get_weather(city: str) -> str:
        """Obtém o clima atual de uma determinada cidade."""
        return f"It's always sunny in {city}!"

    llm_with_tools = llm.bind_tools([get_weather])

    response = llm_with_tools.invoke("Como está o clima em Paris?")

    print(f"type: {type(response)}\n")
    print(f"tool_calls: {response.tool_calls}\n")
    print(f"content: {repr(response.content)}\n")
    # --- end ---
    out = lines(capsys)
    assert out[0] == "type: <class 'toolwire.messages.AIMessage'>"
    assert type(response).__name__ == "AIMessage"
    assert out[1] == ("tool_calls: [{'name': 'get_weather', 'args': {'city': 'Paris'}, 'id': 'call_hgXrHGD', "
                      "'type': 'tool_call'}]")
    assert out[2] == "content: ''"
    # the original model knows nothing of the tools; the bound one sent them
    assert llm.tools == () and [t.name for t in llm_with_tools.tools] == ["get_weather"]
    assert llm.requests[0].tools == ["get_weather"]


def test_13_2_execute_and_tool_message(capsys):
    from toolwire import tool
    from toolwire.messages import ToolMessage

    @tool
    def get_weather(city: str) -> str:
        """Obtém o clima atual de uma determinada cidade."""
        return f"It's always sunny in {city}!"

    llm_with_tools = ScriptedChatModel([PARIS_CALL]).bind_tools([get_weather])
    response = llm_with_tools.invoke("Como está o clima em Paris?")

    tool_map = {get_weather.name: get_weather}

    if response.tool_calls:
        tool_call = response.tool_calls[0]
        selected_tool = tool_map[tool_call["name"]]
        result = selected_tool.invoke(tool_call["args"])
        print(result)  # Saída: It's always sunny in Paris!

    if response.tool_calls:
        tool_call = response.tool_calls[0]
        selected_tool = tool_map[tool_call["name"]]
        result = selected_tool.invoke(tool_call["args"])
        tool_message = ToolMessage(
            content=result,
            tool_call_id=tool_call["id"],  # deve corresponder ao id da solicitação
        )
        print(tool_message)

    if response.tool_calls:
        tool_call = response.tool_calls[0]
        selected_tool = tool_map[tool_call["name"]]
        tool_message = selected_tool.invoke(tool_call)
        print(tool_message)

    assert lines(capsys) == [
        "It's always sunny in Paris!",
        "content=\"It's always sunny in Paris!\" tool_call_id='call_hgXrHGD'",
        "content=\"It's always sunny in Paris!\" tool_call_id='call_hgXrHGD'",
    ]


def test_13_2_2_full_cycle(capsys):
    from toolwire import tool
    from toolwire.messages import HumanMessage

    llm = ScriptedChatModel([PARIS_CALL, "O clima atual em Paris está ensolarado. Tenha um ótimo dia!"])

    @tool
    def get_weather(city: str) -> str:
        """Obtém o clima atual de uma determinada cidade."""
        return f"It's always sunny in {city}!"

    llm_with_tools = llm.bind_tools([get_weather])
    tool_map = {get_weather.name: get_weather}

    messages = [HumanMessage("Como está o clima em Paris?")]
    ai_msg = llm_with_tools.invoke(messages)
    messages.append(ai_msg)

    if ai_msg.tool_calls:
        tool_call = ai_msg.tool_calls[0]
        selected_tool = tool_map[tool_call["name"]]
        tool_message = selected_tool.invoke(tool_call)
        messages.append(tool_message)

        final_response = llm_with_tools.invoke(messages)
        print(final_response.content)

    for m in messages:
        print(f"{type(m).__name__}: {m.content!r}")

    assert lines(capsys) == [
        "O clima atual em Paris está ensolarado. Tenha um ótimo dia!",
        "HumanMessage: 'Como está o clima em Paris?'",
        "AIMessage: ''",
        "ToolMessage: \"It's always sunny in Paris!\"",
    ]
    # the second request carried the whole conversation, the tool result answering the call's id
    sent = llm.requests[1].messages
    assert [type(m).__name__ for m in sent] == ["HumanMessage", "AIMessage", "ToolMessage"]
    assert sent[2].tool_call_id == "call_hgXrHGD"


def _three_tools():
    from toolwire import tool

    @tool
    def get_weather(city: str) -> str:
        """Obtém o clima atual de uma determinada cidade."""
        return f"It's always sunny in {city}!"

    @tool
    def calculate(expression: str) -> str:
        """Avalia uma expressão aritmética simples como '123 * 456'."""
        from toolwire.examples.arith import evaluate  # the chapter's eval(), made safe

        return str(evaluate(expression))

    @tool
    def search_web(query: str) -> str:
        """Pesquisa na web informações atuais sobre um tópico."""
        return f"Top result for '{query}': ..."

    return [get_weather, calculate, search_web]


def test_13_3_multiple_tools(capsys):
    from toolwire.messages import HumanMessage

    llm = ScriptedChatModel([CALC_CALL, CALC_CALL, "123 multiplicado por 456 é 56.088."])
    tools = _three_tools()
    llm_with_tools = llm.bind_tools(tools)
    tool_map = {t.name: t for t in tools}

    response = llm_with_tools.invoke("Quanto é 123 multiplicado por 456?")
    print(response.tool_calls)

    messages = [HumanMessage("Quanto é 123 multiplicado por 456?")]
    ai_msg = llm_with_tools.invoke(messages)
    messages.append(ai_msg)

    if ai_msg.tool_calls:
        for tool_call in ai_msg.tool_calls:
            selected_tool = tool_map[tool_call["name"]]
            tool_message = selected_tool.invoke(tool_call)
            messages.append(tool_message)

        final_response = llm_with_tools.invoke(messages)
        print(final_response.content)  # Saída: 123 multiplicado por 456 é 56.088.

    assert lines(capsys) == [
        "[{'name': 'calculate', 'args': {'expression': '123 * 456'}, 'id': 'call_xyz789', 'type': 'tool_call'}]",
        "123 multiplicado por 456 é 56.088.",
    ]
    assert messages[-1].content == "56088"
    assert llm.requests[0].tools == ["get_weather", "calculate", "search_web"]


def test_13_3_parallel_calls(capsys):
    from toolwire.messages import HumanMessage

    final = "O clima em Tóquio está ensolarado no momento, e 123 multiplicado por 456 é 56.088."
    llm = ScriptedChatModel([BOTH_CALLS, final])
    tools = _three_tools()
    llm_with_tools = llm.bind_tools(tools)
    tool_map = {t.name: t for t in tools}

    messages = [HumanMessage("Como está o clima em Tóquio e quanto é 123 * 456?")]
    ai_msg = llm_with_tools.invoke(messages)
    messages.append(ai_msg)

    if ai_msg.tool_calls:
        for tool_call in ai_msg.tool_calls:
            print(f"Tool: {tool_call['name']}")
            selected_tool = tool_map[tool_call["name"]]
            tool_message = selected_tool.invoke(tool_call)
            messages.append(tool_message)

        final_response = llm_with_tools.invoke(messages)
        print(final_response.content)

    assert lines(capsys) == ["Tool: get_weather", "Tool: calculate", final]
    assert [(m.tool_call_id, m.content) for m in messages[2:]] == [
        ("call_a1", "It's always sunny in Tóquio!"), ("call_b2", "56088")]
