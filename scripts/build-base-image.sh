#!/usr/bin/env bash
# Build a minimal Debian base image locally, without any image registry:
#   debootstrap --variant=minbase SUITE DIR MIRROR; tar -C DIR -c . | <engine> import - IMAGE
#
#   scripts/build-base-image.sh SUITE [IMAGE]      e.g. trixie  -> mqconform/debian-base:trixie
#
# Cached: nothing is done when IMAGE already exists (MQCONFORM_REBUILD_BASE=1 forces a rebuild).
# Env: MQCONFORM_ENGINE_CLI (podman|docker; default podman when installed, else docker),
#      MQCONFORM_DEBIAN_MIRROR (default: the host's Debian mirror from /etc/apt, else deb.debian.org),
#      MQCONFORM_STATE (scratch space; default <project>/.mqconform),
#      CONTAINERS_CONF (for podman; scripts/container-engine.sh prints it),
#      MQCONFORM_BASE_SOURCE (debootstrap|registry; default: debootstrap when it can run as root,
#      else the registry's debian:SUITE image).
# Prints the image id on stdout.
set -euo pipefail

suite="${1:?usage: build-base-image.sh SUITE [IMAGE]}"
image="${2:-mqconform/debian-base:$suite}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
state="${MQCONFORM_STATE:-$root/.mqconform}"
if [ -z "${CONTAINERS_CONF:-}" ] && [ -f "$state/containers.conf" ]; then
    export CONTAINERS_CONF="$state/containers.conf"
fi

cli="${MQCONFORM_ENGINE_CLI:-}"
if [ -z "$cli" ]; then
    if command -v podman >/dev/null 2>&1; then cli=podman; else cli=docker; fi
fi
log() { echo "build-base-image: $*" >&2; }
die() { echo "build-base-image: error: $*" >&2; exit 1; }

image_id() { "$cli" image inspect --format '{{.Id}}' "$1" 2>/dev/null; }

if [ "${MQCONFORM_REBUILD_BASE:-0}" != 1 ] && id="$(image_id "$image")" && [ -n "$id" ]; then
    echo "$id"; exit 0
fi

mirror="${MQCONFORM_DEBIAN_MIRROR:-}"
if [ -z "$mirror" ]; then
    mirror="$(grep -h -E '^(URIs:|deb )' /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null \
              | grep -o -E 'https?://[^ ]+/debian/?( |$)' | grep -v security | head -n1 | tr -d ' ' || true)"
    mirror="${mirror:-http://deb.debian.org/debian}"
fi

if ! command -v debootstrap >/dev/null 2>&1 || [ "$(id -u)" -ne 0 ] || [ "${MQCONFORM_BASE_SOURCE:-}" = registry ]; then
    # A machine with a registry but without debootstrap/root (e.g. Docker Desktop):
    # the official Debian image stands in for the debootstrap base.
    [ "${MQCONFORM_BASE_SOURCE:-}" = debootstrap ] && die "debootstrap needs root and the debootstrap package"
    log "no debootstrap as root here: using docker.io/library/debian:$suite from the registry"
    timeout 600 "$cli" pull "docker.io/library/debian:$suite" >&2 \
        || die "neither debootstrap (as root) nor the registry image debian:$suite is available"
    "$cli" tag "docker.io/library/debian:$suite" "$image"
    image_id "$image"
    exit 0
fi

work="$state/rootfs"
mkdir -p "$work"
dir="$(mktemp -d "$work/$suite.XXXXXX")"
trap 'rm -rf --one-file-system "$dir"' EXIT

# A suite newer than this debootstrap (forky on debootstrap 1.0.128) is bootstrapped with sid's
# script: Debian's testing and unstable suites share it (newer debootstraps link them so).
script=()
scripts_dir="${DEBOOTSTRAP_DIR:-/usr/share/debootstrap}/scripts"
if [ -d "$scripts_dir" ] && [ ! -e "$scripts_dir/$suite" ] && [ -e "$scripts_dir/sid" ]; then
    log "debootstrap has no script for $suite: using sid's"
    script=("$scripts_dir/sid")
fi
log "debootstrap --variant=minbase $suite from $mirror"
start=$(date +%s)
if ! timeout 900 debootstrap --variant=minbase "$suite" "$dir" "$mirror" "${script[@]}" > "$dir.log" 2>&1; then
    tail -n 30 "$dir.log" >&2
    die "debootstrap $suite failed (log: $dir.log)"
fi
rm -f "$dir.log"
# Small, reproducible-enough rootfs: no apt lists or caches in the image.
rm -rf "$dir"/var/lib/apt/lists/* "$dir"/var/cache/apt/*.bin "$dir"/var/cache/apt/archives/*.deb
debootstrap_version="$(dpkg-query -W -f '${Version}' debootstrap 2>/dev/null || echo unknown)"
created="$(date -u +%Y-%m-%dT%H:%M:%SZ)"

log "importing as $image"
tar -C "$dir" --numeric-owner -c . | "$cli" import \
    --change "LABEL mqconform.base.suite=$suite" \
    --change "LABEL mqconform.base.mirror=$mirror" \
    --change "LABEL mqconform.base.created=$created" \
    --change "LABEL mqconform.base.debootstrap=$debootstrap_version" \
    --change "ENV LANG=C.UTF-8" \
    --change 'CMD ["/bin/bash"]' \
    - "$image" >/dev/null
log "built $image in $(( $(date +%s) - start ))s"
image_id "$image"
