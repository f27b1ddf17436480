"""The command-line entry `./mqconform` (cli/__main__.py)."""
