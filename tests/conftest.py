"""Settings for the whole test suite.

Hypothesis runs deterministically everywhere (a fixed seed, no example database) and without its per-example
deadline: CI runs on a shared 2-core machine, where a garbage collection or another job can make one example
slow, and timings belong in ``benchmarks/``, not in tests. A test's own ``@settings`` still sets its example count.

Ctrl-C raises ``KeyboardInterrupt`` here even when the suite was started in the background of a shell script
(``make test &``), which starts it with SIGINT ignored: the tests of Ctrl-C send SIGINT to their own process.
"""

from __future__ import annotations

import signal

from hypothesis import settings

if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:  # (inherited from a background job)
    signal.signal(signal.SIGINT, signal.default_int_handler)

settings.register_profile("toolwire", derandomize=True, database=None, deadline=None)
settings.load_profile("toolwire")
