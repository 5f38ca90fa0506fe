#!/usr/bin/env bash
# Refreshes tests/corpus/kafka-corpus.tar.zst, the packed copy of the
# Kafka-written corpus that a fresh clone's tests read when ../shared/corpus
# (or $KSEG_CORPUS) is not there. Run it whenever ../shared/corpus changes;
# a test fails while the two differ.
set -euo pipefail
cd "$(dirname "$0")/.."
source="${1:-../shared}"
tar -C "$source" --sort=name --owner=0 --group=0 --numeric-owner -cf - corpus \
  | zstd -19 -q -c > tests/corpus/kafka-corpus.tar.zst.tmp
mv tests/corpus/kafka-corpus.tar.zst.tmp tests/corpus/kafka-corpus.tar.zst
ls -l tests/corpus/kafka-corpus.tar.zst
