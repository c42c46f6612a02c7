"""Chained calls on the embedded model: does the Agent's loop get a second call built on the first one's result?

Four personal-finance tools over a small in-memory ledger kept in US dollars (list, sum, add, convert). Six
questions need two steps (look up or convert, then convert or add: "How much did I spend on food in March, in
euros?" needs ``list_expenses`` or ``sum_expenses``, then ``convert_currency``); four need one. Each question runs
through ``Agent.invoke`` with a fresh ledger, and one JSON line per question is printed: whether it needed a chain,
the calls in order, the steps, the answer and the seconds.

``--line`` replaces the last line of the results turn (``toolwire.models.dialects._answer_line``) with a wording that
invites another call, to compare with toolwire's own (``current``):

* ``invite``: "If the request needs another function's result, call that function now; otherwise, using these
  results, answer this request in its own language: {question}"
* ``or_call``: "Using these results, answer this request in its own language, or call another function first if it
  needs one: {question}"

``python benchmarks/chained_calls.py [--model qwen2.5-coder-0.5b] [--line invite] [--only F1,P1]``

Forty-fifth session, default model (qwen2.5-coder-1.5b), the six chained questions (``--only F1,F5,F6,P1,P2,P3``):
``current`` and ``invite`` each made the second call in 0 of 6; every run stopped at one call and an answer. Review
126 had found 0 of 10 with ``current``. The README's Agent section says so. Two of those six runs (F6, P2) answered
with the request itself, word for word (review 126 #4); with ``ChatLlamaCpp``'s ``decline_echoes`` (added then),
none does, and the other eight questions' runs are the same as before it.
"""

from __future__ import annotations

import argparse
import json
import time
from datetime import date
from typing import Literal

from _answer_line import use_answer_line

from toolwire import Agent, tool
from toolwire.models import ChatLlamaCpp

LINES = {
    "invite": ("If the request needs another function's result, call that function now; otherwise, using these "
               "results, answer this request in its own language: {question}"),
    "or_call": ("Using these results, answer this request in its own language, or call another function first if it "
                "needs one: {question}"),
}

RATES_TO_USD = {"USD": 1.0, "EUR": 1.10, "BRL": 0.20, "GBP": 1.25}  # 1 unit of the currency is this many dollars
SEED = [
    {"date": "2026-03-02", "category": "food", "amount": 40.00, "note": "groceries"},
    {"date": "2026-03-10", "category": "food", "amount": 25.50, "note": "restaurant"},
    {"date": "2026-03-15", "category": "transport", "amount": 30.00, "note": "taxi"},
    {"date": "2026-03-20", "category": "food", "amount": 34.50, "note": "market"},
    {"date": "2026-04-01", "category": "food", "amount": 50.00, "note": "groceries"},
    {"date": "2026-04-05", "category": "rent", "amount": 1200.00, "note": "rent"},
    {"date": "2026-04-12", "category": "transport", "amount": 15.00, "note": "bus"},
]
LEDGER: list[dict[str, object]] = []
Category = Literal["food", "transport", "rent", "fun", "health"]

# (id, question, needs a chain, what a right run does)
QUESTIONS = [
    ("F1", "How much did I spend on food in March, in euros?", True, "100 USD -> 90.91 EUR"),
    ("F2", "What was my total spending in March?", False, "130 USD"),
    ("F3", "Convert 250 US dollars to Brazilian reais.", False, "1250 BRL"),
    ("F4", "List my transport expenses.", False, "taxi 30, bus 15"),
    ("F5", "Which category did I spend the most on in April, and how much was it in euros?", True,
     "rent 1200 USD -> 1090.91 EUR"),
    ("F6", "I paid 12.50 dollars for lunch today. Add it as food, then tell me my total food spending in April.", True,
     "add 12.5 food, then 62.50 USD"),
    ("P1", "Quanto gastei com comida em março, em euros?", True, "100 USD -> 90.91 EUR"),
    ("P2", "Adicione uma despesa de 80 reais com transporte no dia 2026-04-18.", True, "80 BRL -> 16 USD, then add"),
    ("P3", "Quanto gastei no total com transporte, em reais?", True, "45 USD -> 225 BRL"),
    ("P5", "Qual foi o meu gasto total em abril?", False, "1265 USD"),
]


def _matches(entry: dict[str, object], category: str | None, month: str | None) -> bool:
    return (category is None or entry["category"] == category) and (month is None or str(entry["date"])[:7] == month)


@tool
def convert_currency(amount: float, from_currency: str, to_currency: str) -> float:
    """Convert an amount of money between currencies using a fixed rate table.

    Args:
        amount: the amount to convert.
        from_currency: ISO code of the currency of the amount, such as USD, EUR, BRL, GBP.
        to_currency: ISO code of the currency wanted.
    """
    source, target = from_currency.upper(), to_currency.upper()
    for code in (source, target):
        if code not in RATES_TO_USD:
            raise ValueError(f"unknown currency {code!r}; known: {', '.join(RATES_TO_USD)}")
    return round(amount * RATES_TO_USD[source] / RATES_TO_USD[target], 2)


@tool
def add_expense(day: date, category: Category, amount_usd: float, note: str = "") -> str:
    """Record an expense. Amounts are always stored in US dollars.

    Args:
        day: the date of the expense (YYYY-MM-DD).
        category: the expense category.
        amount_usd: the amount in US dollars (convert other currencies first).
        note: a short description.
    """
    if amount_usd <= 0:
        raise ValueError("amount_usd must be positive")
    LEDGER.append({"date": day.isoformat(), "category": category, "amount": amount_usd, "note": note})
    return f"Added {amount_usd:.2f} USD for {category} on {day.isoformat()}."


@tool
def list_expenses(category: Category | None = None, month: str | None = None) -> list[dict[str, object]]:
    """List recorded expenses (amounts in US dollars), optionally filtered.

    Args:
        category: only this category.
        month: only this month, as YYYY-MM (the year is 2026).
    """
    return [entry for entry in LEDGER if _matches(entry, category, month)]


@tool
def sum_expenses(category: Category | None = None, month: str | None = None) -> dict[str, object]:
    """Total of recorded expenses in US dollars, per category, optionally filtered.

    Args:
        category: only this category.
        month: only this month, as YYYY-MM (the year is 2026).
    """
    totals: dict[str, float] = {}
    for entry in LEDGER:
        if _matches(entry, category, month):
            key = str(entry["category"])
            totals[key] = round(totals.get(key, 0.0) + float(entry["amount"]), 2)  # type: ignore[arg-type]
    return {"totals_usd": totals, "grand_total_usd": round(sum(totals.values()), 2)}


def main() -> None:
    """Ask the questions and print one JSON line each."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default=None, help="a registry name or GGUF path (default: the default model)")
    parser.add_argument("--line", choices=["current", *LINES], default="current")
    parser.add_argument("--only", default="", help="comma-separated question ids, e.g. F1,P1")
    args = parser.parse_args()
    if args.line != "current":
        use_answer_line(LINES[args.line])
    model = ChatLlamaCpp(*([args.model] if args.model else []), n_threads=2)
    agent = Agent(model, [convert_currency, add_expense, list_expenses, sum_expenses],
                  system_prompt="Today is 2026-04-20. You help the user with their personal finances.")
    only = {part.strip() for part in args.only.split(",") if part.strip()}
    for qid, question, chained, right in QUESTIONS:
        if only and qid not in only:
            continue
        LEDGER[:] = [dict(entry) for entry in SEED]
        started = time.perf_counter()
        result = agent.invoke(question)
        calls = [[c["name"], c["args"]] for m in result.messages if m.type == "ai" for c in m.tool_calls]
        print(json.dumps({"id": qid, "line": args.line, "chained": chained, "right": right, "calls": calls,
                          "steps": result.steps, "answer": result.output,
                          "seconds": round(time.perf_counter() - started, 1)}, ensure_ascii=False, default=str),
              flush=True)


if __name__ == "__main__":
    main()
