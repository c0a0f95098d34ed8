#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs spark-it's MixedTransportIT inside the Soft-RoCE guest, once per guest kernel: a Spark
# application in local-cluster mode with three executor processes, two running the verbs transport
# (one on each Soft-RoCE device) and one running tcp, whose shuffles must equal the stock
# shuffle's with no fetch failure, each reader falling back to the stock shuffle (counted) for map
# outputs served over a transport it does not run, and READs over verbs between the two verbs
# executors. No Maven in the guest: the class path is computed here.
#
#   integration/softroce/mixed-transport-test.sh
#
# Kernels: SOFTROCE_KERNELS (Debian suites as run-in-guest.sh's SOFTROCE_KERNEL takes them;
# default "bookworm"). Guest memory: SOFTROCE_MEM (default here 4G: four JVMs). Reports in
# integration/target/softroce-mixed/KERNEL/ (JUnit XML, console log, the executors' logs under
# spark-work/). Exit status: 0 when every kernel's run passed, else the first failing run's status.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
harness="${SOFTROCE_HARNESS:-$repo/integration/softroce/run-in-guest.sh}"
out="${MIXED_TESTS_OUT:-$repo/integration/target/softroce-mixed}"
# shellcheck source=guest-tests.lib.sh
. "$repo/integration/softroce/guest-tests.lib.sh"
guest_kernels "bookworm"
export SOFTROCE_MEM="${SOFTROCE_MEM:-4G}"

plugin="$(ls "$repo"/shuffle-manager/target/rdma-shuffle-spark_*-SNAPSHOT.jar 2>/dev/null | head -n 1 || true)"
spark_home="$(ls -d "$repo"/spark-it/target/spark-home-* 2>/dev/null | head -n 1 || true)"
if [ -z "$plugin" ] || [ -z "$spark_home" ] || [ ! -f "$repo/spark-it/target/spark.classpath" ] ||
  [ ! -d "$repo/spark-it/target/test-classes" ] || [ -n "${REBUILD:-}" ]; then
  # package, not install: everything is used from target/
  (cd "$repo" && mvn -q -B -DskipTests package -pl spark-it -am)
  plugin="$(ls "$repo"/shuffle-manager/target/rdma-shuffle-spark_*-SNAPSHOT.jar | head -n 1)"
  spark_home="$(ls -d "$repo"/spark-it/target/spark-home-* | head -n 1)"
fi
require_native_library "$plugin"
launcher="$(junit_launcher)"
tests="$repo/spark-it/target/test-classes"
cp="$plugin:$tests:$repo/spark-it/target/classes:$(cat "$repo/spark-it/target/spark.classpath")"
# the JVM options Spark's own launcher gives its JVMs (spark-it/pom.xml's spark.test.jvmArgs)
jvm_args="$(sed -n 's:.*<spark.test.jvmArgs>\(.*\)</spark.test.jvmArgs>.*:\1:p' "$repo/spark-it/pom.xml")"

# run_kernel KERNEL: one guest run of the test on that kernel; its reports in $out/KERNEL.
run_kernel() {
  local dir="$out/$1"
  rm -rf "$dir"
  mkdir -p "$dir"
  # the class path in a file: the harness echoes its command
  printf %s "$cp" >"$dir/classpath.txt"
  SOFTROCE_KERNEL="$1" SOFTROCE_OUT_DIR="$dir" "$harness" -- \
    env SOFTROCE_TESTS_LIB="$repo/integration/softroce/guest-tests.lib.sh" \
    SPARK_HOME="$spark_home" SPARK_SCALA_VERSION=2.13 SPARK_LOCAL_IP=127.0.0.1 \
    MIXED_EXECUTOR_WAIT="${MIXED_EXECUTOR_WAIT:-900}" bash -c '
  set -u
  ulimit -l unlimited
  java -Xmx1g -XX:MaxDirectMemorySize=512m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC $2 \
    -Drdma.it.executorWaitSeconds="${MIXED_EXECUTOR_WAIT:-900}" \
    -XX:ErrorFile="$GUEST_OUT/hs_err_pid%p.log" \
    -Drdma.it.pluginJar="$3" -Drdma.it.testClasses="$4" -Drdma.it.sparkHome="$SPARK_HOME" \
    -Drdma.it.workDir="$GUEST_OUT/work" \
    -Drdma.test.serverHost="$SOFTROCE_RXE0_ADDR" -Drdma.test.clientHost="$SOFTROCE_RXE1_ADDR" \
    -jar "$0" execute --disable-banner --details=testfeed --fail-if-no-tests \
    --reports-dir "$GUEST_OUT/junit" --class-path "$(cat "$1")" \
    --select-class io.rdmashuffle.sparkit.MixedTransportIT >"$GUEST_OUT/console.log" 2>&1
  status=$?
  grep -E "mixed transports:|tests (successful|failed)|:: FAILED|AssertionFailed" \
    "$GUEST_OUT/console.log" | cut -c1-2000 | head -n 40
  # the executors logs (the guest loses everything outside $GUEST_OUT at power-off)
  [ -d "$SPARK_HOME/work" ] && cp -r "$SPARK_HOME/work" "$GUEST_OUT/spark-work"
  # shellcheck source=guest-tests.lib.sh
  . "$SOFTROCE_TESTS_LIB"
  print_jvm_crashes "$GUEST_OUT"
  exit "$status"
' "$launcher" "$dir/classpath.txt" "$jvm_args" "$plugin" "$tests"
}

run_each_kernel mixed-transport-test
