"""Write a stride sample of the BFCL data (every k-th item of each category) for quick A/B trials.

Greedy decoding gives the same reply to the same item, so a variant run on the sample is compared with
the full run's replies to the same ids (the baseline costs nothing). The sample used in
``benchmarks/ACCURACY.md``: every 4th irrelevance item and every 8th item of the other categories.

Usage: ``python benchmarks/bfcl_sample.py ../shared/bfcl /tmp/bs``, then
``toolwire eval bfcl --data /tmp/bs --out reports/exp/NAME.json [options]``.

``python benchmarks/bfcl_sample.py ../shared/bfcl /tmp/ord --optional-first`` instead copies every item one of
whose functions lists an optional parameter before a required one (the items the pythonic grammar's argument
order touches; 24 in the five core categories).
"""

from __future__ import annotations

import json
import re
import shutil
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
    print(sample(Path(sys.argv[1]), Path(sys.argv[2]),
                 pick=optional_first if "--optional-first" in sys.argv[3:] else None))
