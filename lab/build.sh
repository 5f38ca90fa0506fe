#!/usr/bin/env bash
# Writes one release's Kafka-written cases: compiles that release's own
# classes (message generator, generated messages, clients, storage, serdes)
# from its source with javac, runs the lab's harness (lab/src) against them,
# and leaves the case directories in <out>/<release>/.
#
#   lab/build.sh <kafka git dir> <rev> <release name> <out dir> [scratch dir]
#
# Needs Java 17 and Debian's jars (see lab/README.md). Nothing Kafka's is
# written inside the repository: sources, generated code and classes go to
# the scratch dir (default /tmp/kseg-lab-<release>).
set -euo pipefail
lab="$(cd "$(dirname "$0")" && pwd)"
git_dir="$1" rev="$2" release="$3" out="$4"
work="${5:-/tmp/kseg-lab-$release}"
commit="$(git --git-dir="$git_dir" rev-parse "$rev^{commit}")"
J=/usr/share/java
cp="$J/lz4-java.jar:$J/snappy-java.jar:$J/zstd-jni.jar:$J/slf4j-api.jar:$J/jackson-databind.jar:$J/jackson-core.jar:$J/jackson-annotations.jar:$J/argparse4j.jar"
modules="clients server-common storage generator metadata raft group-coordinator coordinator-common transaction-coordinator share-coordinator"

rm -rf "$work" && mkdir -p "$work/src" "$work/gen" "$work/classes" "$work/stubs"
present=""
for m in $modules; do
  if git --git-dir="$git_dir" cat-file -e "$commit:$m" 2>/dev/null; then present="$present $m"; fi
done
# Before 3.9 the transaction log's messages are core's; only their schemas
# are taken (the rest of core is Scala).
core_messages=core/src/main/resources/common/message
git --git-dir="$git_dir" cat-file -e "$commit:$core_messages" 2>/dev/null || core_messages=""
git --git-dir="$git_dir" archive "$commit" $present $core_messages build.gradle | tar -x -C "$work/src"

# Stand-ins for third-party classes Debian lacks (the lab's own code).
"$lab/stubs.sh" "$work/stubs"
# CommonClientConfigs names the OpenTelemetry-based telemetry reporter; a
# copy without it goes first on the source path (scratch dir only).
cc=src/clients/src/main/java/org/apache/kafka/clients/CommonClientConfigs.java
if grep -q ClientTelemetryReporter "$work/$cc" 2>/dev/null; then
  python3 "$lab/without-telemetry.py" "$work/$cc" "$work/stubs/runtime/org/apache/kafka/clients/CommonClientConfigs.java"
fi

echo "== generator ($commit)"
nice javac -nowarn -d "$work/gen-classes" -cp "$cp" \
  $(find "$work/src/generator/src/main/java" -name '*.java' -not -path '*/checker/*') $(find "$work/stubs/generator" -name '*.java')
python3 "$lab/gradle-messages.py" "$work/src/build.gradle" | while IFS=$'\t' read -r module args; do
  [ -d "$work/src/$module" ] || continue
  # shellcheck disable=SC2086
  set -- $args
  pkg="" rest=()
  while [ $# -gt 0 ]; do
    case "$1" in
      -p) pkg="$2"; rest+=(-p "$2"); shift 2 ;;
      -o) shift 2 ;;
      *) rest+=("$1"); shift ;;
    esac
  done
  # Releases before 3.8 generate no JSON converters for the coordinators'
  # records; the lab asks the same generator for them.
  case " ${rest[*]} " in
    *" JsonConverterGenerator "*) ;;
    *) with=(); for a in "${rest[@]}"; do with+=("$a"); [ "$a" = MessageDataGenerator ] && with+=(JsonConverterGenerator); done
       rest=("${with[@]}") ;;
  esac
  (cd "$work/src/$module" && nice java -cp "$work/gen-classes:$cp" org.apache.kafka.message.MessageGenerator \
     -o "$work/gen/$module/${pkg//.//}" "${rest[@]}" >/dev/null)
done

sp="$work/stubs/runtime"
for m in $present; do
  [ "$m" = generator ] && continue
  [ -d "$work/src/$m/src/main/java" ] && sp="$sp:$work/src/$m/src/main/java"
  [ -d "$work/gen/$m" ] && sp="$sp:$work/gen/$m"
done
# Modules' sub-modules (group-coordinator-api, storage/api, ...).
for api in "$work"/src/*/*/src/main/java; do [ -d "$api" ] && sp="$sp:$api"; done

# The harness names the serdes it reads with by reflection, so their
# sources and every generated message are compiled explicitly.
serdes=$(grep -rlE "^public (abstract )?class [A-Za-z]*RecordSerde " \
  "$work"/src/{group-coordinator,share-coordinator,metadata}/src/main/java 2>/dev/null || true)
# The data partition case needs the release's LogSegment: Java in storage
# from 3.7; Scala in core before, compiled below with scalac when
# SCALA_JARS holds Scala 2.12's compiler (see lab/README.md).
data="" scala_segment=""
SCALA_JARS="${SCALA_JARS:-/tmp/scala-jars}"
log_java=storage/src/main/java/org/apache/kafka/storage/internals/log
if [ -f "$work/src/$log_java/LogSegment.java" ]; then
  # DataCase names it by reflection only, so it is compiled explicitly.
  data="$lab/src/data/DataCase.java $work/src/$log_java/LogSegment.java"
elif git --git-dir="$git_dir" cat-file -e "$commit:core/src/main/scala/kafka/log/LogSegment.scala" 2>/dev/null \
     && ls "$SCALA_JARS"/scala-compiler-2.12.*.jar >/dev/null 2>&1; then
  data="$lab/src/data/DataCase.java" scala_segment=1
  # The Java classes LogSegment.scala names (javac compiles what they reach).
  for f in $log_java/{AbortedTxn,AppendOrigin,CompletedTxn,FetchDataInfo,LazyIndex,LogConfig,LogFileUtils,LogOffsetMetadata,OffsetIndex,OffsetPosition,ProducerStateManager,RollParams,TimeIndex,TimestampOffset,TransactionIndex,TxnIndexSearchResult}.java \
           storage/src/main/java/org/apache/kafka/storage/internals/epoch/LeaderEpochFileCache.java \
           server-common/src/main/java/org/apache/kafka/server/metrics/KafkaMetricsGroup.java; do
    data="$data $work/src/$f"
  done
fi
# The tiered-storage case needs the remote log metadata serde (3.6 on).
remote=""
[ -f "$work/src/storage/src/main/java/org/apache/kafka/server/log/remote/metadata/storage/serialization/RemoteLogMetadataSerde.java" ] && remote="$lab/src/remote/RemoteCase.java"
# The transaction case names TransactionVersion (3.9 on) and the
# coordinator's TransactionState (Java from 4.1) by reflection.
txn=""
for f in server-common/src/main/java/org/apache/kafka/server/common/TransactionVersion.java \
         transaction-coordinator/src/main/java/org/apache/kafka/coordinator/transaction/TransactionState.java; do
  [ -f "$work/src/$f" ] && txn="$txn $work/src/$f"
done
echo "== javac (harness + what it reaches)"
nice javac -nowarn -proc:none -d "$work/classes" -cp "$cp" -sourcepath "$sp" \
  "$lab"/src/*.java $data $remote $txn $serdes $(find "$work/gen" -name '*.java') 2>&1 | grep -v '^Note:' || true
[ -f "$work/classes/KsegLab.class" ] || { echo "javac failed" >&2; exit 1; }

run_cp="$work/classes:$cp"
if [ -n "$scala_segment" ]; then
  # 3.6's LogSegment is core's Scala: LogSegment.scala and the core files
  # it needs (its overflow exception, Logging, the thread-safety
  # annotations), unchanged, with the lab's stand-ins for the rest
  # (scala-standins.sh), against the Java classes above.
  echo "== scalac (core's LogSegment.scala)"
  scala_lib="$(ls "$SCALA_JARS"/scala-library-2.12.*.jar):$(ls "$SCALA_JARS"/scala-collection-compat_2.12-*.jar)"
  git --git-dir="$git_dir" archive "$commit" core/src/main/scala/kafka/log/LogSegment.scala \
    core/src/main/scala/kafka/common/LogSegmentOffsetOverflowException.scala \
    core/src/main/scala/kafka/utils/Logging.scala core/src/main/scala/kafka/utils/Annotations.scala | tar -x -C "$work/src"
  "$lab/scala-standins.sh" "$work/scala-standins"
  mkdir -p "$work/scala-classes"
  nice java -cp "$(ls "$SCALA_JARS"/scala-compiler-2.12.*.jar):$(ls "$SCALA_JARS"/scala-reflect-2.12.*.jar):$scala_lib" \
    scala.tools.nsc.Main -nowarn -d "$work/scala-classes" -classpath "$work/classes:$cp:$scala_lib" \
    $(find "$work/src/core/src/main/scala" "$work/scala-standins" -name '*.scala')
  [ -f "$work/scala-classes/kafka/log/LogSegment.class" ] || { echo "scalac failed" >&2; exit 1; }
  run_cp="$work/classes:$work/scala-classes:$scala_lib:$cp"
fi

echo "== harness"
mkdir -p "$out/$release"
nice java -cp "$run_cp" KsegLab "$work/src" "$out/$release" "$release" "$commit"
