"""Pack older device-call outputs into xz archives inside the checkout, and unpack them in place to read them.

Why: the device tool sends the checkout (tracked files, and untracked ones git does not ignore) plus what a call
carries, at most 64 MiB in all. On 2026-12-04 the tracked files reached 55 MB, 22 MB of them the raw outputs of
past calls (``benchmarks/results/profiles_v/``: scratch trace folders, each holding copies of the same solution
JSONs; ``benchmarks/results/logs/``): the wheels a campaign needs (MLflow, Hydra: ``.whl_camp``, 13.5 MB) no
longer fitted beside them. Those outputs compress about 45x with xz.

Layout: ``benchmarks/results/archive/<name>.tar.xz`` holds the packed files byte for byte (paths from the
repository root, sorted, no timestamps: packing the same files again gives the same archive);
``benchmarks/results/archive/<name>.json`` lists them (path, bytes, sha256) with the roots that were packed;
``benchmarks/results/.gitignore`` lists every root of every archive (generated from the manifests), so a file
unpacked for reading is neither committed again nor sent to the device. Paths cited in notes and summaries stay
valid once unpacked.

Usage (from anywhere; ``--root`` defaults to this checkout):

    python scripts/results_archive.py pack NAME PATH...   # archive PATHs (files or folders under
                                                          # benchmarks/results/), remove them, rewrite the ignores;
                                                          # then commit: git add -A benchmarks/results
    python scripts/results_archive.py unpack [NAME...]    # restore archived files in place (`make results`); a
                                                          # file already there with other content is left alone
    python scripts/results_archive.py list [NAME...]      # the roots and size of each archive
    python scripts/results_archive.py check               # members against the manifests, ignores up to date

A path that a test reads (named in ``tests/``) is refused by ``pack``: the CPU suite runs on a clean clone.
Exit status: 0, 1 when ``check`` finds a mismatch or ``unpack`` left a differing file alone, 2 on bad input.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import lzma
import sys
import tarfile
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parents[1]
RESULTS = PurePosixPath("benchmarks/results")
ARCHIVE = RESULTS / "archive"
IGNORE = RESULTS / ".gitignore"
BEGIN, END = "# results_archive:begin", "# results_archive:end"


class ArchiveError(Exception):
    """Bad input (a path outside the results folder, an archive that exists, ...): exit status 2."""


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _rel(root: Path, path: str) -> PurePosixPath:
    """``path`` (absolute, or relative to the repository root) as a POSIX path inside ``benchmarks/results``."""
    p = Path(path)
    full = (p if p.is_absolute() else root / p).resolve()
    try:
        rel = PurePosixPath(full.relative_to(root.resolve()).as_posix())
    except ValueError as exc:
        raise ArchiveError(f"{path}: not inside the checkout {root}") from exc
    if rel.parts[:2] != RESULTS.parts or len(rel.parts) < 3 or rel.parts[2] in ("archive", ".gitignore"):
        raise ArchiveError(f"{path}: only files and folders under {RESULTS}/ are packed (not its archive/)")
    if any(c in str(rel) for c in "*?[]!#\\\n") or str(rel) != str(rel).strip():
        raise ArchiveError(f"{path}: a name with a character .gitignore reads as a pattern; rename it first")
    return rel


def _files(root: Path, rels: list[PurePosixPath]) -> list[PurePosixPath]:
    out: set[PurePosixPath] = set()
    for rel in rels:
        full = root / rel
        if full.is_file():
            out.add(rel)
        elif full.is_dir():
            out |= {PurePosixPath(f.relative_to(root).as_posix()) for f in full.rglob("*") if f.is_file()}
        else:
            raise ArchiveError(f"{rel}: no such file or folder")
    if not out:
        raise ArchiveError("nothing to pack: the paths hold no files")
    return sorted(out)


def _cited_by_tests(root: Path, rels: list[PurePosixPath]) -> dict[str, str]:
    """Roots (or files under them) that a test names: ``{root: test file}``."""
    texts = {f: f.read_text(errors="replace") for f in (root / "tests").rglob("*.py")} if (root / "tests").is_dir() \
        else {}
    hits = {}
    for rel in rels:
        inner = str(PurePosixPath(*rel.parts[2:]))  # e.g. profiles_v/contest_scratch_bf
        for f, text in texts.items():
            if str(rel) in text or f'"{inner}"' in text or inner.replace("/", '" / "') in text:
                hits[str(rel)] = str(f.relative_to(root))
                break
    return hits


def _tar_bytes(blobs: dict[str, bytes]) -> bytes:
    """The files ``{path: bytes}`` as a tar.xz, in path order, without timestamps or owners."""
    buf = io.BytesIO()
    with lzma.open(buf, "wb", preset=9 | lzma.PRESET_EXTREME) as xz, tarfile.open(fileobj=xz, mode="w") as tar:
        for rel, data in sorted(blobs.items()):
            info = tarfile.TarInfo(rel)
            info.size, info.mode, info.mtime = len(data), 0o644, 0
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def _members(archive: Path) -> dict[str, bytes]:
    with lzma.open(archive) as xz, tarfile.open(fileobj=xz, mode="r") as tar:
        out = {}
        for m in tar.getmembers():
            p = PurePosixPath(m.name)
            if not m.isfile() or p.is_absolute() or ".." in p.parts or p.parts[:2] != RESULTS.parts:
                raise ArchiveError(f"{archive.name}: unexpected member {m.name!r}")
            out[m.name] = tar.extractfile(m).read()  # type: ignore[union-attr]
        return out


def manifests(root: Path) -> dict[str, dict]:
    """Every archive's manifest by name."""
    folder = root / ARCHIVE
    return {f.stem: json.loads(f.read_text()) for f in sorted(folder.glob("*.json"))} if folder.is_dir() else {}


def packed_root(mans: dict[str, dict], path: str) -> tuple[str, str] | None:
    """``(root given to pack, archive name)`` when ``path`` (from the repository root) lies under a root of one of
    the manifests ``mans`` (:func:`manifests`)."""
    for name, man in mans.items():
        for r in man["roots"]:
            if path == r or path.startswith(r + "/"):
                return r, name
    return None


def ignore_text(root: Path, old: str = "") -> str:
    """``benchmarks/results/.gitignore`` with its generated block rebuilt from the manifests (lines outside the
    block kept)."""
    lines = [BEGIN, "# every root of benchmarks/results/archive/*.tar.xz (scripts/results_archive.py writes this block;",
             "# `make results` unpacks them in place for reading: they stay out of commits and device calls)"]
    for name, man in manifests(root).items():
        lines.append(f"# {name}")
        lines += [f"/{PurePosixPath(*PurePosixPath(r).parts[2:])}{'/' if man['kinds'][r] == 'dir' else ''}"
                  for r in man["roots"]]
    lines.append(END)
    kept = old.split(BEGIN)[0] + (old.split(END, 1)[1].lstrip("\n") if END in old else "")
    return kept.rstrip("\n") + ("\n" if kept.strip() else "") + "\n".join(lines) + "\n"


def write_ignores(root: Path) -> None:
    """Rewrite ``benchmarks/results/.gitignore``'s generated block from the manifests."""
    ign = root / IGNORE
    ign.write_text(ignore_text(root, ign.read_text() if ign.is_file() else ""))


def pack(root: Path, name: str, paths: list[str]) -> dict:
    if not name or any(c in name for c in "/\\ ") or name.startswith("."):
        raise ArchiveError(f"archive name {name!r}: use letters, digits, '-', '_' or '.'")
    archive, manifest = root / ARCHIVE / f"{name}.tar.xz", root / ARCHIVE / f"{name}.json"
    if archive.exists() or manifest.exists():
        raise ArchiveError(f"{archive.relative_to(root)} exists: pack under another name")
    rels = sorted({_rel(root, p) for p in paths})
    nested = [r for r in rels if any(o != r and o in r.parents for o in rels)]
    if nested:
        raise ArchiveError(f"{nested[0]} lies inside another root given")
    cited = _cited_by_tests(root, rels)
    if cited:
        first = next(iter(cited))
        raise ArchiveError(f"{first} is read by {cited[first]} (the CPU suite runs on a clean clone): keep it unpacked")
    files = _files(root, rels)
    blobs = {str(f): (root / f).read_bytes() for f in files}
    data = _tar_bytes(blobs)
    entries = [{"path": f, "bytes": len(b), "sha256": sha256(b)} for f, b in blobs.items()]
    archive.parent.mkdir(parents=True, exist_ok=True)
    archive.write_bytes(data)
    if _members(archive) != blobs:
        archive.unlink()
        raise ArchiveError(f"{archive.name}: read back differs from the files packed (nothing removed)")
    man = {"name": name, "packed": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
           "roots": [str(r) for r in rels], "kinds": {str(r): "dir" if (root / r).is_dir() else "file" for r in rels},
           "bytes": sum(e["bytes"] for e in entries), "archive_bytes": len(data), "files": entries}
    manifest.write_text(json.dumps(man, indent=1) + "\n")
    for f in files:
        (root / f).unlink()
    for r in rels:  # folders left empty
        for d in sorted((p for p in [root / r, *(root / r).rglob("*")] if p.is_dir()), key=lambda p: -len(p.parts)):
            if not any(d.iterdir()):
                d.rmdir()
    write_ignores(root)
    return man


def unpack(root: Path, names: list[str]) -> tuple[int, list[str]]:
    """Restore the named archives (all by default): ``(files written, files left alone because they differ)``."""
    mans = manifests(root)
    unknown = [n for n in names if n not in mans]
    if unknown:
        raise ArchiveError(f"no archive {unknown[0]!r} (have: {', '.join(mans) or 'none'})")
    written, differing = 0, []
    for name in names or list(mans):
        for path, data in _members(root / ARCHIVE / f"{name}.tar.xz").items():
            target = root / path
            if target.is_file():
                if target.read_bytes() != data:
                    differing.append(path)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            written += 1
    return written, differing


def check(root: Path) -> list[str]:
    """Problems found: a member missing, extra or changed against its manifest; the ignore block out of date."""
    problems = []
    for name, man in manifests(root).items():
        archive = root / ARCHIVE / f"{name}.tar.xz"
        if not archive.is_file():
            problems.append(f"{name}: {archive.relative_to(root)} missing")
            continue
        got = {k: sha256(v) for k, v in _members(archive).items()}
        want = {e["path"]: e["sha256"] for e in man["files"]}
        problems += [f"{name}: {p} differs from its manifest" for p in sorted(set(got) | set(want))
                     if got.get(p) != want.get(p)]
    ign = root / IGNORE
    old = ign.read_text() if ign.is_file() else ""
    if manifests(root) and ignore_text(root, old) != old:
        problems.append(f"{IGNORE} is not the one the manifests give: run `python scripts/results_archive.py check "
                        "--fix-ignores`")
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=ROOT, help="repository root (default: this checkout)")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("pack", help="archive PATHs under benchmarks/results/ and remove them")
    p.add_argument("name")
    p.add_argument("paths", nargs="+")
    for cmd in ("unpack", "list"):
        sub.add_parser(cmd).add_argument("names", nargs="*")
    sub.add_parser("check").add_argument("--fix-ignores", action="store_true",
                                         help="rewrite benchmarks/results/.gitignore from the manifests")
    args = ap.parse_args(argv)
    root = args.root
    try:
        if args.cmd == "pack":
            man = pack(root, args.name, args.paths)
            print(f"{args.name}: {len(man['files'])} files, {man['bytes'] / 1e6:.1f} MB -> "
                  f"{man['archive_bytes'] / 1e6:.2f} MB ({ARCHIVE}/{args.name}.tar.xz); {len(man['roots'])} roots "
                  f"ignored in {IGNORE}; commit with: git add -A {RESULTS}")
            return 0
        if args.cmd == "unpack":
            written, differing = unpack(root, args.names)
            print(f"unpacked {written} files" + (f"; {len(differing)} already there with other content, left alone: "
                                                 + ", ".join(differing[:5]) if differing else ""))
            return 1 if differing else 0
        if args.cmd == "list":
            for name, man in manifests(root).items():
                if args.names and name not in args.names:
                    continue
                print(f"{name}: {len(man['files'])} files, {man['bytes'] / 1e6:.1f} MB in "
                      f"{man['archive_bytes'] / 1e6:.2f} MB, packed {man['packed']}")
                print("\n".join(f"  {r}" for r in man["roots"]))
            return 0
        if args.fix_ignores:
            write_ignores(root)
        problems = check(root)
        print("\n".join(problems) if problems else f"{len(manifests(root))} archives match their manifests")
        return 1 if problems else 0
    except ArchiveError as exc:
        print(f"results_archive: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
