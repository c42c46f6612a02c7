"""Where the project's shared data lies: ``../shared`` beside the repo root (CI lays a copy there)."""

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
BFCL = SHARED / "bfcl"
SEED = SHARED / "seed"
CASES = SHARED / "cases" / "tool-calling-cases.md"
