"""Length-prefixed JSON frames between the executor and its worker processes.

A frame is a 4-byte big-endian length followed by that many bytes of UTF-8 JSON (one object).
Requests and results travel as ``model_dump(mode="json")`` dictionaries encoded with Python's
``json`` module, which keeps NaN/inf (``Infinity`` tokens) so error statistics survive the trip.

Parent side: :class:`FrameReader` (deadline-aware, non-blocking) and :func:`write_frame` with a
deadline. Worker side: :func:`read_frame_blocking` / :func:`write_frame_blocking`.
"""

from __future__ import annotations

import json
import os
import select
import struct
import time
from collections.abc import Callable
from typing import Any

from kernelopt.data.records import EvalRequest, EvalResult

MAX_FRAME_BYTES = 512 * 1024 * 1024
_HEADER = struct.Struct(">I")


class ProtocolError(RuntimeError):
    """The peer sent something that is not a valid frame."""


class FrameTimeout(TimeoutError):
    """No complete frame arrived before the deadline."""


def encode(obj: dict[str, Any]) -> bytes:
    """Serialise one frame (header + JSON body)."""
    body = json.dumps(obj, allow_nan=True, separators=(",", ":")).encode("utf-8")
    if len(body) > MAX_FRAME_BYTES:
        raise ProtocolError(f"frame of {len(body)} bytes exceeds the {MAX_FRAME_BYTES}-byte limit")
    return _HEADER.pack(len(body)) + body


def _decode_body(body: bytes) -> dict[str, Any]:
    try:
        obj = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ProtocolError(f"malformed frame body: {exc}") from None
    if not isinstance(obj, dict) or "t" not in obj:
        raise ProtocolError("frame body is not an object with a 't' (type) key")
    return obj


def request_to_wire(request: EvalRequest) -> dict[str, Any]:
    """EvalRequest -> JSON-ready dict (lossless for NaN/inf)."""
    return request.model_dump(mode="json")


def request_from_wire(data: Any) -> EvalRequest:
    """Inverse of :func:`request_to_wire`."""
    return EvalRequest.model_validate(data)


def result_to_wire(result: EvalResult) -> dict[str, Any]:
    """EvalResult -> JSON-ready dict (lossless for NaN/inf)."""
    return result.model_dump(mode="json")


def result_from_wire(data: Any) -> EvalResult:
    """Inverse of :func:`result_to_wire`."""
    return EvalResult.model_validate(data)


# ---------------------------------------------------------------- parent side (deadlines)

def write_frame(fd: int, obj: dict[str, Any], deadline: float) -> None:
    """Write one frame to a non-blocking fd before ``deadline`` (``time.monotonic``).

    Raises:
        FrameTimeout: the peer did not drain the pipe in time.
        BrokenPipeError: the peer is gone.
    """
    data = memoryview(encode(obj))
    while data:
        left = deadline - time.monotonic()
        if left <= 0:
            raise FrameTimeout("peer did not accept the frame in time")
        _, ready, _ = select.select([], [fd], [], left)
        if not ready:
            continue
        try:
            n = os.write(fd, data)
        except BlockingIOError:
            continue
        data = data[n:]


class FrameReader:
    """Reads frames from a non-blocking fd with deadlines and a liveness probe."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        os.set_blocking(fd, False)
        self._buf = bytearray()
        self.eof = False

    def _take(self) -> dict[str, Any] | None:
        if len(self._buf) < _HEADER.size:
            return None
        (n,) = _HEADER.unpack_from(self._buf)
        if n > MAX_FRAME_BYTES:
            raise ProtocolError(f"announced frame of {n} bytes exceeds the limit")
        if len(self._buf) < _HEADER.size + n:
            return None
        body = bytes(self._buf[_HEADER.size:_HEADER.size + n])
        del self._buf[:_HEADER.size + n]
        return _decode_body(body)

    def read(self, deadline: float, dead: Callable[[], bool] | None = None,
             poll_s: float = 0.25) -> dict[str, Any]:
        """Return the next frame.

        Args:
            deadline: ``time.monotonic()`` value after which :class:`FrameTimeout` is raised.
            dead: optional probe; when it returns True and no complete frame is buffered or
                immediately readable, :class:`EOFError` is raised (the peer died while a forked
                child still holds the pipe open, so EOF would never come).
            poll_s: how often ``dead`` is consulted.

        Raises:
            FrameTimeout, EOFError, ProtocolError.
        """
        while True:
            frame = self._take()
            if frame is not None:
                return frame
            if self.eof:
                raise EOFError("peer closed the channel")
            left = deadline - time.monotonic()
            if left <= 0:
                raise FrameTimeout("no frame before the deadline")
            ready, _, _ = select.select([self.fd], [], [], min(left, poll_s))
            if ready:
                self._fill()
            elif dead is not None and dead():
                self._fill()  # whatever the dead peer left behind
                frame = self._take()
                if frame is not None:
                    return frame
                raise EOFError("peer process exited")

    def _fill(self) -> None:
        while True:
            try:
                chunk = os.read(self.fd, 1 << 20)
            except BlockingIOError:
                return
            except OSError:
                self.eof = True
                return
            if not chunk:
                self.eof = True
                return
            self._buf += chunk


# ---------------------------------------------------------------- worker side (blocking)

def write_frame_blocking(fd: int, obj: dict[str, Any]) -> None:
    """Write one whole frame to a blocking fd."""
    data = memoryview(encode(obj))
    while data:
        n = os.write(fd, data)
        data = data[n:]


def _read_exact(fd: int, n: int) -> bytes | None:
    parts, got = [], 0
    while got < n:
        chunk = os.read(fd, min(n - got, 1 << 20))
        if not chunk:
            return None
        parts.append(chunk)
        got += len(chunk)
    return b"".join(parts)


def read_frame_blocking(fd: int) -> dict[str, Any] | None:
    """Read one frame from a blocking fd; None on a clean EOF between frames."""
    head = _read_exact(fd, _HEADER.size)
    if head is None:
        return None
    (n,) = _HEADER.unpack(head)
    if n > MAX_FRAME_BYTES:
        raise ProtocolError(f"announced frame of {n} bytes exceeds the limit")
    body = _read_exact(fd, n)
    if body is None:
        raise ProtocolError("channel closed in the middle of a frame")
    return _decode_body(body)
