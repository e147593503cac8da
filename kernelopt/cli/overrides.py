"""Hydra overrides checked before a command runs: a misspelt key, a value of the wrong type or an unknown
config option is one line on stderr and exit code 2 (Hydra's own report is several lines of its internals
and exit code 1, the code `kernelopt evaluate` uses for a failed workload)."""

from __future__ import annotations

from pathlib import Path

QUOTE_HINT = ("values holding '=', '@', ',' or spaces need quotes, e.g. "
              "\"solution='operators/<def>/solutions/seeds/<seed>@K=V'\"")


def _lines(exc: BaseException) -> list[str]:
    """The message's non-blank lines, stripped, before Hydra's config search path listing."""
    return [ln.strip() for ln in str(exc).split("Config search path")[0].splitlines() if ln.strip()]


def override_problem(config_dir: Path, command: str, overrides: list[str]) -> str | None:
    """What is wrong with ``overrides`` for the config ``command`` (one line), or ``None`` when they compose.

    Multirun sweeps (``-m``) and Hydra's own flags are left to Hydra: sweep values (``a=1,2``) do not compose
    as one config (only a ``+key`` the command lacks is refused there too)."""
    if any(o.startswith("-") for o in overrides):  # -m, --cfg, -c job, -sc install=bash ...: Hydra's own
        return _launcher_problem(overrides) or _added_key_problem(config_dir, command, overrides)
    from hydra import compose, initialize_config_dir
    from hydra.errors import HydraException, MissingConfigException, OverrideParseException
    from omegaconf.errors import OmegaConfBaseException

    try:
        with initialize_config_dir(config_dir=str(config_dir), version_base="1.3"):
            compose(config_name=command, overrides=list(overrides))
    except MissingConfigException as exc:  # an unknown option of a config group: keep Hydra's list of options
        first, *options = _lines(exc)
        if len(options) < 2:
            return first
        names = [o for o in options[1:] if not o.endswith("_schema")]  # the structured configs' store entries
        return f"{first}; {options[0].rstrip(':')}: {', '.join(names)}"
    except OverrideParseException as exc:
        return f"{str(exc).splitlines()[0]} ({QUOTE_HINT})"
    except (HydraException, OmegaConfBaseException) as exc:
        cause = exc.__cause__
        if cause is None:  # Hydra's own message (e.g. an ambiguous value and how to write it): every line
            return "; ".join(_lines(exc))
        lines = [str(exc).splitlines()[0], str(cause).splitlines()[0]]
        return ": ".join(ln.strip().rstrip(".") for ln in lines if ln.strip())
    return _launcher_problem(overrides) or _added_key_problem(config_dir, command, overrides)


def _launcher_problem(overrides: list[str]) -> str | None:
    """``hydra.launcher.n_jobs`` below 1 (joblib's own report was a traceback: 'n_jobs == 0 in Parallel has no
    meaning')."""
    for override in overrides:
        key, _, value = override.lstrip("+").partition("=")
        if key == "hydra.launcher.n_jobs" and "0" in (v.strip() for v in value.split(",")):
            return f"{override}: 0 jobs run nothing; give how many run at once (-1: one per core)"
    return None


def _added_key_problem(config_dir: Path, command: str, overrides: list[str]) -> str | None:
    """Hydra's ``+key=value`` adds a key the command's schema lacks; nothing would read it, so refuse it
    (a group selection such as ``+experiment=mode_ablation`` and Hydra's own ``hydra.*`` keys pass)."""
    from hydra.core.config_store import ConfigStore
    from omegaconf import DictConfig

    try:
        schema = ConfigStore.instance().load(f"{command}_schema.yaml").node
    except Exception:  # noqa: BLE001 - a command without a registered schema: nothing to check against
        return None
    for override in overrides:
        if not override.startswith("+") or "=" not in override:
            continue
        key = override.lstrip("+").split("=", 1)[0].strip()
        parts = key.replace("/", ".").split(".")
        if parts[0] == "hydra" or "/" in key or (config_dir / key).is_dir():
            continue
        node = schema
        for part in parts:
            if not isinstance(node, DictConfig) or part not in node:
                return (f"{override}: kernelopt {command} has no key '{key}', so nothing would read it "
                        f"(`kernelopt {command} --help` lists its keys)")
            node = node._get_node(part)
    return None
