#!/usr/bin/env bash
# Packs the Aiven remote storage manager cases lab/aiven.sh wrote into
# tests/aiven/aiven-rsm.tar.zst, holding aiven-rsm/{input,<case>}/.
#
#   scripts/pack-aiven.sh <out dir>
set -euo pipefail
cd "$(dirname "$0")/.."
out="$1"
mkdir -p tests/aiven
tar -C "$out" --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -cf - aiven-rsm \
  | zstd -19 -q -c > tests/aiven/aiven-rsm.tar.zst.tmp
mv tests/aiven/aiven-rsm.tar.zst.tmp tests/aiven/aiven-rsm.tar.zst
ls -l tests/aiven/aiven-rsm.tar.zst
