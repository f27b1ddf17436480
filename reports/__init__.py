"""mqconform reports: compliance reports built on Spark, and the CI gate.

Subcommands (``python -m reports --help``): build, gate, bench, coverage.
Only ``build`` and ``bench`` need Spark; ``gate`` is plain Python so that it
stays fast in CI.
"""
