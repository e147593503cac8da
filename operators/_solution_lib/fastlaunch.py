"""Low-overhead launches of ``@triton.jit`` kernels, for solutions that issue several launches per call.

A solution carries this file in its sources (seed folders link it as ``fastlaunch.py``); it imports torch and
triton only. Why: the official timing spans a call's first kernel start to its last kernel end, so on a host
that takes longer to issue a launch than the previous kernel runs, the host's launch time is measured. On the
H200 host (``benchmarks/launch_overhead.py``, 2026-12-01 call AH) ``kernel[grid](...)`` adds 14 / 20 / 34 us per
extra launch at 4 / 12 / 24 parameters, a warmed-up compiled kernel's own launcher 10 / 12 / 20 us: Triton's JIT
path binds the arguments, computes their specialisation and looks the kernel up on every call.

``fast(kernel)[grid](*args, **constexprs_and_options)`` takes the JIT path the first time it sees a
specialisation of the arguments (compiling or finding the kernel exactly as ``kernel[grid](...)`` does, and
launching it), keeps the compiled kernel, and sends later calls with the same specialisation straight to its
launcher. The key over-approximates Triton's specialisation: per tensor its dtype, device and 16-byte alignment;
per int whether it is 1, a multiple of 16, and its integer width; constexpr parameters, keyword options
(num_warps, num_stages), bools and strings by value (launch on the device of the tensor arguments). Parameters after the positional ones
are taken from the keywords or their defaults (a parameter with neither: the call always takes the JIT path). Under the Triton interpreter (``TRITON_INTERPRET=1``), or with
``KERNELOPT_FASTLAUNCH=0``, every call takes the JIT path.
"""

import inspect
import os

import torch

_JIT_ONLY = os.environ.get("TRITON_INTERPRET", "0") == "1" or os.environ.get("KERNELOPT_FASTLAUNCH", "1") == "0"


def spec(value):
    """The part of an argument a compiled kernel may depend on (hashable)."""
    if isinstance(value, torch.Tensor):
        return ("t", value.dtype, value.device, value.data_ptr() % 16 == 0)
    if isinstance(value, bool):
        return ("b", value)
    if isinstance(value, int):
        return ("i", value == 1, value % 16 == 0, -2**31 <= value < 2**31, value >= 2**63)
    if isinstance(value, float):
        return ("f",)
    return ("v", value)


class FastKernel:
    """``fast(kernel)``: a launcher with ``kernel``'s ``[grid](...)`` call syntax (see the module docstring)."""

    def __init__(self, fn):
        self.fn = fn
        self.names = list(fn.arg_names)
        self.const_pos = set(getattr(fn, "constexprs", ()))  # constexprs are keyed by value
        self.by_value = {n for i, n in enumerate(self.names) if i in self.const_pos}
        self.defaults = {p.name: p.default for p in getattr(fn, "params", ())
                         if getattr(p, "default", inspect.Parameter.empty) is not inspect.Parameter.empty}
        self.compiled = {}
        self.jit_calls = 0  # calls that took the JIT path (tests and diagnostics)

    def __getitem__(self, grid):
        def launch(*args, **kwargs):
            return self.launch(grid, args, kwargs)
        return launch

    def launch(self, grid, args, kwargs):
        if _JIT_ONLY:
            self.jit_calls += 1
            return self.fn[grid](*args, **kwargs)
        key = (tuple(("v", a) if i in self.const_pos else spec(a) for i, a in enumerate(args)),
               tuple(sorted((k, ("v", v) if k in self.by_value or k not in self.names else spec(v))
                            for k, v in kwargs.items())))
        hit = self.compiled.get(key)
        if hit is None:
            self.jit_calls += 1
            kernel = self.fn[grid](*args, **kwargs)
            rest = self.names[len(args):]
            if (kernel is not None and hasattr(kernel, "__getitem__")
                    and all(n in kwargs or n in self.defaults for n in rest)):
                self.compiled[key] = (kernel, rest)
            return kernel
        kernel, rest = hit
        tail = [kwargs[n] if n in kwargs else self.defaults[n] for n in rest]  # every parameter, signature order
        kernel[(tuple(grid) + (1, 1))[:3]](*args, *tail)
        return kernel


def fast(fn):
    """Wrap a ``@triton.jit`` kernel in a :class:`FastKernel`."""
    return FastKernel(fn)
