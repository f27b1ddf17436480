#!/usr/bin/env bash
# The main job: the whole conformance suite against the default implementations, ending in a report.
#   bash scripts/conformance.sh [extra pytest options, e.g. --spec 'ce-*' --impl 'rabbitmq-*']
# Output folder: $MQCONFORM_OUT (default out/): results.jsonl, report/ (index.html, summary.md,
# compliance.json, badges/). Exit status: that of `python -m reports gate` (0: no failure beyond
# the known deviations in expectations/; 1: new failures; 2: bad input), or pytest's when the
# run itself broke (interrupted, internal or usage error).
#
# Brokers: the catalog's default run (fixtures/provision/targets.yaml) starts in containers through
# Docker, or podman's Docker API installed and started here when there is no Docker; images are
# built once and cached. Choose others with --target GLOB, or certify your own broker with
# --endpoint NAME=amqp://user:pass@host:port. Containers are removed when the run ends (Ctrl-C too);
# a podman service started here is stopped again.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh || exit 2
[ -d /usr/local/go/bin ] && export PATH="$PATH:/usr/local/go/bin"
started_engine=0
if ! bash scripts/container-engine.sh status >/dev/null 2>&1; then
  if bash scripts/container-engine.sh ensure >/dev/null; then started_engine=1; fi
fi
if [ "$started_engine" = 1 ]; then trap 'bash scripts/container-engine.sh stop >/dev/null 2>&1 || true' EXIT; fi
if bash scripts/container-engine.sh status >/dev/null 2>&1; then
  eval "$(bash scripts/container-engine.sh env | sed 's/^/export /')"
  .venv/bin/python -m fixtures.provision build || echo "conformance: image build failed; those targets will report errors" >&2
else
  echo "conformance: no container engine; broker targets will report errors (use --endpoint for your own broker)" >&2
fi
out=${MQCONFORM_OUT:-out}
mkdir -p "$out"
rm -f "$out/results.jsonl"
.venv/bin/python -m pytest suites -p no:cacheprovider -q -rN --results "$out/results.jsonl" "$@"
status=$?
case $status in 0|1) ;; *) echo "conformance: pytest stopped with status $status; building the report from what ran" >&2 ;; esac
[ -s "$out/results.jsonl" ] || { echo "conformance: no results were written" >&2; exit "$status"; }
.venv/bin/python -m reports build --results "$out/results.jsonl" --out "$out/report" || exit 2
echo "conformance: report in $out/report/index.html"
.venv/bin/python -m reports gate --results "$out/results.jsonl" --expectations expectations
gate=$?
case $status in 0|1) exit $gate ;; *) exit $status ;; esac
