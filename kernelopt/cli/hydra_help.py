"""`kernelopt optimize|evaluate|prompt --help`: the command's config groups and its composed config.

Hydra's own help is headed "Main is powered by Hydra." and lists, beside each group's YAML options, the
structured-config entries the YAML files extend (`controller_schema`, ...), which are no option to pick. This one
lists the options a user can pick (the group folders' YAML files) and the config as the given overrides compose
it; Hydra's flags stay behind `--hydra-help`."""

from __future__ import annotations

from pathlib import Path

HELP_FLAGS = ("-h", "--help")


def help_asked(overrides: list[str]) -> tuple[bool, list[str]]:
    """Whether the command line asks for the command's help (Hydra's own `--hydra-help` is left to Hydra), and the
    overrides without the help flags."""
    rest = [o for o in overrides if o not in HELP_FLAGS]
    return len(rest) < len(overrides), rest


def config_groups(config_dir: Path) -> dict[str, list[str]]:
    """Each config group (a folder of YAML files, nested ones as ``a/b``) and its options, sorted."""
    groups: dict[str, list[str]] = {}
    for path in sorted(config_dir.rglob("*.yaml")):
        rel = path.relative_to(config_dir)
        if len(rel.parts) > 1 and rel.parts[0] != "hydra":
            groups.setdefault("/".join(rel.parts[:-1]), []).append(path.stem)
    return groups


def command_help(config_dir: Path, command: str, summary: str, overrides: list[str]) -> str:
    """The help text: usage, the command's groups and their options, the config composed with ``overrides`` (the
    help flags left out, see :func:`help_asked`; the caller has checked that they compose)."""
    from hydra import compose, initialize_config_dir
    from hydra.errors import HydraException
    from omegaconf import OmegaConf
    from omegaconf.errors import OmegaConfBaseException

    given = list(overrides)
    with initialize_config_dir(config_dir=str(config_dir), version_base="1.3"):
        try:
            cfg = compose(config_name=command, overrides=given)
        except (HydraException, OmegaConfBaseException):  # a multirun sweep (-m a=1,2) is no one config
            cfg, given = compose(config_name=command), []
    groups = "\n".join(f"  {g}: {', '.join(opts)}" for g, opts in config_groups(config_dir).items()
                       if g.split("/")[0] in cfg)  # the command's own groups (evaluate has no controller)
    shown = f" (with {' '.join(given)})" if given else ""
    example = ("controller.max_candidates=20" if "controller" in cfg else  # a key the command has
               "harness.timeout_s=600" if "harness" in cfg else "operator=gemm_n4096_k4096")
    return (f"usage: kernelopt {command} [KEY=VALUE ...] [GROUP=OPTION ...] [-m KEY=A,B ...]\n\n{summary}\n\n"
            f"config groups (GROUP=OPTION):\n{groups}\n\n"
            f"config{shown}; override any key, e.g. {example}:\n\n"
            f"{OmegaConf.to_yaml(cfg, resolve=False)}\n"
            "-m / --multirun sweeps values (a=1,2); --cfg job prints the composed config; --hydra-help lists Hydra's "
            "own flags")
