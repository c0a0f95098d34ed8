#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs Spark's own test suites (spark-it/suites) with rdma-shuffle's manager over the verbs
# transport inside the Soft-RoCE guest: Spark's local-cluster executors bind to the first
# Soft-RoCE device's address and, with read.local off, read every block of each other's map
# outputs with one-sided READs over verbs. No Maven in the guest: the suites module is compiled
# here and its class path written to target/suites.classpath.
#
#   integration/softroce/spark-suites-test.sh
#
# Settings (environment):
#   SPARK_SUITES_LINE  the Spark line's module under spark-it/suites (default 4.1)
#   SPARK_SUITES       suites to run, class names under org.apache.spark.shuffle.rdma.suites,
#                      comma-separated (default SortShuffleSuite)
#   SOFTROCE_KERNELS   Debian suites of the guest kernels (default bookworm: 6.1, pinned memory)
#   SOFTROCE_MEM       guest memory (default here 6G: the suite's JVM and its executors)
#   REBUILD=1          compile the module again even when its classes and class path exist
# Reports in integration/target/softroce-suites/KERNEL/: scalatest's report (suites-ours.txt),
# JUnit XML (junit/), the driver's log (suites-ours.log) and the executors' (executors.log).
# Passes when scalatest reports every test passed, every executor that started rdma-shuffle says
# it runs verbs, and none handed a shuffle to Spark's stock one. Exit status: 0 when every
# kernel's run passed, else the first failing run's status.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
harness="${SOFTROCE_HARNESS:-$repo/integration/softroce/run-in-guest.sh}"
out="${SUITES_TESTS_OUT:-$repo/integration/target/softroce-suites}"
# shellcheck source=guest-tests.lib.sh
. "$repo/integration/softroce/guest-tests.lib.sh"
guest_kernels "bookworm"
export SOFTROCE_MEM="${SOFTROCE_MEM:-6G}"
export SOFTROCE_TIMEOUT="${SOFTROCE_TIMEOUT:-150m}"

line="${SPARK_SUITES_LINE:-4.1}"
module="$repo/spark-it/suites/$line"
[ -f "$module/pom.xml" ] || { echo "no Spark line $line under spark-it/suites" >&2; exit 125; }
suites=()
IFS=, read -r -a names <<<"${SPARK_SUITES:-SortShuffleSuite}"
for name in "${names[@]}"; do
  suites+=(-s "org.apache.spark.shuffle.rdma.suites.$name")
done
if [ ! -f "$module/target/suites.classpath" ] || [ ! -d "$module/target/test-classes" ] ||
  [ -n "${REBUILD:-}" ]; then
  # package, not install: the module's class path names the plugin jar in shuffle-manager/target;
  # lines other than 4.1 are modules of the full profile only
  profile=()
  [ "$line" = 4.1 ] || profile=(-Pfull)
  (cd "$repo" && mvn -q -B "${profile[@]}" package -pl "spark-it/suites/$line" -am \
    -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false)
fi
plugin="$(tr ':' '\n' <"$module/target/suites.classpath" | grep '/shuffle-manager/' | head -n 1 || true)"
require_native_library "$plugin"
# the suites' JVM options and settings (spark-it/suites/pom.xml's argLine and scalatest plugin)
jvm_args="$(sed -n 's:.*<suites.argLine>\(.*\)</suites.argLine>.*:\1:p' "$repo/spark-it/suites/pom.xml")"

# run_kernel KERNEL: one guest run of the suites on that kernel; its reports in $out/KERNEL.
run_kernel() {
  local dir="$out/$1"
  rm -rf "$dir"
  mkdir -p "$dir"
  # the class path in a file: the harness echoes its command
  printf %s "$module/target/test-classes:$(cat "$module/target/suites.classpath")" >"$dir/classpath.txt"
  SOFTROCE_KERNEL="$1" SOFTROCE_OUT_DIR="$dir" "$harness" -- \
    env SOFTROCE_TESTS_LIB="$repo/integration/softroce/guest-tests.lib.sh" \
    SUITES_DIR="$repo/spark-it/suites" SPARK_SCALA_VERSION=2.13 SPARK_TESTING=1 bash -c '
  set -u
  ulimit -l unlimited
  # the driver and every executor bind to the first device: their READs go over Soft-RoCE
  export SPARK_LOCAL_IP="$SOFTROCE_RXE0_ADDR"
  home=/tmp/spark-test-home
  mkdir -p "$home/jars" /tmp/suites-tmp
  log4j="-Dlog4j.configurationFile=$SUITES_DIR/src/test/resources/log4j2.properties"
  # the executors log to executors.log: Spark launches them with its own environment (a suite
  # may build its conf from nothing, so no executor option of ours reaches them); the driver
  # names its own log below, which wins over this
  # C1 only and the serial GC: fewer compiler and collector threads for TCG to emulate
  export JAVA_TOOL_OPTIONS="$log4j -Drdma.suites.log=$GUEST_OUT/executors.log -XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
  java $1 -Dspark.test.home="$home" -Dspark.testing=1 -Dspark.ui.enabled=false \
    -Dspark.ui.showConsoleProgress=false -Dspark.unsafe.exceptionOnMemoryLeak=true \
    -Djava.awt.headless=true -Djava.io.tmpdir=/tmp/suites-tmp "$log4j" \
    -Drdma.suites.exclusions="$SUITES_DIR/exclusions.txt" \
    -Drdma.suites.log="$GUEST_OUT/suites-ours.log" \
    -Dspark.shuffle.manager=org.apache.spark.shuffle.rdma.RdmaShuffleManager \
    -Dspark.shuffle.rdma.transport=verbs -Dspark.shuffle.rdma.read.local=false \
    -XX:ErrorFile="$GUEST_OUT/hs_err_pid%p.log" -cp "$(cat "$2")" \
    org.scalatest.tools.Runner -oW -u "$GUEST_OUT/junit" -f "$GUEST_OUT/suites-ours.txt" \
    "${@:3}" >"$GUEST_OUT/console.log" 2>&1
  status=$?
  grep -E "^(Run completed|Tests: |Suites: |All tests passed|\*\*\* )|FAILED \*\*\*" \
    "$GUEST_OUT/console.log" | cut -c1-400 | head -n 40
  grep -q "^All tests passed" "$GUEST_OUT/console.log" || { [ "$status" -ne 0 ] || status=1; }
  # every executor that started rdma-shuffle ran verbs, and none fell back to the stock shuffle
  started="$(grep -c "rdma-shuffle .* over [a-z]* at" "$GUEST_OUT/executors.log" 2>/dev/null || true)"
  verbs="$(grep -c "rdma-shuffle .* over verbs at" "$GUEST_OUT/executors.log" 2>/dev/null || true)"
  stock="$(grep -c "uses Spark.s stock sort shuffle" "$GUEST_OUT/executors.log" 2>/dev/null || true)"
  echo "executors: ${started:-0} started rdma-shuffle, ${verbs:-0} over verbs, ${stock:-0} fell back to the stock shuffle"
  if [ "${started:-0}" -eq 0 ] || [ "${verbs:-0}" -ne "${started:-0}" ] || [ "${stock:-0}" -ne 0 ]; then
    grep -E "rdma-shuffle .* over |stock sort shuffle" "$GUEST_OUT/executors.log" 2>/dev/null |
      sort | uniq -c | cut -c1-400 | head -n 10
    [ "$status" -ne 0 ] || status=1
  fi
  # shellcheck source=guest-tests.lib.sh
  . "$SOFTROCE_TESTS_LIB"
  print_jvm_crashes "$GUEST_OUT"
  exit "$status"
' suites "$jvm_args" "$dir/classpath.txt" "${suites[@]}"
}

run_each_kernel spark-suites-test
