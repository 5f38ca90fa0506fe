#!/usr/bin/env bash
# Seeds each fuzz target's corpus from the bundled testdata and the shared
# Kafka-written corpus (small files whole, big segments' first 64 KiB).
set -euo pipefail
cd "$(dirname "$0")"
corpus_root=${KSEG_CORPUS:-../../shared/corpus}
seed() { # target file...
    local target=$1; shift
    mkdir -p "corpus/$target"
    for f in "$@"; do
        head -c 65536 "$f" > "corpus/$target/$(echo "$f" | md5sum | cut -c1-16)"
    done
}
mapfile -t logs < <(find ../testdata "$corpus_root" -name '*.log' | sort)
mapfile -t indexes < <(find ../testdata "$corpus_root" -name '*index' | sort)
mapfile -t texts < <(find ../testdata "$corpus_root" \( -name '*.snapshot' -o -name '*checkpoint' -o -name 'partition.metadata' -o -name 'meta.properties' \) | sort)
seed segment_walk "${logs[@]}"
seed recovery_walk "${logs[@]}"
seed salvage_scan "${logs[@]}"
seed indexes "${indexes[@]}"
seed text_and_snapshots "${texts[@]}"
mkdir -p corpus/codecs
echo "seeded: $(ls corpus/segment_walk | wc -l) segments, $(ls corpus/indexes | wc -l) indexes, $(ls corpus/text_and_snapshots | wc -l) text files"
# Codec seeds: the records area of every compressed v2 batch in the corpus,
# prefixed with its codec id (the codecs target's first byte).
python3 - "$corpus_root" <<'PY'
import glob, hashlib, os, struct, sys
for path in glob.glob(os.path.join(sys.argv[1], "codec-*", "*", "*.log")):
    data = open(path, "rb").read()
    pos = 0
    while pos + 61 <= len(data):
        (length,) = struct.unpack(">i", data[pos + 8:pos + 12])
        batch = data[pos:pos + 12 + length]
        codec = batch[22] & 7
        seed = bytes([codec]) + batch[61:]
        open(os.path.join("corpus/codecs", hashlib.md5(seed).hexdigest()[:16]), "wb").write(seed)
        pos += 12 + length
PY
echo "codec seeds: $(ls corpus/codecs | wc -l)"
# Internal-record seeds: every key and value of the internal-topic cases,
# framed as the internal_records target reads them (topic selector byte
# 0 offsets, 1 transactions, 2 metadata; key length byte; key; value).
python3 - "$corpus_root" <<'PY'
import base64, hashlib, json, os, sys
os.makedirs("corpus/internal_records", exist_ok=True)
for case, selector in [("internal-consumer-offsets", 0), ("internal-transaction-state", 1), ("internal-cluster-metadata", 2)]:
    view = json.load(open(os.path.join(sys.argv[1], case, "kafka-view.json")))
    for seg in view["partition"]["segments"]:
        for batch in seg["log"]["batches"]:
            for r in batch["records"]:
                raw = lambda v: base64.b64decode(v["base64"]) if v else b""
                key, value = raw(r["key"]), raw(r["value"])
                control = 0x20 if batch["isControl"] else 0
                seed = bytes([selector | control, min(len(key), 255)]) + key[:255] + value
                open(os.path.join("corpus/internal_records", hashlib.md5(seed).hexdigest()[:16]), "wb").write(seed)
PY
echo "internal record seeds: $(ls corpus/internal_records | wc -l)"
