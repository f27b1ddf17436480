"""One certification at a time writes a given bundle folder.

`claim(OUT)` holds an exclusive lock (flock) on the sibling file `OUT.lock` for the whole
certification, and yields None; when another live certification holds it, it yields what that one
is ("pid N") at once, without waiting (an hour's run is not worth waiting for only to find OUT
written). The lock goes with its process, however it ends; the file is removed by the holder at
the end. A holder that removed the file while a second process was opening it leaves that
process a lock on a file no longer there: the claim is then taken again on the new file.
"""
from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path


@contextlib.contextmanager
def claim(out: Path):
    path = out.with_name(f"{out.name}.lock")
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 100).decode(errors="replace").strip() or "a process"
            os.close(fd)
            yield holder
            return
        try:
            same = os.stat(path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)   # the file was removed by a holder that ended meanwhile: claim the new one
    try:
        os.ftruncate(fd, 0)
        os.write(fd, f"pid {os.getpid()}".encode())
        yield None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)
        os.close(fd)
