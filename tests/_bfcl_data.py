"""A BFCL data folder of ``simple_python`` items that each ask to add one to n, for the eval's tests (reviews 85,
167)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FUNCTION: dict[str, Any] = {
    "name": "add_one", "description": "Add one to x.",
    "parameters": {"type": "dict", "properties": {"x": {"type": "integer"}}, "required": ["x"]},
}


def add_one_data(folder: Path, count: int = 1) -> Path:
    """Write ``count`` items ``simple_python_<n>`` ("Add one to n.", answer ``add_one(x=n)``) and their answer file
    into ``folder`` (made if needed); return ``folder``."""
    (folder / "possible_answer").mkdir(parents=True, exist_ok=True)
    items = [{"id": f"simple_python_{n}", "question": [[{"role": "user", "content": f"Add one to {n}."}]],
              "function": [FUNCTION]} for n in range(count)]
    keys = [{"id": f"simple_python_{n}", "ground_truth": [{"add_one": {"x": [n]}}]} for n in range(count)]
    (folder / "BFCL_v4_simple_python.json").write_text("".join(json.dumps(i) + "\n" for i in items), encoding="utf-8")
    (folder / "possible_answer" / "BFCL_v4_simple_python.json").write_text(
        "".join(json.dumps(k) + "\n" for k in keys), encoding="utf-8")
    return folder
