#!/usr/bin/env bash
# Pre-build step for the activemq image: fetch the ActiveMQ Classic binary distribution on the host
# with Maven (from Maven Central, with Maven's checksum check made strict) at the coordinates pinned
# in activemq.pin, and check it against the SHA-512 pinned there.
#
#   containers/activemq/build.sh OUTDIR   -> OUTDIR/apache-activemq-VERSION-bin.tar.gz,
#                                            OUTDIR/provenance-activemq.txt
#
# The version comes from the build arg ACTIVEMQ_VERSION (in the environment of a prebuild) and must
# be the pinned one. On the host: the host is what reaches Maven Central, through Maven's own
# repository cache (~/.m2); the image gets only the tarball (no Maven, no network use at build time).
set -euo pipefail
out="${1:?usage: build.sh OUTDIR}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
command -v mvn >/dev/null 2>&1 || { echo "activemq build: mvn is not installed (needed to fetch the distribution)" >&2; exit 1; }
pin() { sed -n "s/^$1=//p" "$here/activemq.pin"; }
artifact="$(pin artifact)"; want="$(pin sha512)"
[ -n "$artifact" ] && [ -n "$want" ] || { echo "activemq build: activemq.pin lacks artifact= or sha512=" >&2; exit 1; }
IFS=: read -r group name version type classifier <<<"$artifact"
if [ -n "${ACTIVEMQ_VERSION:-}" ] && [ "$ACTIVEMQ_VERSION" != "$version" ]; then
    echo "activemq build: the catalog asks for $ACTIVEMQ_VERSION, activemq.pin pins $version" >&2
    exit 1
fi
file="$name-$version-$classifier.$type"
mkdir -p "$out"
# A pinned plugin version; -C: fail (not warn) when the repository's checksum does not match.
timeout 600 mvn -B -q -C -Dstyle.color=never org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy \
    -Dartifact="$artifact" -DoutputDirectory="$out" -Dmdep.overWriteReleases=true >&2
got="$(sha512sum "$out/$file" | cut -d' ' -f1)"
if [ "$got" != "$want" ]; then
    echo "activemq build: $file has SHA-512 $got, activemq.pin says $want" >&2
    rm -f "$out/$file"
    exit 1
fi
{
    echo "activemq.version=$version"
    echo "activemq.maven=$group:$name:$version:$type:$classifier"
    echo "activemq.sha512=$got"
    echo "maven.version=$(mvn -v 2>/dev/null | sed -n '1s/\x1b\[[0-9;]*m//g; 1s/^Apache Maven \([^ ]*\).*/\1/p')"
} > "$out/provenance-activemq.txt"
cat "$out/provenance-activemq.txt" >&2
