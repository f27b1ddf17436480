#!/usr/bin/env bash
# Build a minimal Debian base image locally, without any image registry:
#   mmdebstrap --variant=minbase SUITE ROOTFS.tar MIRROR; <engine> import ROOTFS.tar IMAGE
# or, without mmdebstrap, debootstrap --variant=minbase SUITE DIR MIRROR and a tar of DIR. Both
# make Debian's minbase (the Essential packages, apt, Priority: required) with the mirror in
# /etc/apt/sources.list and no apt lists or caches (the same 78 packages for trixie); mmdebstrap
# installs them with one apt run (half of debootstrap's time for the three bases side by side,
# measured on an idle 2-core machine), debootstrap one package at a time.
#
#   scripts/build-base-image.sh SUITE [IMAGE]      e.g. trixie  -> mqconform/debian-base:trixie
#
# Cached: nothing is done when IMAGE already exists (MQCONFORM_REBUILD_BASE=1 forces a rebuild).
# Env: MQCONFORM_ENGINE_CLI (the engine's command line, words split on spaces: podman, docker, or a
#      remote engine's `podman --remote --url tcp://HOST:PORT`; default podman when installed, else docker),
#      MQCONFORM_DEBIAN_MIRROR (default: the host's Debian mirror from /etc/apt, else deb.debian.org),
#      MQCONFORM_STATE (scratch space; default <project>/.mqconform),
#      CONTAINERS_CONF (for podman; scripts/container-engine.sh prints it),
#      MQCONFORM_BASE_SOURCE (debootstrap|registry; default: debootstrap, meaning a local bootstrap
#      by MQCONFORM_BASE_TOOL, when it can run as root, else the registry's debian:SUITE image),
#      MQCONFORM_BASE_TOOL (mmdebstrap|debootstrap; default mmdebstrap when installed).
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

# The whole command line: a remote engine's images are looked up and imported there, not here.
read -r -a cli <<< "${MQCONFORM_ENGINE_CLI:-}"
if [ "${#cli[@]}" -eq 0 ]; then
    if command -v podman >/dev/null 2>&1; then cli=(podman); else cli=(docker); fi
fi
log() { echo "build-base-image: $*" >&2; }
die() { echo "build-base-image: error: $*" >&2; exit 1; }

image_id() { "${cli[@]}" image inspect --format '{{.Id}}' "$1" 2>/dev/null; }

if [ "${MQCONFORM_REBUILD_BASE:-0}" != 1 ] && id="$(image_id "$image")" && [ -n "$id" ]; then
    echo "$id"; exit 0
fi

mirror="${MQCONFORM_DEBIAN_MIRROR:-}"
if [ -z "$mirror" ]; then
    mirror="$(grep -h -E '^(URIs:|deb )' /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null \
              | grep -o -E 'https?://[^ ]+/debian/?( |$)' | grep -v security | head -n1 | tr -d ' ' || true)"
    mirror="${mirror:-http://deb.debian.org/debian}"
fi

if { ! command -v mmdebstrap >/dev/null 2>&1 && ! command -v debootstrap >/dev/null 2>&1; } \
        || [ "$(id -u)" -ne 0 ] || [ "${MQCONFORM_BASE_SOURCE:-}" = registry ]; then
    # A machine with a registry but without (mm)debootstrap/root (e.g. Docker Desktop):
    # the official Debian image stands in for the local base.
    [ "${MQCONFORM_BASE_SOURCE:-}" = debootstrap ] && die "a local base needs root and the mmdebstrap or debootstrap package"
    log "no mmdebstrap or debootstrap as root here: using docker.io/library/debian:$suite from the registry"
    timeout 600 "${cli[@]}" pull "docker.io/library/debian:$suite" >&2 \
        || die "neither debootstrap (as root) nor the registry image debian:$suite is available"
    "${cli[@]}" tag "docker.io/library/debian:$suite" "$image"
    image_id "$image"
    exit 0
fi

work="$state/rootfs"
mkdir -p "$work"
dir="$(mktemp -d "$work/$suite.XXXXXX")"
trap 'rm -rf --one-file-system "$dir"' EXIT

tool="${MQCONFORM_BASE_TOOL:-}"
if [ -z "$tool" ]; then
    if command -v mmdebstrap >/dev/null 2>&1; then tool=mmdebstrap; else tool=debootstrap; fi
fi
start=$(date +%s)
case "$tool" in
    mmdebstrap)
        command -v mmdebstrap >/dev/null 2>&1 || die "MQCONFORM_BASE_TOOL=mmdebstrap, but mmdebstrap is not installed"
        log "mmdebstrap --variant=minbase $suite from $mirror"
        rootfs="$dir/rootfs.tar"
        # apt's lists and caches are left out of the tarball by mmdebstrap's own cleanup. The Release
        # files of testing and unstable carry a Valid-Until a week ahead, and a mirror serving an older
        # snapshot is still signed by Debian: the signature is checked, the date is not (as debootstrap
        # does, and the Containerfiles' apt-get update); the option is removed from the image after.
        # its scratch chroot goes in this script's scratch folder, not $TMPDIR (often a small tmpfs);
        # apt's unprivileged downloader must be able to reach it
        chmod 755 "$dir"
        if ! TMPDIR="$dir" timeout 900 mmdebstrap --quiet --mode=root --variant=minbase \
                --aptopt='Acquire::Check-Valid-Until "false"' \
                --customize-hook='rm -f "$1"/etc/apt/apt.conf.d/99mmdebstrap' \
                "$suite" "$rootfs" "$mirror" > "$dir.log" 2>&1; then
            tail -n 30 "$dir.log" >&2
            die "mmdebstrap $suite failed (log: $dir.log)"
        fi
        ;;
    debootstrap)
        # A suite newer than this debootstrap (forky on debootstrap 1.0.128) is bootstrapped with sid's
        # script: Debian's testing and unstable suites share it (newer debootstraps link them so).
        script=()
        scripts_dir="${DEBOOTSTRAP_DIR:-/usr/share/debootstrap}/scripts"
        if [ -d "$scripts_dir" ] && [ ! -e "$scripts_dir/$suite" ] && [ -e "$scripts_dir/sid" ]; then
            log "debootstrap has no script for $suite: using sid's"
            script=("$scripts_dir/sid")
        fi
        log "debootstrap --variant=minbase $suite from $mirror"
        mkdir "$dir/root"
        if ! timeout 900 debootstrap --variant=minbase "$suite" "$dir/root" "$mirror" "${script[@]}" > "$dir.log" 2>&1; then
            tail -n 30 "$dir.log" >&2
            die "debootstrap $suite failed (log: $dir.log)"
        fi
        # Small, reproducible-enough rootfs: no apt lists or caches in the image.
        rm -rf "$dir"/root/var/lib/apt/lists/* "$dir"/root/var/cache/apt/*.bin "$dir"/root/var/cache/apt/archives/*.deb
        rootfs="$dir/rootfs.tar"
        tar -C "$dir/root" --numeric-owner -cf "$rootfs" .
        rm -rf --one-file-system "$dir/root"
        ;;
    *) die "MQCONFORM_BASE_TOOL=$tool: expected mmdebstrap or debootstrap" ;;
esac
rm -f "$dir.log"
tool_version="$tool $(dpkg-query -W -f '${Version}' "$tool" 2>/dev/null || echo unknown)"
created="$(date -u +%Y-%m-%dT%H:%M:%SZ)"

log "importing as $image"
"${cli[@]}" import \
    --change "LABEL mqconform.base.suite=$suite" \
    --change "LABEL mqconform.base.mirror=$mirror" \
    --change "LABEL mqconform.base.created=$created" \
    --change "LABEL mqconform.base.tool=$tool_version" \
    --change "ENV LANG=C.UTF-8" \
    --change 'CMD ["/bin/bash"]' \
    "$rootfs" "$image" >/dev/null
log "built $image in $(( $(date +%s) - start ))s"
image_id "$image"
