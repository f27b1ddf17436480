#!/usr/bin/env bash
# Pre-build step for the artemis image: fetch the Artemis binary distribution on the host with
# Maven (from Maven Central, with Maven's checksum check made strict) at the coordinates pinned
# in artemis.pin, and check it against the SHA-512 pinned there.
#
#   containers/artemis/build.sh OUTDIR   -> OUTDIR/apache-artemis-VERSION-bin.tar.gz,
#                                           OUTDIR/provenance-artemis.txt
#
# Why on the host: Maven and Java are installed on mqconform's machines, and the download then
# goes through Maven's own repository cache (~/.m2), so a rebuild does not fetch it again.
# The image itself gets only the tarball (no Maven, no network use at build time).
set -euo pipefail
out="${1:?usage: build.sh OUTDIR}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
command -v mvn >/dev/null 2>&1 || { echo "artemis build: mvn is not installed (needed to fetch the distribution)" >&2; exit 1; }
pin() { sed -n "s/^$1=//p" "$here/artemis.pin"; }
artifact="$(pin artifact)"; want="$(pin sha512)"
[ -n "$artifact" ] && [ -n "$want" ] || { echo "artemis build: artemis.pin lacks artifact= or sha512=" >&2; exit 1; }
IFS=: read -r group name version type classifier <<<"$artifact"
file="$name-$version-$classifier.$type"
mkdir -p "$out"
# A pinned plugin version; -C: fail (not warn) when the repository's checksum does not match.
timeout 600 mvn -B -q -C -Dstyle.color=never org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy \
    -Dartifact="$artifact" -DoutputDirectory="$out" -Dmdep.overWriteReleases=true >&2
got="$(sha512sum "$out/$file" | cut -d' ' -f1)"
if [ "$got" != "$want" ]; then
    echo "artemis build: $file has SHA-512 $got, artemis.pin says $want" >&2
    exit 1
fi
{
    echo "artemis.version=$version"
    echo "artemis.maven=$group:$name:$version:$type:$classifier"
    echo "artemis.sha512=$got"
    echo "maven.version=$(mvn -v 2>/dev/null | sed -n '1s/\x1b\[[0-9;]*m//g; 1s/^Apache Maven \([^ ]*\).*/\1/p')"
} > "$out/provenance-artemis.txt"
cat "$out/provenance-artemis.txt" >&2
