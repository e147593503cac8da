"""kernelopt: a harness-centred platform for LLM-driven GPU kernel optimisation."""

__version__ = "0.1.0"
