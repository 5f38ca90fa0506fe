#!/usr/bin/env bash
# Packs the remote-retention cases lab/expiration.sh wrote into
# tests/expiration/rlm-expiration.tar.zst, holding rlm-expiration/<case>/.
#
#   scripts/pack-expiration.sh <out dir>
set -euo pipefail
cd "$(dirname "$0")/.."
out="$1"
mkdir -p tests/expiration
tar -C "$out" --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -cf - rlm-expiration \
  | zstd -19 -q -c > tests/expiration/rlm-expiration.tar.zst.tmp
mv tests/expiration/rlm-expiration.tar.zst.tmp tests/expiration/rlm-expiration.tar.zst
ls -l tests/expiration/rlm-expiration.tar.zst
