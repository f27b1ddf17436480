"""The certification bundle: one folder, every file of it named in a SHA-256 manifest.

    results.jsonl        the rows (docs/results.md), the one source of every verdict
    results.*.jsonl      the run's side files, as the plugin writes them beside the rows (broker
    results.jsonl.*      starts, OpenMessaging figures, scope times): evidence, never read for a verdict
    junit.xml            one test case per row, the row as a JSON property
    report/              the report of the rows (index.html, summary.md, compliance.json, badges/)
    certificate.json     what the certificate says, as data (certify/certificate.py)
    CERTIFICATE.md       the same for people
    deviations.yaml      the vendor's declared deviations, when there are any
    MANIFEST.sha256      `<sha256 hex>  <path>` per file, sorted by path (`sha256sum -c` reads it)

The manifest covers every file but itself; a file missing from it, or in it and missing, is a
verify failure as much as a changed one. A bundle holds regular files and the folders they are in,
nothing else: a symbolic link (to a file or a folder, inside the bundle or out), an empty folder or
any other kind of entry is a verify failure, said by its path.
"""
from __future__ import annotations

import hashlib
import os
import re
import stat
from pathlib import Path

RESULTS = "results.jsonl"
JUNIT = "junit.xml"
REPORT = "report"
CERTIFICATE_JSON = "certificate.json"
CERTIFICATE_MD = "CERTIFICATE.md"
DEVIATIONS = "deviations.yaml"
MANIFEST = "MANIFEST.sha256"
# what a certificate's suite commit carries when the suite had local changes to tracked files
LOCAL_CHANGES = "with local changes to tracked files"

_LINE = re.compile(r"^([0-9a-f]{64})  (\S.*)$")


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def files(folder: Path) -> list[str]:
    """Every file of the bundle but the manifest, as sorted relative POSIX paths."""
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*")
                  if p.is_file() and not p.is_symlink() and p.relative_to(folder).as_posix() != MANIFEST)


def _known(rel: str) -> bool:
    """A file the layout above names (report/ is checked file by file against the rows: certify/regen.py)."""
    return (rel in (RESULTS, JUNIT, CERTIFICATE_JSON, CERTIFICATE_MD, DEVIATIONS)
            or rel.startswith(f"{REPORT}/") or re.fullmatch(r"results\.(?:[A-Za-z0-9_.-]+\.jsonl|jsonl\.[A-Za-z0-9_.-]+)", rel) is not None)


def strays(folder: Path) -> list[str]:
    """Every entry of the folder that is not a regular file or a folder holding some: links, empty
    folders, devices, pipes; one line each (empty: none). Links are never followed."""
    out = []
    for top, dirs, names, in os.walk(folder, followlinks=False):
        for name in sorted(dirs + names):
            p = Path(top) / name
            rel = p.relative_to(folder).as_posix()
            mode = p.lstat().st_mode
            if stat.S_ISLNK(mode):
                out.append(f"{rel}: a symbolic link (to {os.readlink(p)}); a bundle holds files only")
            elif stat.S_ISDIR(mode):
                if not any(True for _ in p.iterdir()):
                    out.append(f"{rel}/: an empty folder; a bundle holds files only")
            elif not stat.S_ISREG(mode):
                out.append(f"{rel}: not a regular file; a bundle holds files only")
            elif rel != MANIFEST and not _known(rel):
                out.append(f"{rel}: no file of that name is part of a bundle (certify/bundle.py)")
    return out


def write_manifest(folder: Path) -> str:
    """Write MANIFEST.sha256 over every other file; returns the manifest's own digest."""
    text = "".join(f"{sha256(folder / rel)}  {rel}\n" for rel in files(folder))
    (folder / MANIFEST).write_text(text, encoding="utf-8")
    return sha256(folder / MANIFEST)


def check_manifest(folder: Path) -> list[str]:
    """Every way the folder differs from its manifest, one line each (empty: it matches)."""
    problems, listed = [], {}
    for n, line in enumerate((folder / MANIFEST).read_text(encoding="utf-8").splitlines(), 1):
        m = _LINE.match(line)
        rel = m.group(2) if m else ""
        if not m or rel.startswith("/") or ".." in Path(rel).parts:
            problems.append(f"{MANIFEST}:{n}: not `<sha256 hex>  <relative path>`: {line[:120]!r}")
            continue
        listed[rel] = (m.group(1), n)
    for rel, (digest, n) in sorted(listed.items()):
        p = folder / rel
        if p.is_symlink():
            continue   # said by strays()
        if not p.is_file():
            problems.append(f"{rel}: listed in {MANIFEST}:{n} but missing")
        elif sha256(p) != digest:
            problems.append(f"{rel}: its SHA-256 is {sha256(p)}, the manifest ({MANIFEST}:{n}) says {digest}")
    for rel in files(folder):
        if rel not in listed:
            problems.append(f"{rel}: in the bundle but not in {MANIFEST}")
    return problems + strays(folder)
