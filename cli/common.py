"""What every command of ./mqconform shares: its name, the exit-code convention and how a command's
--help refers to it (cli/__main__.py states the convention once, in `./mqconform --help`)."""
from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# `mqconform` when installed (src/mqconform/__init__.py sets MQCONFORM_PROG), else a checkout's entry
PROG = os.environ.get("MQCONFORM_PROG", "./mqconform")
CONVENTION = """\
exit codes, one convention for every command:
  0  done, and the result is good
  1  done, and the result is bad (failures, not conformant, does not verify, leftovers that stay)
  2  usage or input error: nothing was done (bad arguments, a --spec matching no spec, invalid rows)
  3  the command could not do its work: interrupted (Ctrl-C, SIGTERM, SIGHUP), no container engine,
     no certificate, Spark or the environment failed
"""
REFER = f"exit codes (the convention of `{PROG} --help`):"
