"""Review 288 #3: a quiet load puts back the llama.cpp log callback that was set before it (a user's own), not
llama-cpp-python's default one."""

from __future__ import annotations

import ctypes

import pytest

llama_cpp = pytest.importorskip("llama_cpp")


def _current() -> int | None:
    callback, data = llama_cpp.llama_log_callback(), ctypes.c_void_p()
    llama_cpp.llama_log_get(ctypes.byref(callback), ctypes.byref(data))
    return ctypes.cast(callback, ctypes.c_void_p).value


def test_a_users_log_callback_is_put_back_after_a_quiet_load() -> None:
    from toolwire.models._quiet_load import quiet_load

    if not hasattr(llama_cpp, "llama_log_get"):
        pytest.skip("this llama-cpp-python has no llama_log_get")
    before = _current()
    mine = llama_cpp.llama_log_callback(lambda level, text, data: None)
    llama_cpp.llama_log_set(mine, ctypes.c_void_p(0))
    try:
        with quiet_load(llama_cpp, verbose=False):
            assert _current() != ctypes.cast(mine, ctypes.c_void_p).value  # silenced for the load
        assert _current() == ctypes.cast(mine, ctypes.c_void_p).value
    finally:
        from llama_cpp import _logger

        llama_cpp.llama_log_set(_logger.llama_log_callback, ctypes.c_void_p(0))
    assert _current() == before
