#!/usr/bin/env bash
# Writes the remote-retention cases: Kafka's own RemoteLogManager expiration
# task (RLMExpirationTask.cleanupExpiredRemoteLogSegments) run over real
# UnifiedLogs by the lab's harness (lab/src/expiration/ExpirationCase.java),
# compiled with javac against an already built lab scratch dir (lab/build.sh),
# whose module sources give RemoteLogManager and what it reaches. Leaves the
# cases in <out>/rlm-expiration/.
#
#   lab/expiration.sh <kafka lab scratch dir> <out dir> [work dir]
#   scripts/pack-expiration.sh <out dir>     # -> tests/expiration/rlm-expiration.tar.zst
#
# The scratch dir is one lab/build.sh made for a release with tiered storage
# (e.g. /tmp/kseg-lab-4.2); KAFKA_GIT and KAFKA_REV, when set, name the
# commit recorded in the cases (default: the 4.2.0-rc1 tag of
# /work/.mirror/aiven+inkless/repo). Debian jars: see lab/README.md, plus
# libslf4j-java's slf4j-simple, which prints the task's own log lines the
# harness reads each deletion's reason from. Nothing Kafka's is written inside
# the repository: classes go to the work dir (default /tmp/kseg-expiration),
# the partitions' working copies too.
set -euo pipefail
lab="$(cd "$(dirname "$0")" && pwd)"
kafka="$1" out="$2"
work="${3:-/tmp/kseg-expiration}"
git_dir="${KAFKA_GIT:-/work/.mirror/aiven+inkless/repo}"
rev="${KAFKA_REV:-4.2.0-rc1}"
commit="$(git --git-dir="$git_dir" rev-parse "$rev^{commit}")"
release="$(basename "$kafka")"; release="${release#kseg-lab-}"
J=/usr/share/java
cp="$J/lz4-java.jar:$J/snappy-java.jar:$J/zstd-jni.jar:$J/slf4j-api.jar:$J/slf4j-simple.jar:$J/jackson-databind.jar:$J/jackson-core.jar:$J/jackson-annotations.jar"

[ -f "$kafka/src/storage/src/main/java/org/apache/kafka/server/log/remote/storage/RemoteLogManager.java" ] \
  || { echo "$kafka holds no RemoteLogManager (storage module)" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work/classes" "$work/partitions"
sp="$lab/src/expiration/standin:$kafka/stubs/runtime"
for d in "$kafka"/src/*/src/main/java "$kafka"/src/*/*/src/main/java "$kafka"/gen/*; do [ -d "$d" ] && sp="$sp:$d"; done

echo "== javac (harness + RemoteLogManager and what it reaches)"
nice javac -nowarn -proc:none -d "$work/classes" -cp "$kafka/classes:$cp" -sourcepath "$sp" \
  "$lab/src/expiration/ExpirationCase.java" 2>&1 | grep -v '^Note:' | tee "$work/javac.log" | head -60 || true
[ -f "$work/classes/ExpirationCase.class" ] || { echo "javac failed" >&2; exit 1; }

echo "== harness"
cases="$out/rlm-expiration"
rm -rf "$cases" && mkdir -p "$cases"
L=org.slf4j.simpleLogger
nice java -D$L.defaultLogLevel=warn -D$L.showThreadName=false -D$L.showShortLogName=true \
  "-D$L.log.org.apache.kafka.server.log.remote.storage.RemoteLogManager=debug" \
  "-D$L.log.org.apache.kafka.server.log.remote.storage.RemoteLogManager\$RLMExpirationTask=debug" \
  -cp "$work/classes:$kafka/classes:$cp" ExpirationCase "$cases" "$work/partitions" "$release" "$commit"
