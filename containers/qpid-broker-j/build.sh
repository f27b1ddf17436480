#!/usr/bin/env bash
# Pre-build step for the qpid-broker-j image: fetch the Broker-J binary distribution from Maven
# Central on the host and verify it, into the build context.
#
#   containers/qpid-broker-j/build.sh OUTDIR
#     -> OUTDIR/apache-qpid-broker-j-<version>-bin.tar.gz, OUTDIR/provenance-qpid.txt
#
# Why on the host: the host is what is set up to reach Maven Central (its trust store included);
# a build container is not. The version and sha256 are pinned in dist.env; the download must
# match the pin, Maven Central's .sha256 file, and its .sha1 file. The Containerfile checks the
# sha256 again before unpacking.
set -euo pipefail
out="${1:?usage: build.sh OUTDIR}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=dist.env
. "$here/dist.env"
: "${QPID_VERSION:?dist.env sets no QPID_VERSION}" "${QPID_SHA256:?dist.env sets no QPID_SHA256}"
central="${MQCONFORM_MAVEN_CENTRAL:-https://repo1.maven.org/maven2}"
base="$central/org/apache/qpid/apache-qpid-broker-j/$QPID_VERSION"
f="apache-qpid-broker-j-$QPID_VERSION-bin.tar.gz"
command -v curl >/dev/null 2>&1 || { echo "qpid-broker-j build: curl is not installed" >&2; exit 1; }
mkdir -p "$out"
get() { curl -fsSL --retry 3 --connect-timeout 20 --max-time "$2" -o "$out/$(basename "$1")" "$1"; }
get "$base/$f" 600
get "$base/$f.sha256" 60
get "$base/$f.sha1" 60
sha256="$(sha256sum "$out/$f" | cut -d' ' -f1)"
sha1="$(sha1sum "$out/$f" | cut -d' ' -f1)"
fail() { echo "qpid-broker-j build: $f: $*" >&2; rm -f "$out/$f"; exit 1; }
[ "$sha256" = "$QPID_SHA256" ] || fail "sha256 $sha256, pinned (dist.env) $QPID_SHA256"
[ "$sha256" = "$(tr -d '\r\n' < "$out/$f.sha256" | cut -d' ' -f1)" ] || fail "sha256 $sha256 differs from $f.sha256 on Maven Central"
[ "$sha1" = "$(tr -d '\r\n' < "$out/$f.sha1" | cut -d' ' -f1)" ] || fail "sha1 $sha1 differs from $f.sha1 on Maven Central"
rm -f "$out/$f.sha256" "$out/$f.sha1"
# The source commit the release was built from (Implementation-Build in the core jar's manifest).
commit="$(python3 - "$out/$f" "$QPID_VERSION" <<'PY'
import io, sys, tarfile, zipfile
path, version = sys.argv[1], sys.argv[2]
with tarfile.open(path) as tar:
    jar = tar.extractfile(f"qpid-broker/{version}/lib/qpid-broker-core-{version}.jar").read()
manifest = zipfile.ZipFile(io.BytesIO(jar)).read("META-INF/MANIFEST.MF").decode()
print(next((l.split(":", 1)[1].strip() for l in manifest.splitlines() if l.startswith("Implementation-Build:")), "unknown"))
PY
)"
{
    echo "qpid.version=$QPID_VERSION"
    echo "qpid.dist=org.apache.qpid:apache-qpid-broker-j:$QPID_VERSION:bin@tar.gz"
    echo "qpid.dist.url=$base/$f"
    echo "qpid.dist.sha256=$sha256"
    echo "qpid.dist.sha1=$sha1"
    echo "qpid.build.commit=$commit"
} > "$out/provenance-qpid.txt"
cat "$out/provenance-qpid.txt" >&2
