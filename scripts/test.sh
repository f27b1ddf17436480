#!/usr/bin/env bash
# The project's own tests (tests/): loader, schema, plugin, codecs, records, reports, provisioning.
# Broker containers are exercised only by tests marked `containers`, included when the engine works.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
exec .venv/bin/python -m pytest tests -n 2 -p no:cacheprovider "$@"
