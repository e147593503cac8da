"""What a worker's sandboxes got, as every evaluation records it (``environment["sandbox"]``).

The executor sets the sandboxes up (:mod:`kernelopt.executor.netns`, :mod:`kernelopt.executor.readonly_mounts`) and
puts each one's status in the variable named here; the harness only reads them. The names live here, in the layer
below the executor, so the harness imports nothing from it. No torch: the worker imports this before it unshares
its namespaces, while it is still single-threaded.
"""

from __future__ import annotations

import os

#: kind -> (the variable the worker sets to its status, e.g. ``isolated (net namespace)``; the word of the
#: sandbox's off mode)
SANDBOX_STATUS: dict[str, tuple[str, str]] = {
    "network": ("KERNELOPT_WORKER_NETWORK_STATUS", "host"),
    "files": ("KERNELOPT_WORKER_FILES_STATUS", "writable"),
}


def sandbox_status() -> dict[str, str]:
    """This process's sandboxes as its worker set them up (``off`` mode words with "in-process evaluation" where no
    worker did)."""
    return {kind: os.environ.get(var) or f"{off} (in-process evaluation, not a worker)"
            for kind, (var, off) in SANDBOX_STATUS.items()}
