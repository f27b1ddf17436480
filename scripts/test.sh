#!/usr/bin/env bash
# The project's own tests (tests/): loader, schema, plugin, codecs, records, reports, provisioning.
# Tests marked `containers` start real brokers through podman or Docker; the engine and the
# broker images are prepared here first (idempotent, about 4 minutes on a new machine).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
[ -d /usr/local/go/bin ] && export PATH="$PATH:/usr/local/go/bin"
if bash scripts/container-engine.sh ensure >/dev/null; then
  .venv/bin/python -m fixtures.provision build
else
  echo "test: no container engine; tests marked 'containers' will fail under CI=true and skip elsewhere" >&2
fi
exec .venv/bin/python -m pytest tests -n 2 -p no:cacheprovider "$@"
