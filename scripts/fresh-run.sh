#!/usr/bin/env bash
# The main job's first run as on a fresh machine, measured: a new `git clone` of this repository
# runs `bash scripts/conformance.sh` in a mount namespace (unshare -m) where every place the
# project leaves state outside its clone is an empty folder bound over the real one.
#
#   sudo bash scripts/fresh-run.sh [REF] [-- conformance.sh options]     REF: default HEAD
#
# Hidden (empty for the run): the container engine's storage and run state (/var/lib/containers,
# /run/containers, /run/libpod, ~/.local/share/containers, ~/.config/containers), pip's, Go's
# build and Maven's/Ivy's caches (~/.cache, ~/.m2, ~/.ivy2, ~/go). The project's own state
# (.venv, .mqconform, out/) is in the new clone, so it starts empty too; base images'
# debootstrap work is under .mqconform.
# Not fresh: the Debian packages already installed (podman, runc, (mm)debootstrap, Java, Chromium,
# Maven, Go): their install is timed apart (scripts/fresh-run.sh --apt-only) and added as a
# phase of its own; CNI's address allocations (/var/lib/cni: shared with any other podman on
# the machine so that two engines never hand out one address); the host's page cache.
#
# Output: the run's folder (printed), with out/timing.md, out/phases.txt, run.log and, with
# --apt-only, apt.txt. The run's podman service, containers and images are removed at the end
# with the hidden storage, .venv and .mqconform; the rest of the folder is kept for reading:
# remove it yourself.
# Env: MQCONFORM_FRESH_TIMEOUT (seconds for the whole job, default 1800).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
[ "$(id -u)" = 0 ] || { echo "fresh-run: needs root (mount namespace, Debian packages)" >&2; exit 2; }

# The Debian packages a new machine lacks, timed apart: downloaded into an empty cache (apt's own
# lists kept), then unpacked with dpkg into a scratch root (no installed package is touched).
apt_phase() {
    local dir="$1" pkgs=(podman runc debootstrap mmdebstrap uidmap fuse-overlayfs slirp4netns iptables
        conmon containernetworking-plugins golang-github-containers-common golang-github-containers-image
        libgpgme11 libslirp0 libsubid4 libfuse3-3 fuse3 libnftnl11 libnetfilter-conntrack3 libnfnetlink0 libip6tc2)
    mkdir -p "$dir/apt-cache/partial" "$dir/apt-root"
    local t0 t1 t2
    t0=$(date +%s.%N)
    timeout 600 apt-get install -qq --reinstall --download-only -o Dir::Cache::archives="$dir/apt-cache" \
        "${pkgs[@]}" >/dev/null
    t1=$(date +%s.%N)
    for deb in "$dir"/apt-cache/*.deb; do dpkg-deb -x "$deb" "$dir/apt-root"; done
    t2=$(date +%s.%N)
    {
        echo "packages: ${pkgs[*]}"
        echo "files: $(ls "$dir"/apt-cache/*.deb | wc -l), $(du -sh "$dir/apt-cache" | cut -f1)"
        printf 'download_s: %.1f\nunpack_s: %.1f\n' "$(echo "$t1 - $t0" | bc)" "$(echo "$t2 - $t1" | bc)"
    } | tee "$dir/apt.txt"
    rm -rf "$dir/apt-cache" "$dir/apt-root"
}

apt_only=0 ref=HEAD args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --apt-only) apt_only=1; shift ;;
        --) shift; args=("$@"); break ;;
        *) ref="$1"; shift ;;
    esac
done
run="$(mktemp -d /var/tmp/mqconform-fresh.XXXXXX)"
echo "fresh-run: folder $run" >&2
if [ "$apt_only" = 1 ]; then apt_phase "$run"; exit 0; fi

commit="$(git -C "$repo" rev-parse "$ref")"
git clone -q --no-hardlinks "$repo" "$run/clone"
git -C "$run/clone" checkout -q --detach "$commit"
echo "fresh-run: $ref = $commit" >&2

hidden=(/var/lib/containers /run/containers /run/libpod "$HOME/.local/share/containers" "$HOME/.config/containers"
        "$HOME/.cache" "$HOME/.m2" "$HOME/.ivy2" "$HOME/go")
binds=""
for i in "${!hidden[@]}"; do
    mkdir -p "$run/hidden/$i"
    binds+="mkdir -p '${hidden[$i]}' && mount --bind '$run/hidden/$i' '${hidden[$i]}'"$'\n'
done
# Inside the namespace: hide, run the job, then remove whatever of the engine is left (only the
# hidden storage is reachable from here).
inner="set -u
$binds
cd '$run/clone'
rc=0
MQCONFORM_STATE='$run/clone/.mqconform' timeout --foreground -k 30 ${MQCONFORM_FRESH_TIMEOUT:-1800} \\
    bash scripts/conformance.sh \"\$@\" || rc=\$?
CONTAINERS_CONF='$run/clone/.mqconform/containers.conf' podman rm -af -t 5 >/dev/null 2>&1
bash scripts/container-engine.sh stop >/dev/null 2>&1
exit \$rc"
start=$(date +%s)
set +e
env -u DOCKER_HOST -u CONTAINERS_CONF -u MQCONFORM_STATE -u MQCONFORM_OUT -u VIRTUAL_ENV \
    unshare -m --propagation private bash -c "$inner" fresh-run "${args[@]}" 2>&1 | tee "$run/run.log"
rc=${PIPESTATUS[0]}
set -e
echo "fresh-run: exit $rc after $(( $(date +%s) - start ))s; phases in $run/clone/out/timing.md" >&2
cat "$run/clone/out/timing.md" 2>/dev/null || true
# The first report is written when the phase after "report (Spark)" begins (phases.txt: fixtures/run/clock.py).
awk '$2 !~ /^~/ { if (!t0) t0 = $1; if (rep) { printf "fresh-run: first report %.0fs after the start\n", $1 - t0; exit }
     if ($0 ~ / report \(Spark\)$/) rep = 1 }' "$run/clone/out/phases.txt" 2>/dev/null | tee -a "$run/run.log" >&2 || true
# The engine's storage and the environment are the run's alone; the clone's out/ and the logs stay.
# Tried a few times: a podman exec session's conmon, which outlives its container by podman's exit
# delay, may still be writing to the storage when the run ends.
for _ in 1 2 3 4 5 6 7 8 9 10; do
    rm -rf --one-file-system "$run/hidden" "$run/clone/.venv" "$run/clone/.mqconform" 2>/dev/null && break
    sleep 3
done
if [ -e "$run/hidden" ]; then echo "fresh-run: could not remove $run/hidden" >&2; [ "$rc" != 0 ] || rc=1; fi
exit "$rc"
