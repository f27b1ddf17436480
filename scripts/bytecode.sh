# Sourced by ./mqconform, scripts/test.sh and scripts/conformance.sh: Python keeps the bytecode it
# compiles (Python's own cache, __pycache__ beside each source, ignored by git), also where the
# environment set PYTHONDONTWRITEBYTECODE (as CI machines do). Without it, each pytest worker, report
# build, gate and CLI call compiles the project's whole tree again: about 0.9 s of a pytest process's
# 3.3 s start (measured with `pytest suites --collect-only`). The installed packages' bytecode was
# written when they were installed and is read as it is. Bytecode is checked against each source
# file's time and size: it changes no result.
unset PYTHONDONTWRITEBYTECODE
