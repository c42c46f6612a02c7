"""Tools that take no parameters, bound one at a time to an embedded model: is the tool called when the question needs
it, and left alone when it does not? (Review 145 #1: ``get_time()`` bound alone got ``['14:30']``, made up.)

Eight such tools, two questions each that need the tool and one that does not (24 requests, greedy decoding)::

    python benchmarks/zero_parameter_tools.py [--model NAME] [--dialect pythonic|json|...]

Prints each miss and a last line ``called N/16, irrelevant declined M/8``. BFCL binds no tool without parameters, so
this is where the default dialect for such a tool is measured (benchmarks/ACCURACY.md, "Forty-ninth session").
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from toolwire import tool
from toolwire.models import ChatLlamaCpp

TOOLS = [
    ("get_time", "Return the current time (HH:MM).", ["What time is it?", "Can you tell me the current time?"]),
    ("list_files", "List the files in the current folder.",
     ["Which files are in the current folder?", "Show me my files."]),
    ("today", "Return today's date (YYYY-MM-DD).", ["What is today's date?", "Which day is it today?"]),
    ("get_ip_address", "Return this machine's public IP address.",
     ["What is my IP address?", "Which public IP do I have?"]),
    ("current_user", "Return the name of the logged-in user.", ["Who am I logged in as?", "What is my user name?"]),
    ("random_number", "Return a random integer between 1 and 100.",
     ["Give me a random number.", "Pick a random number for me."]),
    ("get_battery_level", "Return the battery charge in percent.",
     ["How much battery do I have left?", "What's my battery level?"]),
    ("list_open_tabs", "List the browser tabs that are open.",
     ["Which tabs do I have open?", "List my open browser tabs."]),
]
IRRELEVANT = ["What is the capital of France?", "Tell me a joke.", "How many legs does a spider have?"]


def _tool(name: str, doc: str) -> Any:
    def func() -> str:
        return "x"

    func.__name__, func.__doc__ = name, doc
    return tool(func)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default=None, help="a registry name or GGUF path (default: the default model)")
    parser.add_argument("--dialect", default=None, help="a dialect (default: the model's default)")
    args = parser.parse_args()
    options = {k: v for k, v in (("model", args.model), ("dialect", args.dialect)) if v}
    llm = ChatLlamaCpp(**options)
    called = declined = 0
    start = time.perf_counter()
    for i, (name, doc, questions) in enumerate(TOOLS):
        bound = llm.bind_tools([_tool(name, doc)])
        for question in questions:
            reply = bound.invoke(question)
            if [c["name"] for c in reply.tool_calls] == [name]:
                called += 1
            else:
                print(f"MISS {name}: {question!r} -> {reply.text[:60]!r}")
        question = IRRELEVANT[i % len(IRRELEVANT)]
        reply = bound.invoke(question)
        if reply.tool_calls:
            print(f"CALLED {name}: {question!r}")
        else:
            declined += 1
    print(f"{options or 'defaults'}: called {called}/{2 * len(TOOLS)}, irrelevant declined {declined}/{len(TOOLS)} "
          f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
