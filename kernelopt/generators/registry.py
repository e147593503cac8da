"""Generator backends by name: ``make_generator("offline", seed=0)``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kernelopt.generators.base import Generator
from kernelopt.generators.offline import OfflineGenerator


class UnknownGeneratorError(ValueError):
    """No generator of that name; the message lists the known ones."""


GENERATORS: dict[str, Callable[..., Generator]] = {
    "offline": OfflineGenerator,
}


def _lazy(module: str, cls: str) -> Callable[..., Generator]:
    """A factory importing its backend module only when used (SDKs stay optional)."""
    def factory(**cfg: Any) -> Generator:
        import importlib

        return getattr(importlib.import_module(module), cls)(**cfg)
    return factory


GENERATORS.update({
    "openai": _lazy("kernelopt.generators.openai_backend", "OpenAIGenerator"),
    "anthropic": _lazy("kernelopt.generators.anthropic_backend", "AnthropicGenerator"),
    "claude_code": _lazy("kernelopt.generators.cli_agents", "ClaudeCodeGenerator"),
    "codex": _lazy("kernelopt.generators.cli_agents", "CodexGenerator"),
})


def register_generator(name: str, factory: Callable[..., Generator]) -> None:
    """Make a backend available to :func:`make_generator` (later registrations replace earlier ones)."""
    if not name or not name.isidentifier():
        raise ValueError(f"generator name must be an identifier, got {name!r}")
    GENERATORS[name] = factory


def known_generators() -> list[str]:
    """Registered generator names, sorted."""
    return sorted(GENERATORS)


def make_generator(name: str, **cfg: Any) -> Generator:
    """Build the generator ``name`` with keyword configuration ``cfg``.

    Raises:
        UnknownGeneratorError: ``name`` is not registered (lists the known names).
        ValueError: the backend rejects ``cfg`` (the message names the generator and the keys).
    """
    try:
        factory = GENERATORS[name]
    except KeyError:
        raise UnknownGeneratorError(
            f"unknown generator '{name}'; known generators: {', '.join(known_generators())}") from None
    try:
        return factory(**cfg)
    except TypeError as exc:
        raise ValueError(f"generator '{name}': bad configuration {sorted(cfg)}: {exc}") from None
