"""A command stopped by Ctrl-C (SIGINT) or by SIGTERM (what Slurm, submitit and Kubernetes send at a time limit or
a preemption) ends as an interrupted one: the campaign run marked KILLED, what finished kept, one line saying how to
go on, exit status 128 + the signal's number.

SIGTERM's default action ended the process at once: the campaign run stayed RUNNING in the store for good and
nothing was printed. Here it raises :class:`Interrupted` (a ``KeyboardInterrupt``) in the main thread, so it takes
the path Ctrl-C takes."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager


class Interrupted(KeyboardInterrupt):
    """SIGTERM received (Ctrl-C raises the plain ``KeyboardInterrupt``)."""

    signum = signal.SIGTERM


def exit_status(exc: KeyboardInterrupt) -> int:
    """The shell's status for a process ended by the signal behind ``exc``: 130 (SIGINT), 143 (SIGTERM)."""
    return 128 + int(getattr(exc, "signum", signal.SIGINT))


def signal_name(exc: KeyboardInterrupt) -> str:
    return signal.Signals(getattr(exc, "signum", signal.SIGINT)).name


@contextmanager
def sigterm_interrupts() -> Iterator[None]:
    """Within the block, SIGTERM raises :class:`Interrupted` in the main thread (elsewhere: nothing changes, Python
    delivers signals to the main thread only); the previous handler is restored after it."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def _raise(signum: int, _frame: object) -> None:
        raise Interrupted(f"received {signal.Signals(signum).name}")

    previous = signal.signal(signal.SIGTERM, _raise)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
