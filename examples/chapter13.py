"""The book chapter 13 ("Conectando Ferramentas ao LLM"), run on toolwire's embedded local model.

The chapter's code with the imports switched to toolwire and ``ChatOpenAI(model="gpt-5-mini")``
replaced by the embedded model (no API key, no network). Run: ``make demo``.
"""

import time

from toolwire import tool
from toolwire.examples.arith import evaluate
from toolwire.messages import HumanMessage
from toolwire.models import ChatLlamaCpp

llm = ChatLlamaCpp()  # the default embedded model (qwen2.5-coder-1.5b, GGUF, in-process)


@tool
def get_weather(city: str) -> str:
    """Obtém o clima atual de uma determinada cidade."""
    return f"It's always sunny in {city}!"


@tool
def calculate(expression: str) -> str:
    """Avalia uma expressão aritmética simples como '123 * 456'."""
    return str(evaluate(expression))  # the chapter used eval(); toolwire's evaluator never runs code


@tool
def search_web(query: str) -> str:
    """Pesquisa na web informações atuais sobre um tópico."""
    return f"Top result for '{query}': ..."


tools = [get_weather, calculate, search_web]
llm_with_tools = llm.bind_tools(tools)
tool_map = {t.name: t for t in tools}

for question in [
    "Como está o clima em Paris?",
    "Quanto é 123 multiplicado por 456?",
    "Como está o clima em Tóquio e quanto é 123 * 456?",
]:
    print(f"\n>>> {question}")
    started = time.perf_counter()
    messages = [HumanMessage(question)]
    ai_msg = llm_with_tools.invoke(messages)
    messages.append(ai_msg)
    print(f"tool_calls: {ai_msg.tool_calls}")

    if ai_msg.tool_calls:
        for tool_call in ai_msg.tool_calls:
            print(f"Tool: {tool_call['name']}")
            selected_tool = tool_map[tool_call["name"]]
            tool_message = selected_tool.invoke(tool_call)
            print(tool_message)
            messages.append(tool_message)

        final_response = llm_with_tools.invoke(messages)
        print(final_response.content)
    else:
        print(ai_msg.content)
    print(f"({time.perf_counter() - started:.1f} s)")
