#!/usr/bin/env bash
# Writes the Aiven remote storage manager cases: compiles Aiven's
# tiered-storage-for-apache-kafka (core, storage/core, storage/filesystem,
# commons) with javac against an already built lab scratch dir's Kafka
# classes, runs the lab's harness (lab/src/aiven/AivenCase.java), and leaves
# the cases in <out>/aiven-rsm/.
#
#   lab/aiven.sh <kafka lab scratch dir> <out dir> [work dir]
#   scripts/pack-aiven.sh <out dir>        # -> tests/aiven/aiven-rsm.tar.zst
#
# The Kafka scratch dir is one lab/build.sh made (e.g. /tmp/kseg-lab-4.2).
# Sources come from these mirrors (git dirs; MIRRORS overrides the root):
#   Aiven-Open/tiered-storage-for-apache-kafka   HEAD
#   FasterXML/jackson-modules-java8               jackson-modules-java8-2.14.0 (Debian's jackson is 2.14)
#   ben-manes/caffeine                            v3.2.3 (Debian's 2.6 lacks AsyncCache)
#   bucket4j/bucket4j                             8.15.0
#   jspecify/jspecify                             v1.0.0 (caffeine's annotations)
#   palantir/javapoet                             0.5.0 (runs caffeine's node and cache generators;
#                                                 caffeine's build names 0.7.0, the generators run on 0.5.0)
# Debian jars: see lab/README.md. Nothing of these projects is written inside
# the repository: sources and classes go to the work dir
# (default /tmp/kseg-aiven).
set -euo pipefail
lab="$(cd "$(dirname "$0")" && pwd)"
kafka="$1" out="$2"
work="${3:-/tmp/kseg-aiven}"
M="${MIRRORS:-/work/.mirror}"
aiven_git="$M/Aiven-Open+tiered-storage-for-apache-kafka/repo"
aiven_commit="$(git --git-dir="$aiven_git" rev-parse HEAD)"
J=/usr/share/java
cp="$J/lz4-java.jar:$J/snappy-java.jar:$J/zstd-jni.jar:$J/slf4j-api.jar:$J/slf4j-simple.jar:$J/jackson-databind.jar:$J/jackson-core.jar:$J/jackson-annotations.jar"
cp="$cp:$J/bcprov.jar:$J/commons-io.jar:$J/error_prone_annotations.jar"

rm -rf "$work" && mkdir -p "$work/src" "$work/classes"
take() { # git dir, rev, dest, paths...
  local g="$1" r="$2" d="$3"; shift 3
  mkdir -p "$work/src/$d" && git --git-dir="$g" archive "$r" "$@" | tar -x -C "$work/src/$d"
}
take "$aiven_git" "$aiven_commit" aiven core/src/main storage/core/src/main storage/filesystem/src/main commons/src/main
take "$M/FasterXML+jackson-modules-java8/repo" jackson-modules-java8-2.14.0 jdk8 datatypes/src/main
take "$M/ben-manes+caffeine/repo" v3.2.3 caffeine caffeine/src/main/java caffeine/src/javaPoet
take "$M/palantir+javapoet/repo" 0.5.0 javapoet javapoet/src/main/java
take "$M/bucket4j+bucket4j/repo" 8.15.0 bucket4j bucket4j-core/src/main/java
take "$M/jspecify+jspecify/repo" v1.0.0 jspecify src/main/java
# Compiled on the class path, not as modules.
find "$work/src" -name module-info.java -delete
# jackson-modules-java8's build fills its version class from a template.
pv="$work/src/jdk8/datatypes/src/main/java/com/fasterxml/jackson/datatype/jdk8/PackageVersion.java"
sed -e 's/@package@/com.fasterxml.jackson.datatype.jdk8/' -e 's/@projectversion@/2.14.0/' \
    -e 's/@projectgroupid@/com.fasterxml.jackson.datatype/' -e 's/@projectartifactid@/jackson-datatype-jdk8/' \
    "$pv.in" > "$pv"

# Caffeine's build generates its node and bounded-cache classes (loaded by
# name at run time) with its own generators; so does the lab.
echo "== caffeine's generated classes"
cg="$work/caffeine-gen"
mkdir -p "$cg/classes" "$cg/node" "$cg/local-cache"
nice javac -nowarn -proc:none -d "$cg/classes" -cp "$J/guava.jar:$J/commons-lang3.jar:$J/error_prone_annotations.jar" \
  -sourcepath "$work/src/javapoet/javapoet/src/main/java:$work/src/jspecify/src/main/java" \
  $(find "$work/src/caffeine/caffeine/src/javaPoet" -name '*.java')
cp "$work/src/caffeine/caffeine/src/javaPoet/resources/license.txt" "$cg/classes/"
for g in Node LocalCache; do
  out_dir="$cg/node"; [ "$g" = LocalCache ] && out_dir="$cg/local-cache"
  java -cp "$cg/classes:$J/guava.jar:$J/commons-lang3.jar" "com.github.benmanes.caffeine.cache.${g}FactoryGenerator" "$out_dir"
done

# Kafka: the scratch dir's classes, and its sources for anything they lack.
ksp="$kafka/stubs/runtime"
for d in "$kafka"/src/*/src/main/java "$kafka"/src/*/*/src/main/java "$kafka"/gen/*; do [ -d "$d" ] && ksp="$ksp:$d"; done
sp="$lab/src/aiven/standin"
for d in aiven/core aiven/storage/core aiven/storage/filesystem aiven/commons; do sp="$sp:$work/src/$d/src/main/java"; done
sp="$sp:$work/src/jdk8/datatypes/src/main/java:$work/src/caffeine/caffeine/src/main/java"
sp="$sp:$work/src/bucket4j/bucket4j-core/src/main/java:$work/src/jspecify/src/main/java:$ksp"

echo "== javac (harness + what it reaches; Aiven $aiven_commit)"
fs="$work/src/aiven/storage/filesystem/src/main/java/io/aiven/kafka/tieredstorage/storage/filesystem/FileSystemStorage.java"
# Interner.java holds a second top-level class NodeFactory names, which the
# source path cannot find by name; the generated classes are loaded by name.
interner="$work/src/caffeine/caffeine/src/main/java/com/github/benmanes/caffeine/cache/Interner.java"
nice javac -nowarn -proc:none -d "$work/classes" -cp "$kafka/classes:$cp" -sourcepath "$sp" \
  "$lab/src/aiven/AivenCase.java" "$fs" "$interner" $(find "$cg/node" "$cg/local-cache" -name '*.java') 2>&1 | grep -v '^Note:' | tee "$work/javac.log" | head -60 || true
[ -f "$work/classes/AivenCase.class" ] || { echo "javac failed" >&2; exit 1; }
# Service files the modules ship (jackson's module registry).
cp -r "$work/src/jdk8/datatypes/src/main/resources/." "$work/classes/"

echo "== harness"
cases="$out/aiven-rsm"
rm -rf "$cases" && mkdir -p "$cases"
nice java -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$work/classes:$kafka/classes:$cp" \
  AivenCase "$cases" "$aiven_commit" "${CORPUS:-/work/shared/corpus}" "$(basename "$kafka")"
rev() { git --git-dir="$M/$1/repo" rev-parse "$2^{commit}"; }
{
  echo "Segments uploaded by Aiven's tiered-storage-for-apache-kafka RemoteStorageManager (lab/aiven.sh)."
  echo
  echo "Sources compiled (javac, no gradle):"
  echo "  Aiven-Open/tiered-storage-for-apache-kafka HEAD $aiven_commit"
  echo "    (core, storage/core, storage/filesystem, commons; the Iceberg format replaced by the lab's stand-ins)"
  echo "  Kafka classes: lab scratch dir $(basename "$kafka") (lab/build.sh)"
  echo "  FasterXML/jackson-modules-java8 jackson-modules-java8-2.14.0 $(rev FasterXML+jackson-modules-java8 jackson-modules-java8-2.14.0)"
  echo "  ben-manes/caffeine v3.2.3 $(rev ben-manes+caffeine v3.2.3) (its generated classes by its own generators)"
  echo "  palantir/javapoet 0.5.0 $(rev palantir+javapoet 0.5.0) (runs caffeine's generators only)"
  echo "  bucket4j/bucket4j 8.15.0 $(rev bucket4j+bucket4j 8.15.0)"
  echo "  jspecify/jspecify v1.0.0 $(rev jspecify+jspecify v1.0.0)"
  v() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || echo "?"; }
  echo "  Debian: libjackson2-databind-java $(v libjackson2-databind-java), libzstd-jni-java $(v libzstd-jni-java),"
  echo "    libbcprov-java $(v libbcprov-java), libcommons-io-java $(v libcommons-io-java), libguava-java $(v libguava-java)"
  echo
  echo "input/ holds the uploaded segments' files (from shared/corpus); each other directory is one"
  echo "configuration of the storage manager with its own README.txt, storage/ (the object store) and aiven-view.json."
  echo "Encrypted cases (rsa/ present) hold a fresh key pair and random data keys and IVs: a re-run changes them;"
  echo "the other cases are byte-identical on a re-run."
} > "$cases/README.txt"
