"""The offline generator: deterministic parameter search over seed kernels (no LLM).

* No parent: one candidate per seed at its defaults (the baseline).
* Parent + direction: apply the direction's moves to the parent's parameters (``"+1"``/``"-1"``
  step along the value list, clamped at its ends; a literal sets the value); when that point is
  invalid or already seen, or more candidates are wanted, the direction's partial moves come next
  (a compound direction's moves on fewer of its parameters, most parameters first, declared order:
  ``wider_tiles`` = BLOCK_M+1 and BLOCK_N+1 whose tile breaks a constraint still widens one side),
  then neighbours reached by random single-parameter steps from the whole move. The random stream
  for attempt ``i`` comes from ``random.Random(sha256(seed, parent hash, direction, i))``, so
  proposals depend only on the generator seed, the parent, the direction and the campaign history.
  After every 16 fruitless attempts the walk takes one more step, widening the neighbourhood.
* Parent + direction ``model_guided`` (:data:`~kernelopt.generators.surrogate.MODEL_GUIDED`, asked for by the
  controller's ``surrogate`` rule): the unmeasured points of the parent's seed space with the lowest GP lower
  confidence bound fitted to the campaign's measurements of that seed's points (:mod:`kernelopt.generators.surrogate`;
  kernel, length scale and kappa from the decision's ``surrogate`` evidence row, else rbf / 0.5 / 1).
* A decision whose ``surrogate`` row says ``neighbours``: after the direction's moves, the unseen points nearest the
  move (fewest level steps) ranked by that GP take the random walk's place.
"""

from __future__ import annotations

import hashlib
import random
from pathlib import Path
from typing import Any

from kernelopt.data.loader import DataError
from kernelopt.data.solution import Solution
from kernelopt.generators.base import GenerationContext, kernelopt_extra
from kernelopt.generators.seeds import Seed, load_seeds, read_params_line
from kernelopt.generators.surrogate import MODEL_GUIDED, measured_latencies, propose_points, relative_log_latency

ATTEMPTS_PER_CANDIDATE = 64
ATTEMPTS_PER_RADIUS = 16


def random_step(seed: Seed, params: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """``params`` with one parameter moved one position along its value list."""
    keys = [k for k, v in seed.spec.space.items() if len(v) > 1]
    if not keys:
        return dict(params)
    key = rng.choice(keys)
    values = seed.spec.space[key]
    i = values.index(params[key])
    options = [j for j in (i - 1, i + 1) if 0 <= j < len(values)]
    out = dict(params)
    out[key] = values[rng.choice(options)]
    return out


def _rng(seed: int, parent_hash: str, direction: str | None, index: int) -> random.Random:
    key = f"{seed}|{parent_hash}|{direction}|{index}".encode()
    return random.Random(int.from_bytes(hashlib.sha256(key).digest()[:8], "big"))


class OfflineGenerator:
    """Seed-based parameter search; see the module docstring.

    Args:
        seed: Random seed of the neighbour walk.
        root: Operator library root holding ``<operator>/solutions/seeds/`` (default: the library
            in effect, ``$KERNELOPT_OPERATORS_DIR`` or ``operators/``).
        hardware: Where the candidates run (a ``target_hardware`` name such as ``CPU-interpreter``); seeds
            whose ``target_hardware`` does not list it are left out. ``None``: every seed.
    """

    name = "offline"

    def __init__(self, seed: int = 0, root: str | Path | None = None, hardware: str | None = None) -> None:
        self.seed = int(seed)
        self.root = Path(root) if root is not None else None
        self.hardware = hardware
        self._seeds: dict[str, list[Seed]] = {}
        self._points: dict[int, tuple[Seed, list[dict[str, Any]], dict[str, int]]] = {}

    def seeds(self, operator: str) -> list[Seed]:
        """The operator's seeds that run on ``hardware`` (loaded once).

        Raises:
            DataError: none of the operator's seeds lists ``hardware`` in its ``target_hardware``.
        """
        if operator not in self._seeds:
            seeds = load_seeds(operator, self.root)
            if self.hardware is not None:
                runnable = [s for s in seeds if self.hardware in s.spec.target_hardware]
                if not runnable:
                    raise DataError(f"operator '{operator}': none of its seeds runs on {self.hardware} "
                                    f"({ {s.name: s.spec.target_hardware for s in seeds} })")
                seeds = runnable
            self._seeds[operator] = seeds
        return self._seeds[operator]

    def directions(self, operator: str, seed_name: str) -> list[str]:
        """Direction names a seed declares."""
        return next(s.direction_names for s in self.seeds(operator) if s.name == seed_name)

    def parent_point(self, ctx: GenerationContext) -> tuple[Seed, dict[str, Any]]:
        """Which seed the parent instantiates, and at which parameters.

        Uses the parent's ``kernelopt`` extra (or ``ctx.parent_params``); failing that, reads the
        parent's ``PARAMS`` line and finds the seed whose instantiation reproduces its hash.

        Raises:
            ValueError: the parent is not an instantiation of any seed of the operator.
        """
        assert ctx.parent is not None
        seeds = {s.name: s for s in self.seeds(ctx.operator)}
        extra = kernelopt_extra(ctx.parent)
        params = ctx.parent_params or extra.get("params")
        name = extra.get("seed")
        if name in seeds and isinstance(params, dict) and seeds[name].in_space(params):
            return seeds[name], dict(params)
        entry = ctx.parent.spec.entry_file
        try:
            found = read_params_line(ctx.parent.source(entry), f"{ctx.parent.name}:{entry}")
        except (KeyError, ValueError):
            found = None
        target = ctx.parent.hash()
        for seed in seeds.values():
            if found is not None and seed.valid(found) and seed.instantiate(found).hash() == target:
                return seed, found
        raise ValueError(f"offline generator: parent solution '{ctx.parent.name}' is not an instantiation of "
                         f"any seed of '{ctx.operator}' ({sorted(seeds)})")

    def propose(self, ctx: GenerationContext) -> list[Solution]:
        """Candidates for one round (see the module docstring); may return fewer than ``ctx.count``."""
        if ctx.parent is None:
            return [s.instantiate(None) for s in self.seeds(ctx.operator)]
        if ctx.count <= 0:
            return []
        seed, parent_params = self.parent_point(ctx)
        parent_hash = ctx.parent.hash()
        seen = {r.solution_hash for r in ctx.history} | {parent_hash}
        out: list[Solution] = []

        def offer(params: dict[str, Any]) -> None:
            if not seed.valid(params):
                return
            sol = seed.instantiate(params)
            if sol.hash() not in seen:
                seen.add(sol.hash())
                out.append(sol)

        if ctx.direction == MODEL_GUIDED:
            return self._model_guided(ctx, seed, seen)
        d = seed.spec.directions.get(ctx.direction) if ctx.direction else None
        moved = seed.move_points(parent_params, d.moves) if d is not None else []
        base = moved[0] if moved else dict(parent_params)
        for point in moved:  # the whole move, then its partial moves
            if len(out) >= ctx.count:
                break
            offer(point)
        if len(out) < ctx.count and _surrogate_row(ctx).get("neighbours"):
            out += self._ranked_neighbours(ctx, seed, base, seen, ctx.count - len(out))
        for i in range(ATTEMPTS_PER_CANDIDATE * ctx.count):
            if len(out) >= ctx.count:
                break
            rng = _rng(self.seed, parent_hash, ctx.direction, i)
            point = base
            for _ in range(1 + i // ATTEMPTS_PER_RADIUS):
                point = random_step(seed, point, rng)
            offer(point)
        return out

    def space_index(self, seed: Seed) -> tuple[list[dict[str, Any]], dict[str, int]]:
        """The seed's valid points and each one's solution hash -> its index (computed once per seed)."""
        key = id(seed)  # the entry holds the seed itself, so its id is not reused while the entry lives
        if key not in self._points:
            points = seed.valid_points()
            self._points[key] = (seed, points, {seed.instantiate(p).hash(): i for i, p in enumerate(points)})
        _, points, index = self._points[key]
        return points, index

    def _model_guided(self, ctx: GenerationContext, seed: Seed, seen: set[str]) -> list[Solution]:
        """The ``model_guided`` round (module docstring): GP-LCB over the seed's points measured so far."""
        points, measured = self._fit(ctx, seed)
        if ctx.parent is not None and self.space_index(seed)[1].get(ctx.parent.hash()) not in measured:
            return []  # the parent's own measurement is not in the history: nothing to fit on
        order = propose_points(seed.spec.space, points, measured, ctx.count + len(seen), **_surrogate_options(ctx))
        return _take_unseen(seed, [points[i] for i in order], seen, ctx.count)

    def _fit(self, ctx: GenerationContext, seed: Seed) -> tuple[list[dict[str, Any]], dict[int, float]]:
        """The seed's valid points and the campaign's measured targets on them (point index -> log latency)."""
        points, index = self.space_index(seed)
        mine = [r for r in ctx.history if r.solution_hash in index]
        return points, {index[h]: y for h, y in relative_log_latency(measured_latencies(mine)).items()}

    def _ranked_neighbours(self, ctx: GenerationContext, seed: Seed, base: dict[str, Any], seen: set[str],
                           count: int) -> list[Solution]:
        """Up to ``count`` unseen points nearest ``base`` (fewest level steps; the radius grows until it holds
        ``count`` of them), the surrogate's best first: the round's neighbours chosen by the model, not at random."""
        points, measured = self._fit(ctx, seed)
        if not measured:
            return []
        space = seed.spec.space
        rank = {i: r for r, i in enumerate(propose_points(space, points, measured, len(points),
                                                          **_surrogate_options(ctx)))}

        def steps(p: dict[str, Any]) -> int:
            return sum(abs(list(space[k]).index(p[k]) - list(space[k]).index(base[k])) for k in space)
        free = [i for i in rank if seed.instantiate(points[i]).hash() not in seen]
        free.sort(key=lambda i: (steps(points[i]), rank[i]))
        if len(free) > count:  # the radius holding `count` points, then the model's order inside it
            radius = steps(points[free[count - 1]])
            free = sorted((i for i in free if steps(points[i]) <= radius), key=rank.__getitem__)
        return _take_unseen(seed, [points[i] for i in free], seen, count)


def _take_unseen(seed: Seed, ordered: list[dict[str, Any]], seen: set[str], count: int) -> list[Solution]:
    """The first ``count`` of ``ordered`` (points of ``seed``) whose solutions are not in ``seen``, instantiated and
    added to it."""
    out: list[Solution] = []
    for p in ordered:
        if len(out) >= count:
            break
        sol = seed.instantiate(p)
        if sol.hash() not in seen:
            seen.add(sol.hash())
            out.append(sol)
    return out


def _surrogate_row(ctx: GenerationContext) -> dict[str, Any]:
    """The detail of the decision's ``surrogate`` evidence row (``{}`` when it has none)."""
    rows = [e for e in (ctx.decision.evidence if ctx.decision is not None else []) if e.kind == "surrogate"]
    return dict(rows[-1].detail) if rows else {}


def _surrogate_options(ctx: GenerationContext) -> dict[str, Any]:
    """Kernel, length scale and kappa of the surrogate: the decision's ``surrogate`` evidence row's, else the
    defaults of :func:`~kernelopt.generators.surrogate.propose_points`."""
    d = _surrogate_row(ctx)
    return {k: d[k] for k in ("name", "ls", "kappa") if k in d}
