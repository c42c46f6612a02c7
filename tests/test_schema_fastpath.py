"""The schema fast path (toolwire._schema_fast) gives exactly what pydantic's general path gives.

Runs benchmarks/check_schema_fastpath.py on random signatures: JSON Schema text, core schema,
validation results and error messages must be identical on both paths.
"""

import subprocess
import sys

from _paths import REPO


def test_fast_path_matches_pydantic_on_random_signatures() -> None:
    done = subprocess.run([sys.executable, str(REPO / "benchmarks" / "check_schema_fastpath.py"), "--n", "400",
                           "--seed", "7"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "0 differences" in done.stdout
