"""Claude Code and Codex generators with fake `claude` / `codex` executables on PATH."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fixtures" / "llm"))
from fake_llm import KERNEL, install_agents

from kernelopt.generators.base import GenerationContext, kernelopt_extra
from kernelopt.generators.prompt import build_prompt
from kernelopt.generators.proposal_log import take_log
from kernelopt.generators.registry import make_generator
from kernelopt.generators.workspace import make_workspace, write_candidate_json
from kernelopt.operators import load_operator

AGENTS = {"claude_code": "claude", "codex": "codex"}


@pytest.fixture
def agents(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    bin_dir = install_agents(tmp_path / "bin")
    monkeypatch.setenv("PATH", f"{bin_dir}:{__import__('os').environ['PATH']}")
    monkeypatch.setenv("FAKE_AGENT_LOG", str(tmp_path / "calls.jsonl"))
    monkeypatch.setenv("FAKE_AGENT_BEHAVIOUR", "write")
    return tmp_path


def ctx(mode: str = "agent_assisted") -> GenerationContext:
    op = load_operator("rmsnorm_h4096")
    return GenerationContext(definition=op.definition, operator=op.name, count=1, mode=mode)


@pytest.mark.parametrize("name", AGENTS)
def test_agent_writes_kernel_which_becomes_the_candidate(agents: Path, name: str):
    g = make_generator(name, max_turns=7, model="m1", timeout_s=60)
    (sol,) = g.propose(ctx())
    log = take_log(g)
    assert sol.source("kernel.py") == KERNEL and sol.author == name and sol.spec.entry_point == "kernel.py::run"
    (call,) = [json.loads(line) for line in (agents / "calls.jsonl").read_text().splitlines()]
    if name == "claude_code":
        argv = call["argv"]
        assert argv[0] == "-p" and "TASK.md" in argv[1]
        assert argv[argv.index("--output-format") + 1] == "json" and argv[argv.index("--max-turns") + 1] == "7"
        assert argv[argv.index("--model") + 1] == "m1"
        assert kernelopt_extra(sol)["usage"]["cost_usd"] == 0.0123
    else:
        assert call["argv"][:2] == ["exec", "--json"] and call["argv"][call["argv"].index("-C") + 1] == call["cwd"]
        assert kernelopt_extra(sol)["usage"]["output_tokens"] == 30
    assert not Path(call["cwd"]).exists()  # the workspace is removed afterwards
    arts = log.artifacts[sol.hash()]
    assert "agent/transcript.json" in arts and "TASK.md" not in arts and "llm/prompt.md" in arts


@pytest.mark.parametrize("behaviour, match", [("nothing", "wrote no files"), ("fail", "exit status 3")])
def test_agent_without_solution_is_a_recorded_failure(agents: Path, monkeypatch: pytest.MonkeyPatch,
                                                      behaviour: str, match: str):
    monkeypatch.setenv("FAKE_AGENT_BEHAVIOUR", behaviour)
    g = make_generator("codex" if behaviour == "fail" else "claude_code", timeout_s=60)
    assert g.propose(ctx()) == []
    (failure,) = take_log(g).failures
    assert match in failure.reason


def test_time_limit_and_missing_executable(agents: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("FAKE_AGENT_BEHAVIOUR", "sleep")
    g = make_generator("claude_code", timeout_s=2)
    assert g.propose(ctx()) == []
    assert "time limit" in take_log(g).failures[0].reason
    g = make_generator("codex", command=str(agents / "nope"))
    assert g.propose(ctx()) == [] and "not found" in take_log(g).failures[0].reason


def test_workspace_layout_and_candidate_packing(tmp_path: Path):
    c = ctx("agent_assisted")
    ws = make_workspace(tmp_path / "ws", build_prompt(c), c)
    for rel in ("TASK.md", "definition.json", "reference.py", "workloads.md", "SKILLS.md", "evaluate.sh",
                "evaluate.py", "references/rmsnorm_rowwise/kernel.py"):
        assert (ws / rel).is_file(), rel
    assert (ws / "evaluate.sh").stat().st_mode & 0o111
    full = make_workspace(tmp_path / "full", build_prompt(ctx("full_agent")), ctx("full_agent"))
    assert not (full / "references").exists()
    (ws / "solution" / "kernel.py").write_text(KERNEL)
    out = write_candidate_json(ws / "solution", "rmsnorm_h4096", ws / ".candidate.json")
    obj = json.loads(out.read_text())
    assert obj["spec"]["entry_point"] == "kernel.py::run" and obj["definition"] == "rmsnorm_h4096"


def test_optimize_exits_1_and_says_why_when_no_candidate_was_gated(agents: Path, monkeypatch: pytest.MonkeyPatch):
    """Every request of the campaign failed (the fake codex exits 3): each failure is printed and the exit code is 1
    (it was 0, with only 'baseline generation was tried 2 times and no candidate was evaluated' on screen)."""
    import os
    import subprocess

    monkeypatch.setenv("FAKE_AGENT_BEHAVIOUR", "fail")
    r = subprocess.run([sys.executable, "-m", "kernelopt.cli.main", "optimize", "generator=codex",
                        "controller.max_candidates=1", f"tracking.uri=sqlite:///{agents}/m.db", "executor=cpu"],
                       cwd=agents, capture_output=True, text=True, timeout=600, check=False,
                       env={**os.environ, "CUDA_VISIBLE_DEVICES": ""})
    assert r.returncode == 1, r.stdout[-3000:] + r.stderr[-3000:]
    assert "no candidate from the generator: " in r.stdout and "exit status 3" in r.stdout, r.stdout[-3000:]


def test_agent_kernel_quoting_the_api_key_is_refused(agents: Path, monkeypatch: pytest.MonkeyPatch):
    """solution/kernel.py holding the key used to be stored as the candidate's source."""
    key = "sk-ant-test-LEAKEDsecret0123456"
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    monkeypatch.setenv("FAKE_AGENT_BEHAVIOUR", "leak")
    g = make_generator("claude_code", timeout_s=60)
    assert g.propose(ctx()) == []
    log = take_log(g)
    (failure,) = log.failures
    assert failure.reason == "claude_code: the reply contains an API key (not saved)"
    assert not log.artifacts and key not in json.dumps(failure.artifacts)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def _wait_pid(pidfile: Path) -> int:
    import time

    for _ in range(200):
        if pidfile.is_file() and pidfile.read_text().strip():
            return int(pidfile.read_text())
        time.sleep(0.05)
    raise AssertionError("the fake agent started no child")


@pytest.mark.parametrize("how", ["timeout", "interrupt"])
def test_agent_children_die_with_the_agent(agents: Path, monkeypatch: pytest.MonkeyPatch, how: str):
    """An agent's child (`sleep 300`) used to survive the time limit and Ctrl-C, reparented to init."""
    import _thread
    import threading
    import time

    pidfile = agents / "child.pid"
    monkeypatch.setenv("FAKE_AGENT_BEHAVIOUR", "spawn")
    monkeypatch.setenv("FAKE_AGENT_PIDFILE", str(pidfile))
    g = make_generator("claude_code", timeout_s=3 if how == "timeout" else 60)
    if how == "timeout":
        t0 = time.monotonic()
        assert g.propose(ctx()) == []
        assert time.monotonic() - t0 < 20 and "time limit" in take_log(g).failures[0].reason
    else:
        timer = threading.Thread(target=lambda: (_wait_pid(pidfile), time.sleep(0.3), _thread.interrupt_main()))
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            g.propose(ctx())
        timer.join()
    pid = _wait_pid(pidfile)
    for _ in range(50):
        if not _alive(pid):
            break
        time.sleep(0.1)
    assert not _alive(pid)


@pytest.mark.parametrize("name", AGENTS)
def test_non_utf8_output_keeps_the_finished_kernel(agents: Path, monkeypatch: pytest.MonkeyPatch, name: str):
    """One byte that is not UTF-8 on the agent's stdout used to raise UnicodeDecodeError and drop its kernel."""
    monkeypatch.setenv("FAKE_AGENT_BEHAVIOUR", "badbyte")
    g = make_generator(name, timeout_s=60)
    (sol,) = g.propose(ctx())
    assert sol.source("kernel.py") == KERNEL and not take_log(g).failures


@pytest.mark.parametrize("name", AGENTS)
def test_relative_command_is_resolved_once(agents: Path, monkeypatch: pytest.MonkeyPatch, name: str):
    """`generator.command=bin/claude` passed preflight, then every request failed with FileNotFoundError (the path
    was looked up again from the workspace)."""
    monkeypatch.chdir(agents)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    g = make_generator(name, command=f"bin/{AGENTS[name]}", timeout_s=60)
    g.preflight()
    (sol,) = g.propose(ctx())
    assert sol.source("kernel.py") == KERNEL


@pytest.mark.parametrize("exit_code", ["0", "1"])
def test_claude_max_turns_is_named(agents: Path, monkeypatch: pytest.MonkeyPatch, exit_code: str):
    """`{"subtype": "error_max_turns", "is_error": true}` read only as 'wrote no files' / 'exit status 1: '."""
    monkeypatch.setenv("FAKE_AGENT_BEHAVIOUR", "max_turns")
    monkeypatch.setenv("FAKE_AGENT_EXIT", exit_code)
    g = make_generator("claude_code", max_turns=3, timeout_s=60)
    assert g.propose(ctx()) == []
    assert "claude hit --max-turns 3" in take_log(g).failures[0].reason


def test_codex_turn_failed_message_is_quoted(agents: Path, monkeypatch: pytest.MonkeyPatch):
    """codex exiting non-zero read only 'exit status 1: ' (its error is in the JSONL events, not on stderr)."""
    monkeypatch.setenv("FAKE_AGENT_BEHAVIOUR", "turn_failed")
    g = make_generator("codex", timeout_s=60)
    assert g.propose(ctx()) == []
    reason = take_log(g).failures[0].reason
    assert 'exit status 1: codex turn.failed: "Quota exceeded. Check your plan"' in reason, reason


@pytest.mark.parametrize("name", AGENTS)
def test_a_chatty_agent_keeps_its_result_and_an_archived_transcript_within_the_cap(
        agents: Path, monkeypatch: pytest.MonkeyPatch, name: str):
    """10 MB of progress lines used to be held in memory whole and archived whole; the final result (claude: the last
    line; codex: its events) and the usage still come through."""
    from kernelopt.generators import cli_agents

    monkeypatch.setenv("FAKE_AGENT_BEHAVIOUR", "chatty")
    monkeypatch.setattr(cli_agents, "READ_CAP", 4 << 20)
    monkeypatch.setattr(cli_agents, "TRANSCRIPT_CAP", 1 << 20)
    g = make_generator(name, timeout_s=120)
    (sol,) = g.propose(ctx())
    log = take_log(g)
    assert sol.source("kernel.py") == KERNEL and not log.failures
    transcript = log.artifacts[sol.hash()]["agent/transcript.json"]
    assert len(transcript.encode()) < (1 << 20) + 200 and "bytes cut by kernelopt" in transcript
    assert transcript.startswith("progress ") if name == "claude_code" else "thread.started" in transcript
    assert kernelopt_extra(sol)["usage"]["output_tokens"] == (40 if name == "claude_code" else 30)


def test_cut_middle_and_read_capped(tmp_path: Path):
    from kernelopt.generators.cli_agents import cut_middle, read_capped

    assert cut_middle(b"abcdef", 6) == b"abcdef"
    assert cut_middle(b"abcdefgh", 4) == b"ab\n[... 4 bytes cut by kernelopt ...]\ngh"
    f = tmp_path / "out"
    f.write_bytes(b"head-" + b"\xff" * 100 + b"-tail")
    assert read_capped(f, 10) == "head-\n[... 100 bytes cut by kernelopt ...]\n-tail"
    assert read_capped(f).startswith("head-\ufffd")
