"""Evaluation harness: build, check, time and record one solution (runs inside worker processes;
knows nothing of MLflow, Hydra or LLMs)."""
