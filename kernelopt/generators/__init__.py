"""Candidate generators: turn a ``GenerationContext`` into candidate ``Solution``s."""

from kernelopt.generators.base import AgentMode, GenerationContext, Generator, kernelopt_extra
from kernelopt.generators.offline import OfflineGenerator
from kernelopt.generators.registry import (
    UnknownGeneratorError,
    known_generators,
    make_generator,
    register_generator,
)
from kernelopt.generators.seeds import Seed, load_seed, load_seeds

__all__ = [
    "AgentMode", "GenerationContext", "Generator", "OfflineGenerator", "Seed", "UnknownGeneratorError",
    "kernelopt_extra", "known_generators", "load_seed", "load_seeds", "make_generator", "register_generator",
]
