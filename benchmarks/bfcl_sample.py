"""Write a stride sample of the BFCL data (every k-th item of each category) for quick A/B trials.

Greedy decoding gives the same reply to the same item, so a variant run on the sample is compared with
the full run's replies to the same ids (the baseline costs nothing). The sample used in
``benchmarks/ACCURACY.md``: every 4th irrelevance item and every 8th item of the other categories.

Usage: ``python benchmarks/bfcl_sample.py ../shared/bfcl /tmp/bs``, then
``toolwire eval bfcl --data /tmp/bs --out reports/exp/NAME.json [options]``.

``python benchmarks/bfcl_sample.py ../shared/bfcl /tmp/ord --optional-first`` instead copies every item one of
whose functions lists an optional parameter before a required one (the items the pythonic grammar's argument
order touches; 24 in the five core categories).

``python benchmarks/bfcl_sample.py ../shared/bfcl /tmp/chg --changed OLD_SRC [--dialect NAME] [--prompt-only]``
copies every item whose prompt or call grammar differs between the toolwire source tree ``OLD_SRC`` (for example
a worktree of the commit the full run used: ``git worktree add /tmp/old COMMIT``, then ``/tmp/old/src``) and
this checkout's ``src``, for the dialect (default ``pythonic``); with ``--prompt-only`` only the prompt is
compared (for a grammar change known not to touch the replies, such as integers allowed more digits). With
greedy decoding the other items' replies do not change, so running only these and taking the rest from the
full run gives the full categories' figures for the change.

``python benchmarks/bfcl_sample.py ../shared/bfcl /tmp/ids --ids FILE`` copies the items whose ids ``FILE`` lists,
one per line (for example those ``bfcl_ungrounded.py`` prints).

``python benchmarks/bfcl_sample.py ../shared/bfcl /tmp/unk --opens-as-call REPORT [REPORT ...]`` (last on the
command line: every argument after it is a report) copies the items
whose stored reply text opens as a call that is no tool call of the reply (a call list of a made-up name, a bare
``fibonacci(20)``, a call written as text after three declined calls): the replies ``decline_unknown_calls`` acts
on (``OpenerScanner.unknown_call``). Reports are ``toolwire eval bfcl`` JSON files (``.gz`` too); an id in several
reports is taken from the last.
"""

from __future__ import annotations

import gzip
import json
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

STRIDE = {"simple_python": 8, "multiple": 8, "parallel": 8, "parallel_multiple": 8, "irrelevance": 4}


def optional_first(row: dict) -> bool:
    """Whether one of the item's functions lists an optional parameter before a required one."""
    for function in row.get("function") or []:
        parameters = function.get("parameters") or {}
        required = set(parameters.get("required") or [])
        flags = [name in required for name in parameters.get("properties") or {}]
        if any(not flags[i] and any(flags[i + 1:]) for i in range(len(flags))):
            return True
    return False


_HASHES = r"""
import hashlib, json, sys
sys.path.insert(0, sys.argv[1])
from toolwire.evals.bfcl import load_category
from toolwire.models.base import to_tool_spec
from toolwire.models.dialects import get_dialect
from toolwire.models.grammar import call_grammar
dialect = get_dialect(sys.argv[3])
out = {}
for category in sys.argv[5:]:
    for item in load_category(sys.argv[2], category):
        specs = [to_tool_spec(t) for t in item.toolset().tools]
        chat = dialect.render(list(item.messages()), specs, tool_choice="auto")
        grammars = [call_grammar(specs, fmt) for fmt in dialect.formats]
        if dialect.name == "pythonic":  # its JSON fallback (signature order since the sixth session)
            try:
                grammars.append(call_grammar(specs, "json", signature=True))
            except TypeError:
                grammars.append(call_grammar(specs, "json"))
        if sys.argv[4] == "prompt":
            grammars = []
        text = json.dumps([chat.messages, chat.tools, grammars], sort_keys=True, ensure_ascii=False)
        out[item.id] = hashlib.sha256(text.encode()).hexdigest()
print(json.dumps(out))
"""


def changed_items(data: Path, old_src: Path, new_src: Path, dialect: str = "pythonic", prompt_only: bool = False
                  ) -> set[str]:
    """Ids of the items whose rendered prompt or call grammars (only the prompt with ``prompt_only``) differ
    between two toolwire source trees (each rendered in an interpreter of its own)."""
    def hashes(src: Path) -> dict[str, str]:
        run = subprocess.run([sys.executable, "-c", _HASHES, str(src), str(data), dialect,
                              "prompt" if prompt_only else "all", *STRIDE],
                             check=True, capture_output=True, text=True)
        return json.loads(run.stdout)

    old, new = hashes(old_src), hashes(new_src)
    return {key for key in new if old.get(key) != new[key]}


def opens_as_call(reports: list[Path]) -> set[str]:
    """Ids of the items whose stored reply text (in the last of ``reports`` holding the id) opens as a call of any
    function, read as :meth:`toolwire.models.openers.OpenerScanner.unknown_call` reads a whole reply."""
    from toolwire.models.openers import OpenerScanner

    texts: dict[str, str] = {}
    for path in reports:
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rt", encoding="utf-8") as handle:
            texts.update((item["id"], item.get("text") or "") for item in json.load(handle)["items"])
    scanner = OpenerScanner(("pythonic", "json"), [], calls=False)
    return {key for key, text in texts.items()
            if text.strip() and scanner.unknown_call(text.strip(), final=True) is not None}


def sample(src: Path, dst: Path, stride: dict[str, int] = STRIDE, pick: Callable[[dict], bool] | None = None
           ) -> dict[str, int]:
    """Copy every ``stride[category]``-th item (by the number ending its id) of each category file, or with
    ``pick`` the items it accepts, and their possible answers, from ``src`` to ``dst``; returns the item count
    per category."""
    counts = {}
    for category, k in stride.items():
        chosen: set[str] = set()
        for sub in ("", "possible_answer/"):
            # the exact category: BFCL_v*_multiple.json would also match BFCL_v4_parallel_multiple.json
            files = sorted(p for p in (src / sub).glob(f"BFCL_v*_{category}.json")
                           if re.fullmatch(rf"BFCL_v\d+_{category}\.json", p.name))
            for path in files:
                lines = [line for line in path.read_text().splitlines() if line.strip()]
                if pick is None:
                    keep = [line for line in lines if int(json.loads(line)["id"].rsplit("_", 1)[1]) % k == 0]
                elif not sub:
                    keep = [line for line in lines if pick(json.loads(line))]
                    chosen = {json.loads(line)["id"] for line in keep}
                else:
                    keep = [line for line in lines if json.loads(line)["id"] in chosen]
                (dst / sub).mkdir(parents=True, exist_ok=True)
                (dst / sub / path.name).write_text("\n".join(keep) + "\n")
                if not sub:
                    counts[category] = len(keep)
    if (src / "README.md").is_file():
        shutil.copy(src / "README.md", dst / "README.md")
    return counts


if __name__ == "__main__":
    args = sys.argv[3:]
    picker: Callable[[dict], bool] | None = optional_first if "--optional-first" in args else None
    if "--ids" in args:  # a file of item ids, one per line (such as bfcl_ungrounded.py prints)
        with open(args[args.index("--ids") + 1], encoding="utf-8") as handle:
            wanted = {line.strip() for line in handle if line.strip()}
        picker = lambda row: row["id"] in wanted  # noqa: E731
    if "--opens-as-call" in args:
        found = opens_as_call([Path(a) for a in args[args.index("--opens-as-call") + 1:] if not a.startswith("--")])
        picker = lambda row: row["id"] in found  # noqa: E731
    if "--changed" in args:
        dialect = args[args.index("--dialect") + 1] if "--dialect" in args else "pythonic"
        ids = changed_items(Path(sys.argv[1]), Path(args[args.index("--changed") + 1]),
                            Path(__file__).resolve().parent.parent / "src", dialect, "--prompt-only" in args)
        picker = lambda row: row["id"] in ids  # noqa: E731
    print(sample(Path(sys.argv[1]), Path(sys.argv[2]), pick=picker))
