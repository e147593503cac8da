"""CLI coding agents as generators: Claude Code and Codex run as subprocesses in a workspace.

For each wanted candidate a fresh workspace is made (:mod:`kernelopt.generators.workspace`), the
agent is started there with a short instruction pointing at ``TASK.md`` and a wall-clock limit
(``generator.timeout_s``), its stdout is archived as the transcript (``agent/transcript.json``
on the candidate run, at most :data:`TRANSCRIPT_CAP` bytes: head and tail), and the files it left in ``solution/`` become the candidate; when it wrote
none, its final message is parsed like an SDK reply.

* ``claude``: ``claude -p <instruction> --output-format json --max-turns N --permission-mode
  acceptEdits [--model M]``; the JSON result carries ``result``, ``usage`` and ``total_cost_usd``.
* ``codex``: ``codex exec --json --full-auto --skip-git-repo-check -C <workspace> [-m M]
  <instruction>``; JSONL events, the last ``agent_message`` is the final text, ``turn.completed``
  events carry token usage. (Codex has no turn limit flag; the time limit bounds it.)

The executable comes from ``generator.command`` (default ``claude`` / ``codex`` on ``PATH``).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from kernelopt.data.solution import Solution
from kernelopt.generators.base import GenerationContext
from kernelopt.generators.llm_base import Completion, GiveUpError, LLMGenerator
from kernelopt.generators.parse import KeyInReplyError, NoCodeError, parse_response
from kernelopt.generators.prompt import Prompt
from kernelopt.generators.workspace import SOLUTION_DIR, collect, folder_files, make_workspace

INSTRUCTION = (
    "Read TASK.md in the current directory and follow it. Write your solution into the solution/ "
    "folder (solution/kernel.py defining run(...)). You may test a candidate with ./evaluate.sh "
    "(it runs the official-aligned harness on solution/). Do not modify any other file. When done, "
    "reply with a one-paragraph summary."
)


#: bytes of an agent's stdout / stderr read back (its head and tail when longer: the final JSON result is its last
#: line); what it printed beyond that is cut out of the middle, with a marker saying how much
READ_CAP = 32 << 20
#: bytes of the transcript archived on the candidate run (head and tail, the same way)
TRANSCRIPT_CAP = 4 << 20


def _around_cut(head: bytes, cut: int, tail: bytes) -> bytes:
    return head + f"\n[... {cut} bytes cut by kernelopt ...]\n".encode() + tail


def cut_middle(data: bytes, cap: int) -> bytes:
    """``data`` when at most ``cap`` bytes, else its head and tail (``cap // 2`` each) around a marker."""
    if len(data) <= cap:
        return data
    half = cap // 2
    return _around_cut(data[:half], len(data) - 2 * half, data[-half:])


def read_capped(path: Path, cap: int = READ_CAP) -> str:
    """A file's text (UTF-8, undecodable bytes replaced), its middle cut out past ``cap`` bytes."""
    size = path.stat().st_size
    with open(path, "rb") as fh:
        if size <= cap:
            data = fh.read()
        else:
            half = cap // 2
            head = fh.read(half)
            fh.seek(size - half)
            data = _around_cut(head, size - 2 * half, fh.read(half))
    return data.decode("utf-8", "replace")


def transcript_of(stdout: str, stderr: str = "") -> str:
    """The archived transcript: stdout, then stderr when it holds anything, at most :data:`TRANSCRIPT_CAP` bytes."""
    text = stdout + (f"\n--- stderr ---\n{stderr}" if stderr.strip() else "")
    return cut_middle(text.encode(), TRANSCRIPT_CAP).decode("utf-8", "replace")


def _killpg(proc: subprocess.Popen) -> None:
    """SIGKILL the process group ``proc`` leads (started with ``start_new_session``), then reap ``proc``."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL was sent
        pass


class CLIAgentGenerator(LLMGenerator):
    """Base of the subprocess agents (see the module docstring)."""

    name = "cli_agent"
    default_command = ""
    wall_clock_deadline = False  # ``_run`` bounds the agent's process by ``timeout_s`` itself
    keep_workspaces = False
    _executable: str | None = None  # set by the first executable() call

    def argv(self, workspace: Path) -> list[str]:
        """The agent's command line."""
        raise NotImplementedError

    def read_output(self, stdout: str) -> tuple[str, int, int, float | None]:
        """(final text, input tokens, output tokens, cost) from the agent's stdout."""
        raise NotImplementedError

    def stop_note(self, stdout: str) -> str | None:
        """Why the agent stopped early, from its stdout (an error it reported), else ``None``."""
        return None

    def preflight(self) -> None:
        """The agent's executable is found (see :meth:`executable`)."""
        self.executable()

    def executable(self) -> str:
        """Absolute path of the agent executable, resolved once (the first call, e.g. preflight): a relative
        ``generator.command`` such as ``bin/claude`` names a file under the directory the campaign started in, not
        under each workspace the agent runs in.

        Raises:
            GiveUpError: not found.
        """
        if self._executable is not None:
            return self._executable
        cmd = self.command or self.default_command
        found = shutil.which(cmd)
        if found is None:
            raise GiveUpError(f"{self.name}: executable '{cmd}' not found (set generator.command)")
        self._executable = os.path.abspath(found)
        return self._executable

    def _run(self, argv: list[str], ws: Path) -> tuple[int, str, str]:
        """Run the agent in its own session, bounded by ``timeout_s``: (exit status, stdout, stderr). Its whole
        process group is killed when it returns, times out or anything interrupts the wait (Ctrl-C, SIGTERM as an
        exception), so no child of the agent outlives the request. Its output goes to files outside the workspace
        (not pipes: a descendant that left the session cannot hold them open, and a chatty agent cannot fill
        memory) and is read back capped at :data:`READ_CAP` bytes per stream (:func:`read_capped`).

        Raises:
            subprocess.TimeoutExpired: the time limit passed (``stdout`` holds what the agent printed).
        """
        with tempfile.TemporaryDirectory(prefix=f"kernelopt-{self.name}-out-") as tmp:
            out_path, err_path = Path(tmp) / "stdout", Path(tmp) / "stderr"
            with open(out_path, "wb") as out, open(err_path, "wb") as err:
                proc = subprocess.Popen(argv, cwd=ws, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                        start_new_session=True)
            try:
                try:
                    proc.wait(timeout=self.timeout_s)
                except subprocess.TimeoutExpired:
                    _killpg(proc)
                    raise subprocess.TimeoutExpired(argv, self.timeout_s, output=read_capped(out_path)) from None
                return proc.returncode, read_capped(out_path), read_capped(err_path)
            finally:
                _killpg(proc)

    def _request(self, prompt: Prompt, ctx: GenerationContext, index: int) -> Completion:
        ws = Path(tempfile.mkdtemp(prefix=f"kernelopt-{self.name}-"))
        try:
            make_workspace(ws, prompt, ctx)
            try:
                returncode, stdout, stderr = self._run(self.argv(ws), ws)
            except subprocess.TimeoutExpired as exc:
                files = folder_files(ws / SOLUTION_DIR)
                if not files:
                    raise GiveUpError(f"{self.name}: no solution after the {self.timeout_s:.0f} s time limit") from None
                return Completion(text="", model=self.model, files=files, transcript=transcript_of(exc.stdout or ""))
            text, tin, tout, cost = self.read_output(stdout)
            files = folder_files(ws / SOLUTION_DIR) or None
            if files and (ws / SOLUTION_DIR / "solution.json").is_file():
                files["solution.json"] = (ws / SOLUTION_DIR / "solution.json").read_text(encoding="utf-8",
                                                                                     errors="replace")
            note = self.stop_note(stdout)
            if returncode != 0 and not files:
                raise GiveUpError(f"{self.name}: exit status {returncode}: {note or stderr.strip()[-500:]}")
            return Completion(text=text, model=self.model, input_tokens=tin, output_tokens=tout, cost_usd=cost,
                              transcript=transcript_of(stdout, stderr), files=files, stop_note=note)
        finally:
            if not self.keep_workspaces:
                shutil.rmtree(ws, ignore_errors=True)

    def solutions_from(self, completion: Completion, ctx: GenerationContext) -> list[Solution]:
        """Files the agent wrote, else code in its final message."""
        extra = {"generator": self.name, "model": completion.model or self.model, "usage": self.usage(completion)}
        if completion.files:
            with tempfile.TemporaryDirectory(prefix="kernelopt-collect-") as tmp:
                for rel, content in completion.files.items():
                    (Path(tmp) / rel).parent.mkdir(parents=True, exist_ok=True)
                    (Path(tmp) / rel).write_text(content)
                return [collect(Path(tmp), ctx, self.name, extra)]
        try:
            return parse_response(completion.text, ctx, generator=self.name, extra=extra)
        except KeyInReplyError:
            raise
        except NoCodeError as exc:
            raise NoCodeError(f"the agent wrote no files into solution/ and its final message has no code ({exc})") from None


class ClaudeCodeGenerator(CLIAgentGenerator):
    """Claude Code in print mode (``claude -p``)."""

    name = "claude_code"
    default_command = "claude"

    def argv(self, workspace: Path) -> list[str]:
        args = [self.executable(), "-p", INSTRUCTION, "--output-format", "json", "--max-turns", str(self.max_turns),
                "--permission-mode", "acceptEdits"]
        return args + (["--model", self.model] if self.model else [])

    def read_output(self, stdout: str) -> tuple[str, int, int, float | None]:
        try:
            obj: Any = json.loads(stdout.strip().splitlines()[-1]) if stdout.strip() else {}
        except json.JSONDecodeError:
            return stdout, 0, 0, None
        if not isinstance(obj, dict):
            return stdout, 0, 0, None
        usage = obj.get("usage") or {}
        tin = sum(int(usage.get(k) or 0) for k in ("input_tokens", "cache_creation_input_tokens",
                                                     "cache_read_input_tokens"))
        cost = obj.get("total_cost_usd", obj.get("cost_usd"))
        return str(obj.get("result") or ""), tin, int(usage.get("output_tokens") or 0), \
            float(cost) if isinstance(cost, (int, float)) else None

    def stop_note(self, stdout: str) -> str | None:
        """``claude hit --max-turns N`` for ``subtype: error_max_turns``; another error result is quoted."""
        try:
            obj: Any = json.loads(stdout.strip().splitlines()[-1]) if stdout.strip() else {}
        except json.JSONDecodeError:
            return None
        if not isinstance(obj, dict) or not (obj.get("is_error") or str(obj.get("subtype", "")).startswith("error")):
            return None
        if obj.get("subtype") == "error_max_turns":
            return f"claude hit --max-turns {self.max_turns}"
        detail = obj.get("result") or obj.get("error") or ""
        return f"claude reported {obj.get('subtype') or 'an error'}" + (f": {json.dumps(detail)[:500]}" if detail else "")


class CodexGenerator(CLIAgentGenerator):
    """OpenAI Codex CLI (``codex exec``)."""

    name = "codex"
    default_command = "codex"

    def argv(self, workspace: Path) -> list[str]:
        args = [self.executable(), "exec", "--json", "--full-auto", "--skip-git-repo-check", "-C", str(workspace)]
        return args + (["-m", self.model] if self.model else []) + [INSTRUCTION]

    def read_output(self, stdout: str) -> tuple[str, int, int, float | None]:
        text, tin, tout = "", 0, 0
        for line in stdout.splitlines():
            try:
                ev = json.loads(line)
            except json.JSONDecodeError:
                continue
            if not isinstance(ev, dict):
                continue
            item = ev.get("item") or {}
            if ev.get("type") == "item.completed" and item.get("type") in ("agent_message", "assistant_message"):
                text = str(item.get("text") or text)
            usage = ev.get("usage") if ev.get("type") == "turn.completed" else None
            if isinstance(usage, dict):
                tin += int(usage.get("input_tokens") or 0)
                tout += int(usage.get("output_tokens") or 0)
        return text, tin, tout, None

    def stop_note(self, stdout: str) -> str | None:
        """The message of the last ``turn.failed`` / ``error`` event, quoted."""
        note = None
        for line in stdout.splitlines():
            try:
                ev = json.loads(line)
            except json.JSONDecodeError:
                continue
            if not isinstance(ev, dict) or ev.get("type") not in ("turn.failed", "error"):
                continue
            err = ev.get("error") if isinstance(ev.get("error"), dict) else {}
            msg = err.get("message") or ev.get("message") or ev.get("error")
            if msg:
                note = f"codex {ev['type']}: {json.dumps(str(msg))[:500]}"
        return note
