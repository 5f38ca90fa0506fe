#!/usr/bin/env bash
# Draws docs/report.png, the README's picture of `kseg report`: the page of
# a log dir put together from ../shared/corpus (a metadata log, a
# __consumer_offsets partition, the multi-partition log dir) and two copies
# of testdata/orders-0 as partitions the groups commit to, as the report
# test builds it, screenshot by Debian's headless chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=${KSEG_CORPUS:-../shared/corpus}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
dir=$work/logdir
cp -r "$corpus/multi-partition-logdir/logdir" "$dir"
cp -r "$corpus/internal-cluster-metadata/__cluster_metadata-0" "$dir/"
cp -r "$corpus/internal-consumer-offsets/__consumer_offsets-0" "$dir/"
cp -r testdata/orders-0 "$dir/acme.orders-0"
cp -r testdata/orders-0 "$dir/acme.orders-1"
cargo run --quiet --release -- report "$dir" -o "$work/report.html" --now 2024-12-10T00:00:00Z
mkdir -p docs
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1240,1560 \
  --screenshot="$PWD/docs/report.png" "file://$work/report.html" 2>/dev/null
echo "wrote docs/report.png"
