# Sourced by ./mqconform, scripts/test.sh and scripts/conformance.sh: the project's Python (its own
# tree and pytest's rewritten test modules) is compiled once, into .venv/pycache, and read from there
# by every later process. Without it, where PYTHONDONTWRITEBYTECODE is set (as on CI machines), each
# pytest worker, report build, gate and CLI call compiles the whole tree again: about 0.9 s of a
# pytest process's 3.3 s start (measured with `pytest suites --collect-only`). The bytecode is Python's
# own cache, checked against each source file's time and size: it changes no result. A prefix given
# in PYTHONPYCACHEPREFIX is kept.
_mqc_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PYTHONPYCACHEPREFIX="${PYTHONPYCACHEPREFIX:-$_mqc_root/.venv/pycache}"
unset PYTHONDONTWRITEBYTECODE _mqc_root
