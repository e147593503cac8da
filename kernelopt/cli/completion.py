"""`kernelopt completion bash`: shell completion for the two-word commands.

Hydra's own completion (`--hydra-help`, `-sc install=bash`) completes one program name: its script runs
`<first word> -sc query=bash` and Hydra strips that one word from the line, so `kernelopt optimize ...` asked
`kernelopt -sc ...`, which is no command. This script completes the command names itself and, for the Hydra
commands, asks `kernelopt <command> -sc query=bash` with the line rewritten as Hydra expects it
(`kernelopt-<command> <overrides>`); the structured configs' schema entries (`agent=agent_schema`) are no
option and are left out. Zsh: `autoload -U bashcompinit && bashcompinit` first."""

from __future__ import annotations

BASH = r"""# kernelopt shell completion (bash; zsh after `autoload -U bashcompinit && bashcompinit`)
# install: eval "$({prog} completion bash)"   (or write it to a file your shell sources)
_kernelopt_complete() {{
    local cur="${{COMP_WORDS[COMP_CWORD]}}"
    if (( COMP_CWORD == 1 )); then
        COMPREPLY=($(compgen -W "{commands}" -- "$cur"))
        return
    fi
    case "${{COMP_WORDS[1]}}" in
        {hydra_commands}) ;;
        *) COMPREPLY=($(compgen -o default -- "$cur")); return ;;
    esac
    local line="${{COMP_LINE:0:COMP_POINT}}"
    line="kernelopt-${{COMP_WORDS[1]}}${{line#*${{COMP_WORDS[1]}}}}"
    local words=($line)
    local word=""
    [[ "$line" == *" " ]] || word="${{words[${{#words[@]}}-1]}}"
    local choices
    choices=$(COMP_LINE="$line" COMP_POINT=${{#line}} "${{COMP_WORDS[0]}}" "${{COMP_WORDS[1]}}" -sc query=bash 2>/dev/null)
    choices=$(printf '%s\n' $choices | grep -v '=[a-z_]*_schema$')
    # bash splits words at '=' and ':' (COMP_WORDBREAKS): offer only what follows the last break
    local prefix="${{word%[=:]*}}"
    [[ "$word" == *[=:]* ]] || prefix=""
    COMPREPLY=()
    local c
    for c in $(compgen -W "$choices" -- "$word"); do
        COMPREPLY+=("${{c#${{prefix:+$prefix?}}}}")
    done
    [[ "${{COMPREPLY[0]}}" == *[=.] ]] && compopt -o nospace 2>/dev/null
    return 0
}}
complete -F _kernelopt_complete {prog}
"""


def completion_script(shell: str, prog: str, hydra_commands: list[str], commands: list[str]) -> str:
    """The completion script for ``shell`` (only ``bash``; zsh runs it through bashcompinit)."""
    if shell != "bash":
        raise ValueError(f"shell '{shell}' is not supported: give bash (zsh: run it after "
                         "`autoload -U bashcompinit && bashcompinit`)")
    return BASH.format(prog=prog, commands=" ".join(commands), hydra_commands="|".join(hydra_commands))
