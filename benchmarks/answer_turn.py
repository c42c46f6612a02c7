"""The answer after tool results: in which language, and does the model ask for its calls again?

Ten questions in five languages (Portuguese, Spanish, German, French, English) with four tools bound, each asked
once, its calls run, and the conversation handed back for the answer, as the book's loop does. Prints one JSON line
per question: its language, the calls, the answer, and the calls of the second reply when it made any (a model that
asks for the same calls again gives an empty answer). Whether an answer is in the question's language is judged by
reading the lines.

``--line`` replaces the last line of the results turn (``toolwire.models.dialects._answer_line``) with an older
wording, to compare: ``answer`` ("Using these results, answer: {question}", before the thirtieth session),
``language`` ("... answer in the language of the request: ..."); ``current`` (default) keeps toolwire's own.

``python benchmarks/answer_turn.py [--model qwen2.5-coder-0.5b] [--line answer] [--no-decline-repeat-calls]``
(thirtieth session, default model: answers in the question's language 2 of 10 with ``answer``, 9 of 10 with
``current``, every answer holding the tool's result; qwen2.5-coder-0.5b with ``--no-decline-repeat-calls``: all nine
questions it answered with calls asked for the same calls again).
"""

from __future__ import annotations

import argparse
import json
import time

from _answer_line import use_answer_line

from toolwire import tool
from toolwire.examples.arith import evaluate
from toolwire.messages import HumanMessage
from toolwire.models import ChatLlamaCpp

LINES = {
    "answer": "Using these results, answer: {question}",
    "language": "Using these results, answer in the language of the request: {question}",
}

QUESTIONS = [
    ("pt", "Como está o clima em Paris?"),
    ("pt", "Quanto é 123 multiplicado por 456?"),
    ("pt", "Converta 100 euros para dólares."),
    ("es", "¿Qué tiempo hace en Madrid?"),
    ("es", "¿Cuánto es 37 por 12?"),
    ("de", "Wie ist das Wetter in Berlin?"),
    ("de", "Wie hoch ist der Eiffelturm? Suche im Web."),
    ("fr", "Quel temps fait-il à Lyon ?"),
    ("fr", "Combien font 250 divisé par 5 ?"),
    ("en", "What's the weather in Tokyo and what is 123 * 456?"),
]


# (not toolwire.examples.book's tools: their descriptions are Portuguese, and the answer's language is what this
# measures; the results stay English, as the book's are)
@tool
def get_weather(city: str) -> str:
    """Get the current weather of a city."""
    return f"It's always sunny in {city}!"


@tool
def calculate(expression: str) -> str:
    """Evaluate a simple arithmetic expression such as '123 * 456'."""
    return str(evaluate(expression))


@tool
def search_web(query: str) -> str:
    """Search the web for current information on a topic."""
    return f"Top result for '{query}': the Eiffel Tower is 330 metres tall."


@tool
def convert_currency(amount: float, source: str, target: str) -> str:
    """Convert an amount of money from one currency to another (ISO codes)."""
    return f"{amount} {source} = {round(amount * 1.08, 2)} {target}"


def main() -> None:
    """Ask the ten questions and print one JSON line each."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default=None, help="a registry name or GGUF path (default: the default model)")
    parser.add_argument("--line", choices=["current", *LINES], default="current")
    parser.add_argument("--no-decline-repeat-calls", action="store_true")
    args = parser.parse_args()
    if args.line != "current":
        use_answer_line(LINES[args.line])
    tools = [get_weather, calculate, search_web, convert_currency]
    model = ChatLlamaCpp(*([args.model] if args.model else []), n_threads=2, prompt_cache=False,
                         decline_repeat_calls=not args.no_decline_repeat_calls).bind_tools(tools)
    by_name = {t.name: t for t in tools}
    for language, question in QUESTIONS:
        started = time.perf_counter()
        messages = [HumanMessage(question)]
        reply = model.invoke(messages)
        messages.append(reply)
        messages += [by_name[call["name"]].invoke(call) for call in reply.tool_calls]
        final = model.invoke(messages) if reply.tool_calls else reply
        print(json.dumps({"language": language, "question": question,
                          "calls": [[c["name"], c["args"]] for c in reply.tool_calls], "answer": final.content,
                          "calls_again": [[c["name"], c["args"]] for c in final.tool_calls] if reply.tool_calls else [],
                          "seconds": round(time.perf_counter() - started, 1)}, ensure_ascii=False), flush=True)


if __name__ == "__main__":
    main()
