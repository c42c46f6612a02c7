"""Settings for the whole test suite.

Hypothesis runs deterministically everywhere (a fixed seed, no example database) and without its per-example
deadline: CI runs on a shared 2-core machine, where a garbage collection or another job can make one example
slow, and timings belong in ``benchmarks/``, not in tests. A test's own ``@settings`` still sets its example count.
"""

from __future__ import annotations

from hypothesis import settings

settings.register_profile("toolwire", derandomize=True, database=None, deadline=None)
settings.load_profile("toolwire")
