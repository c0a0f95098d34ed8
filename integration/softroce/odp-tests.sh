#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Soft-RoCE on demand, and bin/rdma-shuffle qualify, in ONE guest boot of the 7.x kernel
# (trixie-backports): first on the kernel's own rdma_rxe, then on the rdma_rxe that
# build-rxe-module.sh builds from Debian's packages with rdma-shuffle's fix of on-demand READs
# (rxe-odp-copy-offset.patch), swapped in with $SOFTROCE_RXE_RELOAD. The guest's side is
# odp-tests-guest.sh.
#
#   integration/softroce/odp-tests.sh
#
# Steps, each failing the run when it does not hold:
#   1. stock rdma_rxe: odp-read-repro exits 1 (on-demand READs return the page's first bytes: the
#      Linux defect this documents; if it ever passes, Debian fixed it, and the docs must say so)
#   2. fixed rdma_rxe: odp-read-repro exits 0
#   3. fixed rdma_rxe, -Drdma.test.odp=true: the transport contract on demand
#      (VerbsOdpTransportTest)
#   4. fixed rdma_rxe: bin/rdma-shuffle qualify healthy, then with the failures it advises on
#      made to happen (qualify-scenario.sh: in the ci tier all four in one run)
# Tier full (RDMASHUFFLE_TIER=full) adds to step 3 a served user's files, the faults, the serving
# core and the catalog at scale on demand (VerbsServedAsAnotherUserTest, VerbsFaultTest,
# VerbsServingTest, VerbsCatalogTest: thousands of outputs beyond the pinned bound, each registered
# once; verbs.registration auto serves on demand there), runs each qualify failure alone, and adds
# the registration benchmark, pinned against on demand, and qualify's Spark step with served
# memory on demand (qualify-spark.sh: Spark standalone on the two hosts, a shuffle on the stock
# shuffle and on ours with verbs.registration=odp; 4 GiB of guest).
#
# Reports in integration/target/softroce-odp/ (JUnit XML, console logs, the repro's outputs, the
# qualify reports under qualify/). Exit status: 0 when every step held, else 1 (125: harness).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
harness="${SOFTROCE_HARNESS:-$repo/integration/softroce/run-in-guest.sh}"
module="$repo/rdma-buffers"
out="${ODP_TESTS_OUT:-$repo/integration/target/softroce-odp}"
suite="${SOFTROCE_KERNEL:-trixie-backports}"
tier="${RDMASHUFFLE_TIER:-ci}"
# the full tier's boot (suite and qualify scenario) took over 40 minutes at a host load of 20
export SOFTROCE_TIMEOUT="${SOFTROCE_TIMEOUT:-30m}"
[ "$tier" != full ] || export SOFTROCE_MEM="${SOFTROCE_MEM:-4G}" SOFTROCE_TIMEOUT=150m
# shellcheck source=guest-tests.lib.sh
. "$repo/integration/softroce/guest-tests.lib.sh"
cd "$repo"

ko="$("$repo/integration/softroce/build-rxe-module.sh" "$suite")"
repro="$repo/integration/target/odp-read-repro"
mkdir -p "$(dirname "$repro")"
gcc -O2 -Wall -Werror -o "$repro" integration/softroce/odp-read-repro.c -lrdmacm -libverbs -lpthread

jar="$(ls "$module"/target/rdma-buffers-*-SNAPSHOT.jar 2>/dev/null | grep -v -- -tests.jar | head -n 1 || true)"
# the tests run from rdma-buffers' jar and test classes, qualify from integration's classes (the
# same build bin/rdma-shuffle uses); rebuilt when missing, asked (REBUILD=1) or older than a source
if [ -z "$jar" ] || [ ! -d "$module/target/test-classes" ] || [ -n "${REBUILD:-}" ] ||
  [ ! -f integration/target/bench.classpath ] ||
  [ -n "$(find "$module/src" "$module/pom.xml" integration/src -newer "$jar" -print -quit)" ]; then
  # package, not install: everything runs from target/
  mvn -q -B -DskipTests package -pl integration -am
  jar="$(ls "$module"/target/rdma-buffers-*-SNAPSHOT.jar | grep -v -- -tests.jar | head -n 1)"
fi
bench_cp="$repo/integration/target/classes:$jar:$(cat integration/target/bench.classpath)"
deps="$module/target/test-classpath.txt"
(cd "$module" && mvn -q -B dependency:build-classpath -Dmdep.includeScope=test \
  -Dmdep.outputFile="$deps" >&2)
launcher="$(junit_launcher)"
cp="$jar:$module/target/test-classes:$(cat "$deps")"

rm -rf "$out"
mkdir -p "$out"
printf %s "$cp" >"$out/classpath.txt"
start=$SECONDS
status=0
SOFTROCE_KERNEL="$suite" SOFTROCE_OUT_DIR="$out" "$harness" -- \
  env SOFTROCE_TESTS_LIB="$repo/integration/softroce/guest-tests.lib.sh" RDMASHUFFLE_TIER="$tier" \
  bash integration/softroce/odp-tests-guest.sh "$launcher" "$out/classpath.txt" "$ko" "$repro" \
  "$bench_cp" || status=$?
echo "odp-tests: status $status, $((SECONDS - start)) s, reports in $out" >&2
exit "$status"
