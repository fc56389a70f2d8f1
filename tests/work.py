"""Work measured in Python line events: what a test of "this stays fast" counts instead of seconds.

A CPU-time limit fails on a loaded machine and passes a quadratic loop on a fast
one; the number of Python lines run is the same on every machine and every
run.  ``sys.settrace`` sees every line executed in Python code (not inside C
functions: a test of C-level work counts calls instead, e.g. with a spy).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


def line_events(call: Callable[[], T]) -> tuple[T, int]:
    """Run ``call()`` and count the Python lines it executes, in every frame it enters."""
    count = 0

    def local(frame: Any, event: str, arg: Any) -> Any:
        nonlocal count
        if event == "line":
            count += 1
        return local

    def global_trace(frame: Any, event: str, arg: Any) -> Any:
        return local

    previous = sys.gettrace()
    sys.settrace(global_trace)
    try:
        result = call()
    finally:
        sys.settrace(previous)
    return result, count


def function_calls(call: Callable[[], T]) -> tuple[T, int]:
    """Run ``call()`` and count the functions it calls, Python and C alike (cheaper to count than lines)."""
    count = 0

    def profile(frame: Any, event: str, arg: Any) -> None:
        nonlocal count
        if event in ("call", "c_call"):
            count += 1

    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        result = call()
    finally:
        sys.setprofile(previous)
    return result, count
