"""Interpreter-wide interception points a candidate can leave on, for the harness's integrity guard
(:mod:`kernelopt.harness.guards`): torch's function / dispatch mode stacks and infra modes, and Python's trace /
profile hooks and ``sys.monitoring`` tools. Each is process state, not a function's: a snapshot, a comparison and a
restore per kind (the adversarial corpus's ``function_mode_reference`` and ``trace_hook``, 2026-12-06).
"""

from __future__ import annotations

import sys
import threading
from typing import Any

import torch


def torch_modes() -> tuple[int, int, tuple[Any, ...]]:
    """The depth of torch's function-mode and dispatch-mode stacks and the infra dispatch modes set (fake, proxy,
    functional): a mode entered and left on the stack intercepts every later torch call in the process, the
    reference's and the harness's comparisons included (the corpus's ``function_mode_reference`` answered
    ``torch.rsqrt`` with zeros and PASSED)."""
    keys = tuple(torch._C._TorchDispatchModeKey.__members__.values())
    return (torch._C._len_torch_function_stack(), torch._C._len_torch_dispatch_stack(),
            tuple(torch._C._get_dispatch_mode(k) for k in keys))


def same_modes(a: tuple[int, int, tuple[Any, ...]], b: tuple[int, int, tuple[Any, ...]]) -> bool:
    """Two :func:`torch_modes` snapshots agree (depths equal, the same infra mode objects)."""
    return a[:2] == b[:2] and all(x is y for x, y in zip(a[2], b[2]))


def leave_torch_modes(depths: tuple[int, int, tuple[Any, ...]]) -> None:
    """Pop the modes entered above ``depths`` (a :func:`torch_modes` snapshot) and unset infra modes set since."""
    while torch._C._len_torch_function_stack() > depths[0]:
        torch._C._pop_torch_function_stack()
    while torch._C._len_torch_dispatch_stack() > depths[1]:
        torch._C._pop_torch_dispatch_stack(None)
    for key, was in zip(torch._C._TorchDispatchModeKey.__members__.values(), depths[2]):
        if was is None and torch._C._get_dispatch_mode(key) is not None:
            torch._C._unset_dispatch_mode(key)


def trace_hooks() -> tuple[Any, ...]:
    """This thread's trace and profile functions and those set for new threads (``sys.settrace`` /
    ``sys.setprofile`` / ``threading.settrace`` / ``threading.setprofile``), and the ``sys.monitoring`` tools
    registered (Python 3.12+): a hook left on runs inside every later harness call and can read and, with ctypes,
    rewrite its frames' locals (a verdict's ``n_fail``)."""
    tools: tuple[Any, ...] = ()
    monitoring = getattr(sys, "monitoring", None)
    if monitoring is not None:
        tools = tuple(monitoring.get_tool(i) for i in range(6))
    return (sys.gettrace(), sys.getprofile(), threading.gettrace(), threading.getprofile(), tools)


def same_hooks(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    """Two :func:`trace_hooks` snapshots hold the same hooks (tool names compared by value)."""
    return all(x is y for x, y in zip(a[:4], b[:4])) and a[4] == b[4]


def restore_hooks(hooks: tuple[Any, ...]) -> None:
    """Put a :func:`trace_hooks` snapshot back (tools registered since are freed)."""
    sys.settrace(hooks[0])
    sys.setprofile(hooks[1])
    threading.settrace(hooks[2])
    threading.setprofile(hooks[3])
    monitoring = getattr(sys, "monitoring", None)
    if monitoring is not None:
        for i, name in enumerate(hooks[4]):
            if name is None and monitoring.get_tool(i) is not None:
                monitoring.free_tool_id(i)
