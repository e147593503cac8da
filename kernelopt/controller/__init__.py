"""The profile-backed controller: pure decisions over campaign state (no I/O, no torch/mlflow)."""

from kernelopt.controller.budget import Budget, Rules
from kernelopt.controller.decide import decide
from kernelopt.controller.noise import noise_floor
from kernelopt.controller.promotion import gate
from kernelopt.controller.selection import SolutionRuns, group_by_solution, is_champion

__all__ = ["Budget", "Rules", "SolutionRuns", "decide", "gate", "group_by_solution", "is_champion", "noise_floor"]
