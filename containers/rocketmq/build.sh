#!/usr/bin/env bash
# Pre-build step for the rocketmq image: assemble RocketMQ's lib/ directory on the host from the
# jars on Maven Central (the binary zip is not published there), and check it against the pin of
# the version asked for: pins/$ROCKETMQ_VERSION.pin (the catalog entry's build arg, which the
# prebuild gets in its environment). One pin per version, one script for all.
#
#   ROCKETMQ_VERSION=5.5.0 containers/rocketmq/build.sh OUTDIR
#     -> OUTDIR/lib/*.jar (runtime closure of rocketmq-namesrv, rocketmq-proxy (which pulls the
#        broker) and rocketmq-tools (the mqadmin CLI)), OUTDIR/lib.sha256 (sha256 of every jar),
#        OUTDIR/provenance-rocketmq.txt, OUTDIR/rocketmq.pin (the pin used, which the Containerfile
#        checks again)
#
# Why on the host: Maven and Java are installed on mqconform's machines and reach Maven Central
# (its trust store included); a build container does not. Maven resolves through its own
# repository cache (~/.m2), with -C (a checksum that does not match the repository's .sha1 fails
# the build). A generated pom pins the three artifacts at the version in the pin; the
# resolved closure must then hash, as a whole (lib.sha256 sorted by file name), to the pin's
# lib.sha256, and the main jars to their pinned sha256 each. Print the values for a new pin with
#   ROCKETMQ_PIN_PRINT=1 ROCKETMQ_VERSION=X containers/rocketmq/build.sh /tmp/x
# (pins/X.pin then needs only its comment, version= and artifacts=).
set -euo pipefail
out="${1:?usage: build.sh OUTDIR}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
command -v mvn >/dev/null 2>&1 || { echo "rocketmq build: mvn is not installed (needed to fetch the jars)" >&2; exit 1; }
asked="${ROCKETMQ_VERSION:-}"
[ -n "$asked" ] || { echo "rocketmq build: ROCKETMQ_VERSION (the build arg of the catalog entry) is not set" >&2; exit 1; }
pinfile="$here/pins/$asked.pin"
[ -f "$pinfile" ] || { echo "rocketmq build: no pin for RocketMQ $asked ($pinfile)" >&2; exit 1; }
pin() { sed -n "s/^$1=//p" "$pinfile"; }
version="$(pin version)"; artifacts="$(pin artifacts)"; want_lib="$(pin lib.sha256)"
[ -n "$version" ] && [ -n "$artifacts" ] || { echo "rocketmq build: $pinfile lacks version= or artifacts=" >&2; exit 1; }
# The file's name and its version= agree, so the image is of the version the catalog names.
[ "$version" = "$asked" ] || { echo "rocketmq build: $pinfile pins version=$version" >&2; exit 1; }
group=org.apache.rocketmq
mkdir -p "$out"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
{
    echo '<project xmlns="http://maven.apache.org/POM/4.0.0">'
    echo '  <modelVersion>4.0.0</modelVersion>'
    echo '  <groupId>mqconform</groupId><artifactId>rocketmq-lib</artifactId><version>1</version><packaging>pom</packaging>'
    echo '  <dependencies>'
    for a in $artifacts; do
        echo "    <dependency><groupId>$group</groupId><artifactId>$a</artifactId><version>$version</version></dependency>"
    done
    echo '  </dependencies>'
    echo '</project>'
} > "$work/pom.xml"
rm -rf "$out/lib"
# A pinned plugin version; runtime scope (no test/provided jars).
timeout 900 mvn -B -q -C -Dstyle.color=never -f "$work/pom.xml" \
    org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies \
    -DoutputDirectory="$out/lib" -DincludeScope=runtime -Dmdep.overWriteReleases=true >&2
(cd "$out/lib" && LC_ALL=C sha256sum -- *.jar) > "$out/lib.sha256"
got_lib="$(sha256sum < "$out/lib.sha256" | cut -d' ' -f1)"
njars="$(wc -l < "$out/lib.sha256")"
if [ -n "${ROCKETMQ_PIN_PRINT:-}" ]; then
    echo "lib.sha256=$got_lib"
    for a in $artifacts; do echo "sha256.$a=$(sha256sum "$out/lib/$a-$version.jar" | cut -d' ' -f1)"; done
    exit 0
fi
fail() { echo "rocketmq build: $*" >&2; rm -rf "$out/lib"; exit 1; }
[ "$got_lib" = "$want_lib" ] || fail "the resolved lib/ ($njars jars, list in $out/lib.sha256) hashes to $got_lib, $pinfile says lib.sha256=$want_lib"
cp "$pinfile" "$out/rocketmq.pin"
prov="$out/provenance-rocketmq.txt"
{
    echo "rocketmq.version=$version"
    echo "rocketmq.lib.jars=$njars"
    echo "rocketmq.lib.sha256=$got_lib"
    for a in $artifacts; do
        f="$out/lib/$a-$version.jar"
        [ -f "$f" ] || fail "$a-$version.jar is not in the resolved lib/"
        s256="$(sha256sum "$f" | cut -d' ' -f1)"
        [ "$s256" = "$(pin "sha256.$a")" ] || fail "$a-$version.jar has sha256 $s256, $pinfile says $(pin "sha256.$a")"
        echo "rocketmq.maven.$a=$group:$a:$version"
        echo "rocketmq.jar.$a.sha256=$s256"
        echo "rocketmq.jar.$a.sha1=$(sha1sum "$f" | cut -d' ' -f1)"
    done
    # The transitive jars that matter most to the wire: the broker core and the gRPC protocol.
    for f in "$out"/lib/rocketmq-proto-*.jar "$out"/lib/grpc-netty-shaded-*.jar "$out"/lib/rocketmq-store-*.jar; do
        [ -f "$f" ] && echo "rocketmq.lib.$(basename "$f" .jar).sha256=$(sha256sum "$f" | cut -d' ' -f1)"
    done
    echo "maven.version=$(mvn -v 2>/dev/null | sed -n '1s/\x1b\[[0-9;]*m//g; 1s/^Apache Maven \([^ ]*\).*/\1/p')"
} > "$prov"
cat "$prov" >&2
