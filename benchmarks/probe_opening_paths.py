"""Where the figures in ``opening_paths_probability``'s docstring come from (``toolwire.models._call_checks``).

Runs the book's first question with only ``get_weather`` bound (one tool: the ``pythonic`` dialect) on the
embedded model, and prints what the call check saw at the call's opening: the likeliest first tokens with
their probabilities, the next-token candidates after each first token that was followed, the plain estimate
(:func:`opening_probability`) and the followed one (:func:`opening_paths_probability`).

Run alone (it loads the model): ``python benchmarks/probe_opening_paths.py [--model NAME] [--question TEXT]
[--min-call-probability 1.0]``. The KV cache on disk is off, so every run starts from an empty cache; the bar
1.0 sends every opening through the followed estimate (and declines it), to see its figures whatever first
token the model took.
"""

from __future__ import annotations

import argparse
from typing import Any

import toolwire.models._generation as generation
from toolwire.examples.book import get_weather
from toolwire.models import ChatLlamaCpp


def _piece(loaded: Any, token: int) -> str:
    return repr(loaded.piece(token).decode("utf-8", "replace"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=None, help="registry name or .gguf path (default: the default model)")
    parser.add_argument("--question", default="Como está o clima em Paris?")
    parser.add_argument("--top", type=int, default=5, help="candidates shown per step")
    parser.add_argument("--min-call-probability", type=float, default=None,
                        help="the call bar; 1.0 makes every opening go through the followed estimate (and be "
                             "declined), to see the figures whatever path the model took")
    args = parser.parse_args()

    seen: list[dict[str, Any]] = []
    plain, paths = generation.opening_probability, generation.opening_paths_probability

    def plain_probe(loaded: Any, scanner: Any, text: str, base: str, ends: list[int], steps: list[dict[int, float]],
                    first: int) -> Any:
        result = plain(loaded, scanner, text, base, ends, steps, first)
        seen.append({"loaded": loaded, "text": text, "first": steps[first], "plain": result[0], "followed": {}})
        return result

    def paths_probe(loaded: Any, scanner: Any, text: str, base: str, ends: list[int], steps: list[dict[int, float]],
                    first: int, taken: int, follow: Any, banned: Any = ()) -> float:
        def recording(token: int) -> dict[int, float] | None:
            after = follow(token)
            seen[-1]["followed"][token] = after
            return after
        value = paths(loaded, scanner, text, base, ends, steps, first, taken, recording, banned)
        seen[-1]["paths"] = value
        seen[-1]["taken"] = taken
        seen[-1]["second"] = steps[first + 1] if first + 1 < len(steps) else {}
        return value

    generation.opening_probability = plain_probe  # type: ignore[assignment]
    generation.opening_paths_probability = paths_probe  # type: ignore[assignment]
    options: dict[str, Any] = {"prompt_cache": False, "min_call_probability": args.min_call_probability}
    model = ChatLlamaCpp(args.model, **options) if args.model else ChatLlamaCpp(**options)
    reply = model.bind_tools([get_weather]).invoke(args.question)
    for n, check in enumerate(seen, 1):
        loaded = check["loaded"]
        print(f"check {n}: reply text so far {check['text']!r}")
        top = sorted(check["first"].items(), key=lambda kv: -kv[1])[:args.top]
        print("  first step: " + ", ".join(f"{_piece(loaded, t)} {p:.2f}" for t, p in top))
        print(f"  plain estimate (opening_probability): {check['plain']:.2f}")
        if "paths" in check:
            second = sorted(check["second"].items(), key=lambda kv: -kv[1])[:args.top]
            print(f"  after {_piece(loaded, check['taken'])} (taken): "
                  + ", ".join(f"{_piece(loaded, t)} {p:.2f}" for t, p in second))
            for token, after in check["followed"].items():
                shown = "cannot be followed" if after is None else ", ".join(
                    f"{_piece(loaded, t)} {p:.2f}" for t, p in sorted(after.items(), key=lambda kv: -kv[1])[:args.top])
                print(f"  after {_piece(loaded, token)}: {shown}")
            print(f"  followed estimate (opening_paths_probability): {check['paths']:.2f}")
    print(f"reply: calls={[(c['name'], c['args']) for c in reply.tool_calls]} text={reply.text!r}")


if __name__ == "__main__":
    main()
