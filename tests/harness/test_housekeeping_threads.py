"""ThreadWatch allows unmodified library housekeeping threads (tqdm's monitor, started by torch.compile)
and nothing that merely looks like one."""

from __future__ import annotations

import threading
import time

import pytest

from kernelopt.harness.guards import ThreadWatch, housekeeping

tqdm_monitor = pytest.importorskip("tqdm._monitor")


def _stop(t: threading.Thread) -> None:
    if hasattr(t, "exit"):
        t.exit()
    t.join(timeout=5)


def test_tqdm_monitor_is_not_work_outside_the_timed_window() -> None:
    watch = ThreadWatch()
    from tqdm import tqdm

    t = tqdm_monitor.TMonitor(tqdm, 10)  # what tqdm starts for a progress bar (torch.compile shows some)
    try:
        assert housekeeping(t) and t.is_alive()
        assert watch.spawned() == []
    finally:
        _stop(t)


def test_look_alikes_are_still_flagged() -> None:
    watch = ThreadWatch()

    class Patched(tqdm_monitor.TMonitor):  # a subclass running its own code
        def run(self) -> None:
            time.sleep(0.5)

    stop = threading.Event()
    named = threading.Thread(target=stop.wait, name="tqdm_monitor", daemon=True)  # only the name
    named.start()
    from tqdm import tqdm

    patched = Patched(tqdm, 10)
    try:
        assert not housekeeping(named) and not housekeeping(patched)
        assert set(watch.spawned()) >= {"tqdm_monitor", patched.name}
    finally:
        stop.set()
        named.join(timeout=5)
        patched.join(timeout=5)


def test_inductor_pool_timer_is_housekeeping_but_its_name_alone_is_not() -> None:
    """torch.compile's compile-worker pool timer thread (``subproc_worker_timer``) may start while another
    candidate in the same worker is timed; it is allowed, a thread that only borrows its name is not."""
    timer_mod = pytest.importorskip("torch._inductor.compile_worker.timer")
    watch = ThreadWatch()
    timer = timer_mod.Timer(0.2, lambda: None)
    timer.record_call()
    stop = threading.Event()
    fake = threading.Thread(target=stop.wait, name="subproc_worker_timer", daemon=True)
    fake.start()
    try:
        real = timer.background_thread
        assert real is not None and real.is_alive() and housekeeping(real)
        assert not housekeeping(fake)
        assert watch.spawned() == ["subproc_worker_timer"]  # only the look-alike
        assert [t.ident for t in watch.new_threads()] == [fake.ident]
    finally:
        stop.set()
        timer.quit()
        fake.join(timeout=5)


def test_inductor_pool_reader_is_housekeeping_but_a_look_alike_is_not() -> None:
    """The compile-worker pool's reader thread (``InductorSubproc``) got a torch.compile baseline REJECTED on
    the H200 (DSA indexer, 2026-11-30 call N); it runs ``SubprocPool._read_thread``, which only collects
    compiled kernels from the pool's process."""
    pool_mod = pytest.importorskip("torch._inductor.compile_worker.subproc_pool")
    pool = pool_mod.SubprocPool.__new__(pool_mod.SubprocPool)  # no pool process: only its thread's target
    real = threading.Thread(target=pool._read_thread, name="InductorSubproc", daemon=True)

    class Reader(pool_mod.SubprocPool):
        def _read_thread(self) -> None:  # an override runs other code under the same name
            time.sleep(0.1)

    other = Reader.__new__(Reader)
    fake = threading.Thread(target=other._read_thread, name="InductorSubproc", daemon=True)
    assert housekeeping(real) and not housekeeping(fake)
