"""A long MoE call's host side as one plan per call shape: every buffer allocated once, every launch's constexprs
and options bound once, later launches sent straight to each compiled kernel's launcher.

``LongPlan(t, device, stream, cfg, kernels)`` holds, for calls of ``t`` tokens on one device and stream: the routing's
ids and weights, the counting sort's work buffer, the sorted order, each pair's row, the tile table, the FP8
intermediate and its scales, GEMM2's per-pair rows, a pinned host copy of the tile table (the exact grid's count) and
the event that marks that copy done. ``plan(...)`` issues the call's seven steps (routing, count-and-plan, place,
under ``exact`` the table's copy and the host's count, GEMM1, GEMM2, combine) with the kernels and arguments the
layered entry point (``q8tw.py`` over ``q8tc.py``, ``q8td.py``, ``q8ex.py``, ``q8rt.py``, ``q8.py``) gives them.
``LongPlans`` keeps the last few plans by key. The buffers are reused call after call: on one stream each call's
kernels run after the previous call's, and every buffer a kernel reads is written earlier in the same call.
"""

from __future__ import annotations

import inspect
from collections import OrderedDict

import torch
import triton


def _padded(grid: tuple) -> tuple:
    return (tuple(grid) + (1, 1))[:3]


class BoundLaunch:
    """One kernel at fixed constexprs and options (``kw``): the first launch through Triton's JIT (compiling or
    finding the kernel), later ones straight to the compiled kernel's launcher with the signature's remaining
    parameters appended (no argument binding, no specialisation key: the plan's key holds what the kernel was
    specialised on). Under the interpreter every launch is the JIT one."""

    def __init__(self, fn, interpret: bool, **kw) -> None:
        self.fn, self.interpret, self.kw = fn, interpret, kw
        self.compiled = None
        self.tail: tuple = ()
        self.launches = 0

    def __call__(self, grid: tuple, *args) -> None:
        self.launches += 1
        if self.compiled is not None:
            self.compiled[_padded(grid)](*args, *self.tail)
            return
        kernel = self.fn[grid](*args, **self.kw)
        if self.interpret or not hasattr(kernel, "__getitem__"):
            return
        defaults = {p.name: p.default for p in getattr(self.fn, "params", ())
                    if getattr(p, "default", inspect.Parameter.empty) is not inspect.Parameter.empty}
        rest = list(self.fn.arg_names)[len(args):]
        if all(n in self.kw or n in defaults for n in rest):
            self.tail = tuple(self.kw[n] if n in self.kw else defaults[n] for n in rest)
            self.compiled = kernel


class LongPlan:
    """The buffers and bound launches of calls of ``t`` tokens (``cfg``: the sizes and the seed's parameters as
    plain values; ``kernels``: the ``@triton.jit`` functions by step)."""

    def __init__(self, t: int, device: torch.device, cfg: dict, kernels: dict) -> None:
        c = self.cfg = cfg
        self.t, self.device = t, device
        topk, bm = c["TOPK"], c["BLOCK_M"]
        hidden, inter, chunk, keys = c["H"], c["I"], c["CHUNK"], c["KEYS"]
        n_pairs = self.n_pairs = t * topk
        self.n_chunks = triton.cdiv(n_pairs, chunk)
        self.n_bound = min(n_pairs, triton.cdiv(n_pairs, bm) + c["NUM_LOCAL"])  # q8's bound: a tile holds a pair
        i32 = {"dtype": torch.int32, "device": device}
        self.ids = torch.empty((t, topk), **i32)
        self.rw = torch.empty((t, topk), dtype=torch.float32, device=device)
        self.rw_flat = self.rw.reshape(-1)
        work = torch.empty(2 * self.n_chunks * keys + 3 * keys, **i32)
        n = self.n_chunks * keys
        self.counts, self.base, self.keyv = work[:n], work[n:2 * n], work[2 * n:]
        self.order = torch.empty(n_pairs, **i32)
        self.pos = torch.empty(n_pairs, **i32)
        self.table = torch.empty((self.n_bound, 3), **i32)
        self.h = torch.empty((n_pairs, inter), dtype=torch.float8_e4m3fn, device=device)
        self.h_scale = torch.empty((n_pairs, inter // c["BLOCK_N"]), dtype=torch.float32, device=device)
        self.y = torch.empty((n_pairs, hidden), dtype=torch.bfloat16 if c["Y_BF16"] else torch.float32,
                             device=device)
        self.exact = c["LONG_GRID"] == "exact"
        cuda = device.type == "cuda"
        self.host_table = (torch.empty((self.n_bound, 3), dtype=torch.int32, pin_memory=True) if cuda
                           else self.table)  # on the CPU (the interpreter) the table is the host's
        self.host_rows = self.host_table[:, 2].numpy()
        self.copied = torch.cuda.Event() if cuda else None
        self.last_tiles = 0  # the GEMMs' last grid (tiles): tests and diagnostics
        ip = c["INTERPRET"]
        self.route = BoundLaunch(kernels["route"], ip, E=c["E_ALL"], NG=c["NG"], KG=c["KG"], TOPK=topk,
                                 num_warps=c["ROUTE_WARPS"])
        self.count_plan = BoundLaunch(kernels["count_plan"], ip, CHUNK=chunk, KEYS=keys, NUM_LOCAL_C=c["NUM_LOCAL"],
                                      BLOCK_M=bm, NC_PAD=max(triton.next_power_of_2(self.n_chunks), 2),
                                      TILE_BLOCK=c["TILE_BLOCK"], num_warps=4)
        self.place = BoundLaunch(kernels["place"], ip, CHUNK=chunk, KEYS=keys, NUM_LOCAL_C=c["NUM_LOCAL"],
                                 num_warps=4)
        self.gemm1 = BoundLaunch(kernels["gemm1"], ip, H=hidden, I=inter, TOPK=topk, BLOCK_M=bm,
                                 BLOCK_N=c["BLOCK_N"], BLOCK_K=c["SCALE_BLOCK"], NUM_STAGES=c["num_stages"],
                                 UPCAST=ip, QMAX=c["QMAX"], num_warps=c["num_warps"], num_stages=c["num_stages"],
                                 E=c["NUM_LOCAL"], A_SORTED=0)
        self.gemm2 = BoundLaunch(kernels["gemm2"], ip, H=hidden, I=inter, BLOCK_M=bm, BLOCK_N=c["BLOCK_N2"],
                                 BLOCK_K=c["BLOCK_N"], SCALE_K=c["SCALE_BLOCK"], NUM_STAGES=c["num_stages"],
                                 UPCAST=ip, num_warps=c["NUM_WARPS2"], num_stages=c["num_stages"], E=c["NUM_LOCAL"])
        self.combine = BoundLaunch(kernels["combine"], ip, H=hidden, TOPK=topk, BLOCK_H=c["COMBINE_BLOCK_H"],
                                   num_warps=4)
        self.counter = kernels["counter"](device)

    def __call__(self, logits, bias, hs, hs_scale, w1, w1_s, w2, w2_s, offset: int, scale: float, output) -> None:
        t, c = self.t, self.cfg
        self.route((t,), logits, bias, self.ids, self.rw, scale)
        self.count_plan((self.n_chunks,), self.ids, self.counts, self.counter, self.base, self.keyv, self.table,
                        offset, self.n_pairs, self.n_bound)
        self.place((self.n_chunks,), self.ids, self.base, self.order, self.pos, offset, self.n_pairs)
        tiles = self.n_bound
        if self.exact:  # one sync: the number of tiles with rows (they are the table's first entries)
            if self.copied is not None:
                self.host_table.copy_(self.table, non_blocking=True)
                self.copied.record()
                self.copied.synchronize()
            tiles = max(int((self.host_rows != 0).sum()), 1)
        self.last_tiles = tiles
        self.gemm1((tiles, c["I"] // c["BLOCK_N"]), hs, hs_scale, w1, w1_s, self.table, self.order, self.h,
                   self.h_scale, t, hs, t)
        self.gemm2((tiles, c["H"] // c["BLOCK_N2"]), self.h, self.h_scale, w2, w2_s, self.table, self.y,
                   self.n_pairs)
        self.combine((t, triton.cdiv(c["H"], c["COMBINE_BLOCK_H"])), self.y, self.pos, self.rw_flat, output)


class LongPlans:
    """The last ``keep`` plans by key (tokens, device, stream, the seed's parameters, the arguments' specialisation)."""

    def __init__(self, keep: int = 4) -> None:
        self.keep = keep
        self.plans: OrderedDict = OrderedDict()
        self.built = 0

    def get(self, key: tuple, make) -> LongPlan:
        plan = self.plans.get(key)
        if plan is None:
            plan = self.plans[key] = make()
            self.built += 1
            while len(self.plans) > self.keep:
                self.plans.popitem(last=False)
        else:
            self.plans.move_to_end(key)
        return plan
