"""`mqconform COMMAND`: the console script of an installed mqconform, the same commands as a
checkout's ./mqconform (cli/__main__.py)."""
from __future__ import annotations

import sys

import mqconform  # noqa: F401  (the tree on sys.path, the installed defaults)


def main(argv: list[str] | None = None) -> int:
    from cli.__main__ import main as cli_main
    return cli_main(sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    sys.exit(main())
