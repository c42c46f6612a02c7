"""Values the grammar once bent, on the embedded model: what a call holds when the request breaks a constraint.

Review 128 #7: the local grammar held a ``uuid`` format, a string's ``pattern`` and a list's ``maxItems``, so a value
the model meant that broke one could not be written, and was either bent into a different valid value or declined.
Since then the grammar holds a call's shape only, and validation refuses such a value with a message the model sees
(:mod:`toolwire.models.grammar`). Nine questions to four tools (one bound per question), each asked once with
``bind_tools([tool]).invoke(question)``; one JSON line per question: the calls, the reply's text, and each call's
result status (the tool's validation message on an error).

``python benchmarks/bent_values.py [--model qwen2.5-coder-0.5b] [--agent]``; ``--agent`` runs the three questions
whose value breaks a constraint through ``Agent(model, [tool], max_steps=5)`` and prints each run's messages. To
compare with another tree, put its ``src``
first on ``PYTHONPATH`` (``git worktree add /tmp/old REV``, then ``PYTHONPATH=/tmp/old/src python
benchmarks/bent_values.py``).

Forty-sixth session, default model (qwen2.5-coder-1.5b), before (15947b0) and after the change:

* "Invite Ana, Bruno, Carla, Davi and Elisa", ``names`` with ``maxItems`` 3: before, ``["Ana", "Bruno", "Carla,
  Davi, Elisa"]``, valid and wrong (three names pressed into one string to fit); after, the five names, refused
  with "List should have at most 3 items".
* "order ORD-1001", ``order_id: uuid.UUID``: before, no call and the text ``.get_order(order_id="ORD-1001")``; after,
  the call with ``"ORD-1001"``, refused with "Input should be a valid UUID".
* "postal code 1234", ``zip_code`` of pattern ``^[0-9]{5}$``: before, no call and the call as text; after, the call
  with ``"1234"``, refused with "String should match pattern".
* Unchanged: "my order 1001" (no call, the text ``.get_order(order_id="00000000-0000-4000-8000-000000000001")``,
  the prompt's example UUID), the real UUID's question (no call, the made-up answer ``['Pending']``), and the four
  valid requests (two names, postal code 90210, "100 dollars" and "50 usd" both called with ``"USD"``).

The same three questions through the Agent (``--agent``), before and after:

* five names: before, the three-name call ran ("invited") and the answer told the user how to invite them one by
  one; after, the error result, and the answer is that error's text ("Error: Invalid arguments for tool 'invite':
  'names': List should have at most 3 items ..."): the user learns the call failed and why.
* postal code 1234: before, the answer was the call as text (``[['send_parcel(zip_code="1234", weight_kg=2)']]``);
  after, the error's text, as above.
* ORD-1001: before, the answer was the call as text; after, the error result, then the made-up answer "The status of
  order ORD-1001 is pending.": the small model's known weakness after a failed call (``failed_results.py``: 8 of 20
  answers hold a made-up figure), which the grammar had hidden behind a reply that made no call at all.
"""

from __future__ import annotations

import argparse
import json
import uuid
from typing import Annotated

from pydantic import Field

from toolwire import Agent, tool
from toolwire.models import ChatLlamaCpp


@tool
def get_order(order_id: uuid.UUID) -> str:
    """Look up an order's status.

    Args:
        order_id: the order's id
    """
    return "shipped"


@tool
def invite(names: Annotated[list[str], Field(max_length=3)]) -> str:
    """Invite people to the meeting.

    Args:
        names: the people to invite
    """
    return "invited"


@tool
def send_parcel(zip_code: Annotated[str, Field(pattern=r"^[0-9]{5}$")], weight_kg: float) -> str:
    """Send a parcel.

    Args:
        zip_code: destination postal code
        weight_kg: weight in kilograms
    """
    return "sent"


@tool
def convert(amount: float, currency: Annotated[str, Field(pattern=r"^[A-Z]{3}$")]) -> str:
    """Convert an amount of money to euros.

    Args:
        amount: the amount
        currency: the source currency code
    """
    return "converted"


CASES = [
    (get_order, "What's the status of order ORD-1001?"),
    (get_order, "What's the status of my order 1001?"),
    (get_order, "What's the status of order 123e4567-e89b-12d3-a456-426614174000?"),
    (invite, "Invite Ana, Bruno, Carla, Davi and Elisa to the meeting."),
    (invite, "Invite Ana and Bruno to the meeting."),
    (send_parcel, "Send a 2 kg parcel to postal code 1234."),
    (send_parcel, "Send a 2 kg parcel to postal code 90210."),
    (convert, "Convert 100 dollars to euros."),
    (convert, "Convert 50 usd to euros."),
]


def main() -> None:
    """Ask each question and print one JSON line per question (see the module's docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default=None, help="a registry name or GGUF path (default: the default model)")
    parser.add_argument("--agent", action="store_true", help="run the three breaking questions through the Agent")
    args = parser.parse_args()
    model = ChatLlamaCpp(args.model) if args.model else ChatLlamaCpp()
    if args.agent:
        for bound, question in (CASES[3], CASES[0], CASES[5]):
            result = Agent(model, [bound], max_steps=5).invoke(question)
            print(json.dumps({"question": question, "stop": result.stop_reason, "messages": [
                [type(m).__name__, [[c["name"], c["args"]] for c in getattr(m, "tool_calls", None) or []],
                 str(m.content)[:160]] for m in result.messages[1:]]}, ensure_ascii=False), flush=True)
        return
    for bound, question in CASES:
        reply = model.bind_tools([bound]).invoke(question)
        results = []
        for call in reply.tool_calls:
            result = bound.invoke(call)
            results.append(result.status + (f": {result.content[:100]}" if result.status == "error" else ""))
        print(json.dumps({"question": question, "calls": [[c["name"], c["args"]] for c in reply.tool_calls],
                          "text": reply.content[:100], "results": results}, ensure_ascii=False), flush=True)


if __name__ == "__main__":
    main()
