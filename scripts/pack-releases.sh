#!/usr/bin/env bash
# Packs the per-release cases lab/build.sh wrote into tests/releases/:
# one archive per release, <release>.tar.zst, holding <release>/<case>/.
#
#   scripts/pack-releases.sh <cases dir> [release...]
#
# With no release named, packs every release directory under <cases dir>.
set -euo pipefail
cd "$(dirname "$0")/.."
cases="$1"; shift
releases=("$@")
[ ${#releases[@]} -gt 0 ] || mapfile -t releases < <(ls "$cases")
for r in "${releases[@]}"; do
  tar -C "$cases" --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -cf - "$r" \
    | zstd -19 -q -c > "tests/releases/$r.tar.zst.tmp"
  mv "tests/releases/$r.tar.zst.tmp" "tests/releases/$r.tar.zst"
  ls -l "tests/releases/$r.tar.zst"
done
