"""tests/conftest.py can run twice in one namespace (a reload) and still start nbval's kernels.

Its wrapper of `nbval.kernel.start_new_kernel` starts a kernel that died before its first reply
once more. Had it taken "the function to wrap" from nbval as it found it, a second run of the
file would take the wrapper itself, and the wrapper, calling that module global, would call
itself until a RecursionError.
"""

from __future__ import annotations

from pathlib import Path

import nbval.kernel
import pytest

CONFTEST = Path(__file__).with_name("conftest.py")


def test_conftest_run_twice_in_one_namespace_starts_a_dying_kernel_twice_not_forever(
    monkeypatch,
):
    starts = []

    def dies(*args, **kwargs):
        starts.append(args)
        raise RuntimeError("Kernel died before replying to kernel_info")

    monkeypatch.setattr(nbval.kernel, "start_new_kernel", dies)  # restored after the test
    code = compile(CONFTEST.read_text(encoding="utf-8"), str(CONFTEST), "exec")
    namespace = {"__name__": "conftest_run_twice", "__file__": str(CONFTEST)}
    exec(code, namespace)
    exec(code, namespace)
    with pytest.raises(RuntimeError) as raised:  # RecursionError is a RuntimeError too
        nbval.kernel.start_new_kernel("python3")
    assert not isinstance(raised.value, RecursionError), "the wrapper called itself"
    assert "died before replying" in str(raised.value)
    assert starts == [("python3",), ("python3",)]  # once, then once more: no more
