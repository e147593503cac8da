"""API-key scrubbing shared by the generators: the values of the key variables and ``sk-...`` tokens."""

from __future__ import annotations

import os
import re

KEY_ENV_VARS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")
KEY_PATTERN = re.compile(r"\b(sk-[A-Za-z0-9_\-]{12,}|sk-ant-[A-Za-z0-9_\-]{12,})\b")
REDACTED = "[REDACTED]"


def scrub(text: str) -> str:
    """``text`` with API keys (the values of the key variables, and ``sk-...`` tokens) redacted."""
    for var in KEY_ENV_VARS:
        value = os.environ.get(var)
        if value and len(value) >= 6:
            text = text.replace(value, REDACTED)
    return KEY_PATTERN.sub(REDACTED, text)


def holds_key(text: str) -> bool:
    """Whether ``text`` contains something :func:`scrub` would redact."""
    return scrub(text) != text
