#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs the verbs transport's tests inside the Soft-RoCE guest, once per guest kernel: the
# transport contract suite (the same tests tcp passes) and the verbs fault tests, with
# -Xcheck:jni, the library loaded from the rdma-buffers jar. No Maven in the guest: the class path
# is computed here.
#
#   integration/softroce/verbs-tests.sh [TEST CLASS ...]
#
# Default classes: io.rdmashuffle.transport.verbs.VerbsTransportTest,
# io.rdmashuffle.transport.verbs.VerbsFaultTest, ...VerbsServingTest, ...VerbsCatalogTest and
# ...VerbsServedAsAnotherUserTest (a serving process run as nobody, root's outputs read-only).
# Kernels (SOFTROCE_KERNELS, Debian suites as
# run-in-guest.sh's SOFTROCE_KERNEL takes them; default "bookworm trixie-backports"): Debian 12's
# 6.1, whose rxe has no on-demand paging (memory is pinned), and trixie-backports' 7.x, whose rxe
# has it. Every kernel runs even when an earlier one failed. Reports land in
# integration/target/softroce-verbs/KERNEL/ (JUnit XML, console log). Exit status: 0 when every
# kernel's run passed, else the first failing run's status. VERBS_JAVA_OPTS: more JVM options for
# the test JVM (-Drdma.test.odp=true runs VerbsOdpTransportTest, the contract on on-demand pages).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
harness="${SOFTROCE_HARNESS:-$repo/integration/softroce/run-in-guest.sh}"
module="$repo/rdma-buffers"
out="${VERBS_TESTS_OUT:-$repo/integration/target/softroce-verbs}"
# shellcheck source=guest-tests.lib.sh
. "$repo/integration/softroce/guest-tests.lib.sh"
guest_kernels "bookworm trixie-backports"
classes=("$@")
[ ${#classes[@]} -gt 0 ] || classes=(io.rdmashuffle.transport.verbs.VerbsTransportTest
  io.rdmashuffle.transport.verbs.VerbsFaultTest io.rdmashuffle.transport.verbs.VerbsServingTest
  io.rdmashuffle.transport.verbs.VerbsCatalogTest
  io.rdmashuffle.transport.verbs.VerbsServedAsAnotherUserTest)

jar="$(ls "$module"/target/rdma-buffers-*-SNAPSHOT.jar 2>/dev/null | grep -v -- -tests.jar | head -n 1 || true)"
# rebuilt when asked (REBUILD=1), missing, or older than a source of rdma-buffers (a stale jar
# would run yesterday's code against today's tests)
if [ -z "$jar" ] || [ ! -d "$module/target/test-classes" ] || [ -n "${REBUILD:-}" ] ||
  [ -n "$(find "$module/src" "$module/pom.xml" -newer "$jar" -print -quit)" ]; then
  # package, not install: the jar and test classes are used from target/, and an installed
  # SNAPSHOT would leak into every other build sharing ~/.m2
  (cd "$repo" && mvn -q -B -DskipTests package -pl rdma-buffers)
  jar="$(ls "$module"/target/rdma-buffers-*-SNAPSHOT.jar | grep -v -- -tests.jar | head -n 1)"
fi
require_native_library "$jar"

deps="$module/target/test-classpath.txt"
(cd "$module" && mvn -q -B dependency:build-classpath -Dmdep.includeScope=test \
  -Dmdep.outputFile="$deps" >&2)
launcher="$(junit_launcher)"
cp="$jar:$module/target/test-classes:$(cat "$deps")"
selectors=()
for c in "${classes[@]}"; do selectors+=(--select-class "$c"); done

# run_kernel KERNEL: one guest run of the tests on that kernel; its reports in $out/KERNEL.
run_kernel() {
  local dir="$out/$1"
  rm -rf "$dir"
  mkdir -p "$dir"
  SOFTROCE_KERNEL="$1" SOFTROCE_OUT_DIR="$dir" "$harness" -- \
    env SOFTROCE_TESTS_LIB="$repo/integration/softroce/guest-tests.lib.sh" \
    VERBS_PROBE="${VERBS_PROBE:-}" VERBS_LOG_LEVEL="${VERBS_LOG_LEVEL:-info}" \
    VERBS_JAVA_OPTS="${VERBS_JAVA_OPTS:-}" bash -c '
  set -u
  ulimit -l unlimited
  if [ -n "${VERBS_PROBE:-}" ]; then
    java --add-exports java.base/sun.nio.ch=ALL-UNNAMED -cp "$1" $VERBS_PROBE 2>&1 | grep -v "INFO com.ibm"
  fi
  # shellcheck disable=SC2086 # VERBS_JAVA_OPTS: words, e.g. -Drdma.test.odp=true
  java -Xcheck:jni --add-exports java.base/sun.nio.ch=ALL-UNNAMED -XX:MaxDirectMemorySize=1g $VERBS_JAVA_OPTS \
    -XX:ErrorFile="$GUEST_OUT/hs_err_pid%p.log" \
    -Dorg.slf4j.simpleLogger.log.com.ibm.disni=warn \
    -Dorg.slf4j.simpleLogger.log.io.rdmashuffle.transport.verbs=$VERBS_LOG_LEVEL \
    -Dorg.slf4j.simpleLogger.showDateTime=true \
    -Drdma.test.serverHost="$SOFTROCE_RXE0_ADDR" -Drdma.test.clientHost="$SOFTROCE_RXE1_ADDR" \
    -Drdma.test.classpath="$1" \
    -jar "$0" execute --disable-banner --details=testfeed --fail-if-no-tests \
    --config=junit.jupiter.extensions.autodetection.enabled=true \
    "--config=junit.jupiter.extensions.autodetection.include=io.rdmashuffle.*" \
    --reports-dir "$GUEST_OUT/junit" --class-path "$1" "${@:2}" 2>&1 | tee "$GUEST_OUT/console.log"
  status=${PIPESTATUS[0]}
  . "$SOFTROCE_TESTS_LIB"
  print_jvm_crashes "$GUEST_OUT"
  if grep -q "WARNING in native method" "$GUEST_OUT/console.log"; then
    echo "-Xcheck:jni reported warnings" >&2
    status=1
  fi
  exit "$status"
' "$launcher" "$cp" "${selectors[@]}"
}

run_each_kernel verbs-tests
