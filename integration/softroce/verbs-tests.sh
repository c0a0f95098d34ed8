#!/usr/bin/env bash
# Runs the verbs transport's tests inside the Soft-RoCE guest: the transport contract suite
# (the same tests tcp passes) and the verbs fault tests, with -Xcheck:jni, the library loaded
# from the rdma-buffers jar. No Maven in the guest: the class path is computed here.
#
#   integration/softroce/verbs-tests.sh [TEST CLASS ...]
#
# Default classes: io.rdmashuffle.transport.verbs.VerbsTransportTest and
# io.rdmashuffle.transport.verbs.VerbsFaultTest. Reports land in
# integration/target/softroce-verbs/ (JUnit XML, console log). Exit status: the tests'.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
harness="${SOFTROCE_HARNESS:-$repo/integration/softroce/run-in-guest.sh}"
module="$repo/rdma-buffers"
out="${VERBS_TESTS_OUT:-$repo/integration/target/softroce-verbs}"
classes=("$@")
[ ${#classes[@]} -gt 0 ] || classes=(io.rdmashuffle.transport.verbs.VerbsTransportTest
  io.rdmashuffle.transport.verbs.VerbsFaultTest)

jar="$(ls "$module"/target/rdma-buffers-*-SNAPSHOT.jar 2>/dev/null | grep -v -- -tests.jar | head -n 1 || true)"
if [ -z "$jar" ] || [ ! -d "$module/target/test-classes" ] || [ -n "${REBUILD:-}" ]; then
  (cd "$repo" && mvn -q -B -DskipTests install -pl rdma-buffers)
  jar="$(ls "$module"/target/rdma-buffers-*-SNAPSHOT.jar | grep -v -- -tests.jar | head -n 1)"
fi
unzip -qql "$jar" 'native/*/libdisni.so' >/dev/null 2>&1 ||
  { echo "$jar has no native library: install libibverbs-dev librdmacm-dev and rebuild" >&2; exit 125; }

mkdir -p "$out"
rm -f "$out"/hs_err_pid*.log # crash reports of an earlier run
deps="$module/target/test-classpath.txt"
(cd "$module" && mvn -q -B dependency:build-classpath -Dmdep.includeScope=test \
  -Dmdep.outputFile="$deps" >&2)
launcher_version=1.14.1
launcher="$HOME/.m2/repository/org/junit/platform/junit-platform-console-standalone/$launcher_version/junit-platform-console-standalone-$launcher_version.jar"
[ -f "$launcher" ] || mvn -q -B dependency:get \
  -Dartifact=org.junit.platform:junit-platform-console-standalone:$launcher_version >&2
cp="$jar:$module/target/test-classes:$(cat "$deps")"
selectors=()
for c in "${classes[@]}"; do selectors+=(--select-class "$c"); done

export SOFTROCE_OUT_DIR="$out"
exec "$harness" -- env VERBS_PROBE="${VERBS_PROBE:-}" VERBS_LOG_LEVEL="${VERBS_LOG_LEVEL:-info}" bash -c '
  set -u
  ulimit -l unlimited
  if [ -n "${VERBS_PROBE:-}" ]; then
    java --add-exports java.base/sun.nio.ch=ALL-UNNAMED -cp "$1" $VERBS_PROBE 2>&1 | grep -v "INFO com.ibm"
  fi
  java -Xcheck:jni --add-exports java.base/sun.nio.ch=ALL-UNNAMED -XX:MaxDirectMemorySize=1g \
    -XX:ErrorFile="$GUEST_OUT/hs_err_pid%p.log" \
    -Drdma.shuffle.leakDetection=true -Dorg.slf4j.simpleLogger.log.com.ibm.disni=warn \
    -Dorg.slf4j.simpleLogger.log.io.rdmashuffle.transport.verbs=$VERBS_LOG_LEVEL \
    -Dorg.slf4j.simpleLogger.showDateTime=true \
    -Drdma.test.classpath="$1" \
    -jar "$0" execute --disable-banner --details=tree --fail-if-no-tests \
    --reports-dir "$GUEST_OUT/junit" --class-path "$1" "${@:2}" 2>&1 | tee "$GUEST_OUT/console.log"
  status=${PIPESTATUS[0]}
  for crash in "$GUEST_OUT"/hs_err_pid*.log; do
    [ -f "$crash" ] || continue
    echo "JVM crash report $crash (head):" >&2
    sed -n "1,/^Registers/p" "$crash" | head -n 80 >&2
  done
  if grep -q "WARNING in native method" "$GUEST_OUT/console.log"; then
    echo "-Xcheck:jni reported warnings" >&2
    status=1
  fi
  exit "$status"
' "$launcher" "$cp" "${selectors[@]}"
