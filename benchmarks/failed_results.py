"""The answer after tool results that are errors: does the model say the tool failed, or make up its result?

Twenty questions in five languages, each with tools bound that fail (a service that is down, a timeout, a division by
zero, a record that does not exist), asked once, the calls run by toolwire (each failure becomes an error
result), and the conversation handed back for the answer, as the book's loop does. Prints one JSON line per
question: the calls, the error results, the answer, and ``figures``: the numbers in the answer that neither the
question nor a result holds (a made-up result, when the tool gave none); then a summary line. Whether an answer says
the tool failed is judged by reading the lines.

``--line hint`` adds to the line that ends a results turn holding an error (``toolwire.models.dialects``) a hint
measured in the thirty-fifth session, "Using these results (an error is no result: never guess one), answer this
request in its own language: ..."; ``current`` (default) keeps toolwire's own line.

``python benchmarks/failed_results.py [--model qwen2.5-coder-0.5b] [--line hint]`` (about 5 s per question here).
Thirty-fifth session, default model: answers holding a made-up figure 8 of 20 with ``current`` and 5 of 20 with
``hint`` (3 and 1 of the first ten, 5 and 4 of the last ten), answers not in the question's language 0 and 3 (the
error text echoed in English); not adopted (``benchmarks/RESULTS.md``, "Thirty-fifth session").
Forty-sixth session, default model, with ``ChatLlamaCpp(decline_made_up_figures=True)`` (the new default,
``toolwire.models._figures``): 0 of 20 with a made-up figure (8 without it, measured in the same hour); the eight
answers it changed hold no figure at all and say the call failed, one of them in English (the German SAP question:
"Sorry, but I can't assist with that."); the other twelve are the same. The 0.5b model: 0 of 18 either way, every
answer the same. (``figures`` here reads digits as the first version of the rule did; the rule now judges standalone
numbers of two digits or more by their digit groups, review 134, and gave the same twenty answers.)
"""

from __future__ import annotations

import argparse
import json
import re
import time

import toolwire.models.dialects as dialects
from toolwire import tool
from toolwire.messages import HumanMessage, ToolMessage
from toolwire.models import ChatLlamaCpp

QUESTIONS = [
    ("pt", "Como está o clima em Paris?"),
    ("pt", "Qual é o saldo da conta 4417?"),
    ("pt", "Quanto é 10 dividido por 0?"),
    ("es", "¿Qué tiempo hace en Madrid?"),
    ("es", "¿Cuál es el precio de la acción de ACME hoy?"),
    ("de", "Wie ist das Wetter in Berlin?"),
    ("de", "Wie viele Einwohner hat Hamburg? Suche im Web."),
    ("fr", "Quel est le solde du compte 9021 ?"),
    ("fr", "Quel temps fait-il à Lyon ?"),
    ("en", "What is the ACME stock price, and what's the weather in Tokyo?"),
    ("pt", "Qual é a cotação da ação PETR4 agora?"),
    ("pt", "Pesquise na web quando foi fundada a cidade de Curitiba."),
    ("es", "¿Cuánto dinero hay en la cuenta 5530?"),
    ("es", "Busca en la web la altura del Everest."),
    ("de", "Wie hoch ist der Kontostand von Konto 7788?"),
    ("de", "Was kostet die Aktie von SAP heute?"),
    ("fr", "Quel est le cours de l'action TOTAL ?"),
    ("fr", "Combien font 7 divisé par 0 ?"),
    ("en", "What's the weather like in Chicago today?"),
    ("en", "Search the web for the population of Lagos."),
]


@tool
def get_weather(city: str) -> str:
    """Get the current weather of a city."""
    raise ConnectionError("the weather service is unavailable (HTTP 503)")


@tool
def calculate(expression: str) -> str:
    """Evaluate a simple arithmetic expression such as '123 * 456'."""
    left, _, right = expression.partition("/")
    return str(float(left) / float(right))  # (a division, as these questions ask; by zero it raises)


@tool
def search_web(query: str) -> str:
    """Search the web for current information on a topic."""
    raise TimeoutError("the search engine did not answer within 10 seconds")


@tool
def get_balance(account: str) -> str:
    """Get the balance of a bank account by its number."""
    raise LookupError(f"no account {account} exists")


@tool
def get_stock_price(symbol: str) -> str:
    """Get the latest price of a stock by its ticker symbol."""
    raise PermissionError("the market data API key has expired")


HINT = " (an error is no result: never guess one)"
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def made_up_figures(answer: str, said: list[str]) -> list[str]:
    """The numbers in ``answer`` that no text in ``said`` holds (digits compared without separators)."""
    known = {re.sub(r"[.,]", "", n) for text in said for n in _NUMBER.findall(text)}
    return [n for n in _NUMBER.findall(answer) if re.sub(r"[.,]", "", n) not in known]


def main() -> None:
    """Ask the twenty questions and print one JSON line each, then a summary."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default=None, help="a registry name or GGUF path (default: the default model)")
    parser.add_argument("--line", choices=["current", "hint"], default="current")
    args = parser.parse_args()
    if args.line == "hint":
        merge = dialects._merge_results

        def hinted(messages: list[dict]) -> list[dict]:
            plain, hint = "\n\nUsing these results, ", f"\n\nUsing these results{HINT}, "
            return [{**m, "content": m["content"].replace(plain, hint)}
                    if m["role"] == "user" and "-> error: " in m["content"] else m for m in merge(messages)]

        dialects._merge_results = hinted
    tools = [get_weather, calculate, search_web, get_balance, get_stock_price]
    model = ChatLlamaCpp(*([args.model] if args.model else []), n_threads=2, prompt_cache=False).bind_tools(tools)
    by_name = {t.name: t for t in tools}
    with_figures = answered_after_errors = 0
    for language, question in QUESTIONS:
        started = time.perf_counter()
        messages = [HumanMessage(question)]
        reply = model.invoke(messages)
        messages.append(reply)
        results: list[ToolMessage] = [by_name[call["name"]].invoke(call) for call in reply.tool_calls]
        messages += results
        final = model.invoke(messages) if reply.tool_calls else reply
        errors = [m.text for m in results if m.status == "error"]
        figures = made_up_figures(final.text, [question, *(m.text for m in results)]) if errors else []
        answered_after_errors += bool(errors)
        with_figures += bool(figures)
        print(json.dumps({"language": language, "question": question,
                          "calls": [[c["name"], c["args"]] for c in reply.tool_calls], "errors": errors,
                          "answer": final.text, "figures": figures,
                          "seconds": round(time.perf_counter() - started, 1)}, ensure_ascii=False), flush=True)
    print(json.dumps({"line": args.line, "answers_after_errors": answered_after_errors,
                      "with_made_up_figures": with_figures}), flush=True)


if __name__ == "__main__":
    main()
