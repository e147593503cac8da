"""Bounded capture of a worker's stdout/stderr, cut into per-workload segments.

The worker's fd 1 and 2 point at one pipe; a thread here drains it, so a candidate printing
megabytes neither blocks nor grows memory: each segment keeps only its last ``cap`` bytes.
After finishing a workload the worker writes a marker line ``\\x1e@kernelopt:<token>:<n>\\n``;
the text between two markers is that workload's output, retrieved with :meth:`LogTail.segment`.
"""

from __future__ import annotations

import os
import threading
import time

DEFAULT_CAP = 64 * 1024


def marker(token: str, mark: int) -> bytes:
    """The marker line the worker writes after the output of frame ``mark``."""
    return f"\x1e@kernelopt:{token}:{mark}\n".encode()


class _Tail:
    """Keeps the last ``cap`` bytes written and counts the ones dropped."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.buf = bytearray()
        self.dropped = 0

    def add(self, data: bytes) -> None:
        self.buf += data
        extra = len(self.buf) - self.cap
        if extra > 0:
            del self.buf[:extra]
            self.dropped += extra

    def text(self) -> str:
        body = self.buf.decode("utf-8", errors="replace")
        if self.dropped:
            return f"[... {self.dropped} earlier bytes of output dropped ...]\n{body}"
        return body


class LogTail:
    """Drains a pipe in a daemon thread; see the module docstring.

    Args:
        fd: read end of the worker's stdout/stderr pipe (owned and closed by this object).
        token: per-worker random token used in marker lines.
        cap: bytes kept per segment.
    """

    def __init__(self, fd: int, token: str, cap: int = DEFAULT_CAP) -> None:
        self._fd = fd
        self._prefix = f"\x1e@kernelopt:{token}:".encode()
        self._cap = cap
        self._cur = _Tail(cap)
        self._segments: dict[int, str] = {}
        self._cond = threading.Condition()
        self._eof = False
        self._thread = threading.Thread(target=self._drain, name=f"logtail-{fd}", daemon=True)
        self._thread.start()

    # ------------------------------------------------------------ drain thread
    def _drain(self) -> None:
        pending = b""
        try:
            while True:
                try:
                    chunk = os.read(self._fd, 1 << 16)
                except InterruptedError:
                    continue
                except OSError:
                    break
                if not chunk:
                    break
                pending = self._consume(pending + chunk)
        finally:
            with self._cond:
                self._cur.add(pending)
                self._eof = True
                self._cond.notify_all()
            try:
                os.close(self._fd)
            except OSError:
                pass

    def _emit(self, data: bytes) -> None:
        if data:
            with self._cond:
                self._cur.add(data)

    def _consume(self, buf: bytes) -> bytes:
        """Move complete text/markers out of ``buf``; return the undecided remainder."""
        p = self._prefix
        while True:
            i = buf.find(p)
            if i < 0:
                keep = 0  # a partial prefix may end the buffer
                for k in range(min(len(p) - 1, len(buf)), 0, -1):
                    if buf.endswith(p[:k]):
                        keep = k
                        break
                self._emit(buf[: len(buf) - keep])
                return buf[len(buf) - keep:]
            self._emit(buf[:i])
            j = buf.find(b"\n", i + len(p))
            if j < 0:
                if len(buf) - i > len(p) + 24:  # too long to be a marker: plain text
                    self._emit(buf[i:i + 1])
                    buf = buf[i + 1:]
                    continue
                return buf[i:]
            num = buf[i + len(p):j]
            if num.isdigit():
                with self._cond:
                    self._segments[int(num)] = self._cur.text()
                    self._cur = _Tail(self._cap)
                    while len(self._segments) > 256:
                        self._segments.pop(min(self._segments))
                    self._cond.notify_all()
            else:
                self._emit(buf[i:j + 1])
            buf = buf[j + 1:]

    # ------------------------------------------------------------ consumer API
    def segment(self, mark: int, timeout: float = 2.0) -> str:
        """Output that preceded marker ``mark`` (waits briefly for the drain thread)."""
        end = time.monotonic() + timeout
        with self._cond:
            while mark not in self._segments and not self._eof:
                left = end - time.monotonic()
                if left <= 0:
                    break
                self._cond.wait(left)
            if mark in self._segments:
                return self._segments.pop(mark)
            return ""

    def current(self, timeout: float = 2.0) -> str:
        """Output since the last marker; waits up to ``timeout`` for EOF (call after a kill)."""
        self._thread.join(timeout)
        with self._cond:
            text = self._cur.text()
            self._cur = _Tail(self._cap)
            return text

    @property
    def eof(self) -> bool:
        """True once every writer of the pipe has gone."""
        return self._eof
