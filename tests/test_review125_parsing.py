"""Review 125 #1 and #2: reading Python-literal model text from several threads at once.

#1: ``parse_expr`` silenced the parser's warnings with ``warnings.catch_warnings``, which swaps the process-wide
filter list and is not thread-safe before Python 3.14; interleaved blocks left an "ignore everything" filter behind,
so no warning of the program showed again. #2: CPython 3.11's parser raised ``SystemError`` when two threads parsed
at once (gh-106905), and that escaped argument repair. Parses now run one at a time under a narrow filter, and the
strict-mode warnings of a request are kept through a context variable rather than ``catch_warnings``.
"""

from __future__ import annotations

import ast
import sys
import threading
import warnings
from concurrent.futures import ThreadPoolExecutor

import pytest

from toolwire.parsing import _python_parse, normalize_arguments

ARGS = "{'path': 'C:\\\\data\\\\x', 'items': [" + ", ".join(f"'v{i}'" for i in range(300)) + "], 'flag': True}"


def test_threads_reading_python_literal_arguments_leave_the_warnings_filters_as_they_were() -> None:
    interval = sys.getswitchinterval()
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        before = [f for f in warnings.filters if f[3] is None]  # filters that apply to every module
        sys.setswitchinterval(1e-6)
        try:
            with ThreadPoolExecutor(8) as pool:
                list(pool.map(lambda _: [normalize_arguments(ARGS) for _ in range(30)], range(8)))
        finally:
            sys.setswitchinterval(interval)
        assert [f for f in warnings.filters if f[3] is None] == before
        with pytest.warns(UserWarning, match="the program's own"):
            warnings.warn("the program's own warning", UserWarning, stacklevel=1)


def test_parses_run_one_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    real = ast.parse
    active, most = [0], [0]
    lock = threading.Lock()
    gate = threading.Event()

    def watched(*args: object, **kwargs: object) -> ast.AST:
        with lock:
            active[0] += 1
            most[0] = max(most[0], active[0])
        gate.wait(0.05)  # (another thread would enter here if parses could overlap)
        with lock:
            active[0] -= 1
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(_python_parse, "_ast_parse", watched)
    with ThreadPoolExecutor(4) as pool:
        values = list(pool.map(lambda _: normalize_arguments("{'a': 1}"), range(8)))
    assert values == [{"a": 1}] * 8
    assert most[0] == 1


def test_a_parser_system_error_is_tried_again_then_is_a_value_error(monkeypatch: pytest.MonkeyPatch) -> None:
    real = ast.parse
    failures = [1]

    def flaky(*args: object, **kwargs: object) -> ast.AST:
        if failures[0]:
            failures[0] -= 1
            raise SystemError("AST constructor recursion depth mismatch (before=75, after=7)")
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(_python_parse, "_ast_parse", flaky)
    assert normalize_arguments("{'a': 1}") == {"a": 1}

    def broken(*args: object, **kwargs: object) -> ast.AST:
        raise SystemError("AST constructor recursion depth mismatch")

    monkeypatch.setattr(_python_parse, "_ast_parse", broken)
    with pytest.raises(ValueError, match="could not be parsed"):
        _python_parse.parse_expr("{'a': 1}")


def test_the_calculator_is_safe_to_run_in_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolwire.examples.arith import CalculationError, evaluate

    def broken(*args: object, **kwargs: object) -> ast.AST:
        raise SystemError("AST constructor recursion depth mismatch")

    monkeypatch.setattr(_python_parse, "_ast_parse", broken)
    with pytest.raises(CalculationError):
        evaluate("1 + 2")


def test_the_parser_warnings_of_model_text_stay_silent() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert normalize_arguments("{'pattern': '\\d+'}") == {"pattern": "\\d+"}


def test_toolwire_s_own_quiet_blocks_take_turns() -> None:
    from toolwire._warn_site import quiet_warnings

    interval = sys.getswitchinterval()
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        before = list(warnings.filters)

        def quiet(_: int) -> None:
            for _ in range(200):
                with quiet_warnings():
                    warnings.warn("hidden", UserWarning, stacklevel=1)

        sys.setswitchinterval(1e-6)
        try:
            with ThreadPoolExecutor(8) as pool:
                list(pool.map(quiet, range(8)))
        finally:
            sys.setswitchinterval(interval)
        assert warnings.filters == before


def test_a_filter_the_program_adds_later_does_not_turn_the_parser_s_warnings_into_failures() -> None:
    # review 127 #2: "error" added after toolwire's narrow filter came first, and the repair of a Python dict with
    # a Windows path failed
    text = r"{'path': 'C:\data', 'n': 1}"
    with warnings.catch_warnings():
        assert normalize_arguments(text) == {"path": "C:\\data", "n": 1}
        warnings.simplefilter("error")
        assert normalize_arguments(text) == {"path": "C:\\data", "n": 1}


def test_a_parse_inside_a_parse_of_the_same_thread_does_not_deadlock(monkeypatch: pytest.MonkeyPatch) -> None:
    # review 127 #3: a warnings hook that reads model text ran inside the parse, which held a lock of its own
    real = _python_parse._ast_parse
    inner: list[object] = []
    entered = threading.Event()

    def nested(*args: object, **kwargs: object) -> ast.AST:
        if not entered.is_set():
            entered.set()
            inner.append(_python_parse.parse_expr("{'a': 1}"))  # as a hook called during the parse would
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(_python_parse, "_ast_parse", nested)
    done: list[object] = []
    thread = threading.Thread(target=lambda: done.append(normalize_arguments("{'b': 2}")), daemon=True)
    thread.start()
    thread.join(10)
    assert done == [{"b": 2}] and len(inner) == 1
