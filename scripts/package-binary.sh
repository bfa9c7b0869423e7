#!/usr/bin/env bash
# Package one built ragdiff binary as a release asset: ragdiff-vVERSION-TARGET.tar.gz
# (the binary, the licenses, README.md) and its sha256 beside it, in the file format
# `sha256sum -c` reads. Used by .github/workflows/release.yml, and by .ci/run as a
# dry run on the debug binary.
#   scripts/package-binary.sh BINARY TARGET OUT_DIR
set -euo pipefail
binary="$1" target="$2" out="$3"
root="$(cd "$(dirname "$0")/.." && pwd)"
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' "$root/Cargo.toml" | head -n 1)"
name="ragdiff-v$version-$target"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/$name" "$out"
cp "$binary" "$stage/$name/ragdiff"
chmod 755 "$stage/$name/ragdiff"
cp "$root/LICENSE-MIT" "$root/LICENSE-APACHE" "$root/README.md" "$stage/$name/"
tar -C "$stage" -czf "$out/$name.tar.gz" "$name"
# shasum on macOS runners, sha256sum on Linux: the same output format.
if command -v sha256sum > /dev/null; then sum=(sha256sum); else sum=(shasum -a 256); fi
(cd "$out" && "${sum[@]}" "$name.tar.gz" > "$name.tar.gz.sha256")
echo "$out/$name.tar.gz"
