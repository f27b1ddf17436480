"""Where the reports find things: this checkout (its vectors/, the loader beside reports/), and whether
a path or URI names this machine's own disk. One place, so that a module's depth in reports/ never
decides where the checkout is."""
from __future__ import annotations

from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parent.parent


def is_local_path(uri: str) -> bool:
    return urlparse(uri).scheme in ("", "file") or (len(uri) > 1 and uri[1] == ":")  # C:\...
