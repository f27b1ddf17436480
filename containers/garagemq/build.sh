#!/usr/bin/env bash
# Pre-build step for the garagemq image: build the broker binary on the host with Go,
# from the Go module proxy, at the version pinned in gomod/go.mod (verified by gomod/go.sum).
#
#   containers/garagemq/build.sh OUTDIR     -> OUTDIR/garagemq, OUTDIR/provenance-go.txt
#
# Why on the host: Go is installed on mqconform's machines, and the proxy has no
# `@latest`/`list` for github.com/valinurovam/garagemq (so `go install ...@latest` fails);
# a pinned pseudo-version in a tiny build module works. CGO_ENABLED=0 gives a static
# binary that runs on any base image.
set -euo pipefail
out="${1:?usage: build.sh OUTDIR}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
command -v go >/dev/null 2>&1 || { echo "garagemq build: go is not installed (needed to build the broker)" >&2; exit 1; }
mkdir -p "$out"
cd "$here/gomod"
export CGO_ENABLED=0 GOFLAGS="${GOFLAGS:-} -mod=readonly -buildvcs=false"
timeout 600 go build -trimpath -ldflags='-s -w' -o "$out/garagemq" github.com/valinurovam/garagemq
mod="$(go version -m "$out/garagemq" | awk '$1=="mod" && $2=="github.com/valinurovam/garagemq" {print $3" "$4}')"
{
    echo "go.module=github.com/valinurovam/garagemq"
    echo "go.module.version=${mod%% *}"
    echo "go.module.sum=${mod#* }"
    echo "go.toolchain=$(go env GOVERSION)"
} > "$out/provenance-go.txt"
cat "$out/provenance-go.txt" >&2
