"""Unpack a device call's results archive(s) into the checkout without losing traces already there.

The device tool copies the checkout's tracked files over the GPU machine's at every call, so each call's
``$OUT/results_<call>.tgz`` (``keep_packed`` in ``scripts/gpu_env.sh``) has to land in the checkout before the
next call; unpacking two calls' archives with plain ``tar xzf`` keeps only the last one's trace files, and a
call launched before the previous call's results were unpacked re-measures (and re-traces) the same pairs.
This merges instead:

* a trace file (``*.jsonl`` whose records name a workload) is merged per workload UUID: the checkout's
  records stay in their order; the archive's records of workloads the file lacks are appended; where both
  hold a workload, the archive's record replaces the checkout's when the checkout's did not pass and the
  archive's did (a retried REJECTED/TIMEOUT pair), otherwise the checkout's stays. An unfinished last
  line (a call cut mid-write) is dropped with a note.
* ``<label>.solution.json`` beside a trace file must name the same kernel in both (the same content hash, as
  ``benchmarks/contest.py --resume`` checks; metadata such as its recorded directions may differ, and the
  archive's copy is then kept): traces of two versions of a kernel are never mixed under one label (the
  archive's copy of that label is skipped, with a message).
* a latency table of ``benchmarks/controller_efficiency.py --mode measure`` (JSON with ``latency_ms`` keyed by
  solution hash) is merged per point when both copies measured the same operator, workloads and ``--fix``
  (the archive's new points added, the archive's metadata kept; where both hold a point, the copy with more
  passed workloads wins, on a tie the checkout's: a ``--retry-failed`` point that now passes replaces its old
  failure, with its ``failed`` entry); otherwise the archive's copy is written.
* every other file (tables, logs, profiles) is written over the checkout's copy.

Usage: ``python scripts/unpack_results.py [--into DIR] ARCHIVE.tgz...`` (archives in call order). Exit code 1
when something was skipped, 2 on an unreadable archive.
"""

from __future__ import annotations

import argparse
import json
import sys
import tarfile
from pathlib import Path, PurePosixPath
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from results_archive import manifests, packed_root

from kernelopt.data import Solution  # (no torch, no mlflow)


def _records(text: str, where: str, notes: list[str]) -> list[tuple[str | None, dict, str]]:
    """(workload uuid or None, record, line) per line; an unfinished last line is dropped."""
    if text and not text.endswith("\n"):
        notes.append(f"{where}: dropped an unfinished last record")
        text = text[: text.rfind("\n") + 1]
    out = []
    for line in text.splitlines():
        if not line.strip():
            continue
        rec = json.loads(line)
        wl = rec.get("workload") if isinstance(rec, dict) else None
        out.append((wl.get("uuid") if isinstance(wl, dict) else None, rec, line))
    return out


def _passed(rec: dict) -> bool:
    ev = rec.get("evaluation") or {}
    return ev.get("status") == "PASSED"


def merge_traces(local: str, incoming: str, where: str, notes: list[str]) -> str:
    """The merged text of one trace file (see the module docstring)."""
    mine = _records(local, f"{where} (checkout)", notes)
    theirs = _records(incoming, f"{where} (archive)", notes)
    if any(u is None for u, _, _ in mine + theirs):
        raise ValueError(f"{where}: a record names no workload (not a trace file)")
    index = {u: i for i, (u, _, _) in enumerate(mine)}
    lines = [line for _, _, line in mine]
    for u, rec, line in theirs:
        if u not in index:
            index[u] = len(lines)
            lines.append(line)
        elif not _passed(mine[index[u]][1]) and _passed(rec):
            lines[index[u]] = line
    return "".join(line + "\n" for line in lines)


def merge_latency_table(local: bytes, incoming: bytes) -> bytes | None:
    """The two measure tables' union per point (see the module docstring); ``None`` when they are not two
    tables of the same operator, workloads and ``--fix``."""
    try:
        mine, theirs = json.loads(local), json.loads(incoming)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    keys = ("operator", "workloads", "fix")
    if not all(isinstance(d, dict) and isinstance(d.get("latency_ms"), dict) for d in (mine, theirs)):
        return None
    if any(mine.get(k) != theirs.get(k) for k in keys):
        return None

    def passed(row: Any) -> int:
        return sum(v is not None for v in row.values()) if isinstance(row, dict) else -1

    merged = dict(theirs)
    lat, names, failed = dict(theirs["latency_ms"]), dict(theirs.get("names") or {}), dict(theirs.get("failed") or {})
    for point, row in mine["latency_ms"].items():
        if point in lat and passed(lat[point]) > passed(row):
            continue  # the archive re-measured it with more workloads passing
        lat[point] = row
        names[point] = (mine.get("names") or {}).get(point, names.get(point))
        failed.pop(point, None)
        if point in (mine.get("failed") or {}):
            failed[point] = mine["failed"][point]
    merged.update(latency_ms=lat, names=names)
    if failed or "failed" in merged:
        merged["failed"] = failed
    return (json.dumps(merged, indent=1) + "\n").encode()


def _is_trace(name: str, data: bytes) -> bool:
    if not name.endswith(".jsonl"):
        return False
    first = data.split(b"\n", 1)[0].strip()
    try:
        rec = json.loads(first) if first else {}
    except json.JSONDecodeError:
        return False
    return isinstance(rec, dict) and isinstance(rec.get("workload"), dict)


def _kernel_hash(data: bytes, where: str) -> str:
    try:
        return Solution.model_validate_json(data).hash()
    except ValueError as exc:
        raise ValueError(f"{where}: not a readable Solution: {exc}") from None


def unpack(archive: Path, into: Path, notes: list[str]) -> tuple[int, int]:
    """Unpack one archive into ``into``; returns (files written, files skipped). A file written under a path that
    ``scripts/results_archive.py`` packed (ignored by git) counts as skipped too, with a note: it would not be
    committed."""
    written = skipped = 0
    packed_roots = manifests(into)
    with tarfile.open(archive) as tar:
        members = [m for m in tar.getmembers() if m.isfile()]
        blobs = {m.name: tar.extractfile(m).read() for m in members}  # type: ignore[union-attr]
    refused: set[str] = set()
    for name, data in blobs.items():  # solution records first: a differing one refuses its label's traces
        if not name.endswith(".solution.json"):
            continue
        dest = into / name
        if dest.is_file() and _kernel_hash(dest.read_bytes(), name) != _kernel_hash(data, name):
            refused.add(name.removesuffix(".solution.json") + ".jsonl")
            notes.append(f"{name}: differs from the checkout's (another version of the kernel); its traces "
                         "were not merged")
            skipped += 1
    for name, data in blobs.items():
        p = PurePosixPath(name)
        if p.is_absolute() or ".." in p.parts:
            notes.append(f"{name}: unsafe path, skipped")
            skipped += 1
            continue
        if name in refused or name.removesuffix(".solution.json") + ".jsonl" in refused:
            continue
        dest = into / name
        dest.parent.mkdir(parents=True, exist_ok=True)
        if dest.is_file() and (_is_trace(name, data) or _is_trace(name, dest.read_bytes())):
            dest.write_text(merge_traces(dest.read_text(), data.decode(), name, notes))
        elif dest.is_file() and name.endswith(".json") and (table := merge_latency_table(dest.read_bytes(), data)):
            dest.write_bytes(table)
        else:
            dest.write_bytes(data)
        written += 1
        packed = packed_root(packed_roots, name)
        if packed is not None:
            notes.append(f"{name}: written under {packed[0]}, packed in benchmarks/results/archive/{packed[1]}.tar.xz "
                         "and ignored by git: it will not be committed (unpack that archive first and merge again, "
                         "or move the file)")
            skipped += 1
    return written, skipped


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("archives", nargs="+", type=Path)
    ap.add_argument("--into", type=Path, default=Path(__file__).resolve().parents[1])
    args = ap.parse_args(argv)
    notes: list[str] = []
    total_skipped = 0
    for a in args.archives:
        try:
            w, s = unpack(a, args.into, notes)
        except (OSError, tarfile.TarError, ValueError, json.JSONDecodeError) as exc:
            print(f"unpack_results.py: {a}: {exc}", file=sys.stderr)
            return 2
        total_skipped += s
        print(f"{a}: {w} file(s) written or merged, {s} skipped")
    for n in notes:
        print(f"  note: {n}")
    return 1 if total_skipped else 0


if __name__ == "__main__":
    sys.exit(main())
