"""Write a stride sample of the BFCL data (every k-th item of each category) for quick A/B trials.

Greedy decoding gives the same reply to the same item, so a variant run on the sample is compared with
the full run's replies to the same ids (the baseline costs nothing). The sample used in
``benchmarks/ACCURACY.md``: every 4th irrelevance item and every 8th item of the other categories.

Usage: ``python benchmarks/bfcl_sample.py ../shared/bfcl /tmp/bs``, then
``toolwire eval bfcl --data /tmp/bs --out reports/exp/NAME.json [options]``.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

STRIDE = {"simple_python": 8, "multiple": 8, "parallel": 8, "parallel_multiple": 8, "irrelevance": 4}


def sample(src: Path, dst: Path, stride: dict[str, int] = STRIDE) -> dict[str, int]:
    """Copy every ``stride[category]``-th item (by the number ending its id) of each category file, and its
    possible answers, from ``src`` to ``dst``; returns the item count per category."""
    counts = {}
    for category, k in stride.items():
        for sub in ("", "possible_answer/"):
            files = sorted((src / sub).glob(f"BFCL_v*_{category}.json"))
            for path in files:
                lines = [line for line in path.read_text().splitlines() if line.strip()]
                keep = [line for line in lines if int(json.loads(line)["id"].rsplit("_", 1)[1]) % k == 0]
                (dst / sub).mkdir(parents=True, exist_ok=True)
                (dst / sub / path.name).write_text("\n".join(keep) + "\n")
                if not sub:
                    counts[category] = len(keep)
    if (src / "README.md").is_file():
        shutil.copy(src / "README.md", dst / "README.md")
    return counts


if __name__ == "__main__":
    print(sample(Path(sys.argv[1]), Path(sys.argv[2])))
