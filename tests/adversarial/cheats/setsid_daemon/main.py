"""On its first call, double-forks a ``sleep`` into a new session and writes its pid to ``$ADV_PIDFILE``; the
result itself is honest."""
import os

import torch

_STARTED = []


def _rms(x, w):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-5) * w.float()).to(x.dtype)


def _daemon() -> None:
    pid = os.fork()
    if pid == 0:  # child: new session, fork the daemon, exit so the daemon is orphaned
        os.setsid()
        grandchild = os.fork()
        if grandchild == 0:
            os.execvp("sleep", ["sleep", "300"])
        with open(os.environ.get("ADV_PIDFILE", os.devnull), "w") as fh:
            fh.write(str(grandchild))
        os._exit(0)
    os.waitpid(pid, 0)


def run(hidden_states, weight):
    if not _STARTED:
        _STARTED.append(True)
        _daemon()
    return _rms(hidden_states, weight)
