"""A user's Ctrl-C told apart from a candidate's ``KeyboardInterrupt`` while an evaluation runs in this process.

The clauses around candidate code turn whatever a candidate raises into that workload's status; a Ctrl-C must
still stop an in-process evaluation. :func:`noting_sigint` records whether a SIGINT arrived during a workload and
:func:`user_interrupt` says whether an exception is that interrupt.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from typing import Any

#: Whether a SIGINT reached this process during the workload being evaluated (see :func:`noting_sigint`).
_SIGINT_SEEN = False


def user_interrupt(exc: BaseException) -> bool:
    """True for a KeyboardInterrupt that is the user's Ctrl-C (a SIGINT to this process): it must stop an in-process
    evaluation, so the clauses around candidate code re-raise it; any other exception a candidate raises
    (SystemExit, its own ``raise KeyboardInterrupt``) is that workload's RUNTIME_ERROR. Where the exception
    surfaced cannot tell the two apart: a Ctrl-C lands mostly inside the candidate's calls, where the time goes;
    whether a SIGINT arrived can."""
    return isinstance(exc, KeyboardInterrupt) and _SIGINT_SEEN


@contextlib.contextmanager
def noting_sigint():
    """Within the block, a SIGINT sets ``_SIGINT_SEEN`` and then goes to the handler in place before (Python's
    raises KeyboardInterrupt), restored after. Main thread only (Python runs signal handlers there: a
    KeyboardInterrupt in another thread is a candidate's), and only over a Python handler (SIG_IGN, SIG_DFL: no
    KeyboardInterrupt comes from a SIGINT)."""
    global _SIGINT_SEEN
    _SIGINT_SEEN = False
    previous = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or not callable(previous):
        yield
        return

    def _note(signum: int, frame: Any) -> None:
        global _SIGINT_SEEN
        _SIGINT_SEEN = True
        previous(signum, frame)

    signal.signal(signal.SIGINT, _note)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
