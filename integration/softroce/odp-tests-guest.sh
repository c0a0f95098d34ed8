#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The guest's side of odp-tests.sh (runs INSIDE the 7.x guest; see odp-tests.sh for the steps):
#   bash integration/softroce/odp-tests-guest.sh LAUNCHER CLASSPATH_FILE MODULE.ko REPRO BENCH_CP
set -u
launcher=$1 cp=$(cat "$2") ko=$3 repro=$4 bench_cp=$5
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
ulimit -l unlimited
step() { echo "odp-tests: $*" >&2; }
failed() {
  step "FAILED: $*"
  exit 1
}

step "1. stock rdma_rxe: on-demand READs must return wrong bytes (the Linux defect)"
rc=0
"$repro" "$SOFTROCE_RXE0_ADDR" "$SOFTROCE_RXE1_ADDR" >"$GUEST_OUT/repro-stock.txt" 2>&1 || rc=$?
grep -E "^odp .*WRONG" "$GUEST_OUT/repro-stock.txt" | head -n 3 >&2
[ "$rc" = 1 ] || failed "odp-read-repro on the stock rdma_rxe exited $rc, not 1 (repro-stock.txt):" \
  "if Debian's kernel has the fix now, say so in the README and integration/softroce/README.md"
# and the transport's own check finds it: auto pins there (the doctor shows what it decides)
"$repo/bin/rdma-shuffle" doctor --set spark.shuffle.rdma.transport=verbs >"$GUEST_OUT/doctor-stock.txt" 2>&1
grep "served memory registration on rxe0" "$GUEST_OUT/doctor-stock.txt" | cut -c1-300 >&2
grep -q "served memory registration on rxe0: pinned (verbs.registration=auto; rxe0 reports RC READ on demand, but its on-demand READs return wrong bytes" \
  "$GUEST_OUT/doctor-stock.txt" || failed "the doctor on the stock rdma_rxe does not say auto pins for wrong bytes (doctor-stock.txt)"

step "2. rdma_rxe with the fix ($ko): every READ right"
"$SOFTROCE_RXE_RELOAD" "$ko" || exit 125
rc=0
"$repro" "$SOFTROCE_RXE0_ADDR" "$SOFTROCE_RXE1_ADDR" >"$GUEST_OUT/repro-fixed.txt" 2>&1 || rc=$?
[ "$rc" = 0 ] || { cat "$GUEST_OUT/repro-fixed.txt" >&2; failed "odp-read-repro exited $rc"; }

# step 3: the transport contract on demand (VerbsOdpTransportTest) in every tier; the full tier adds
# a served user's files on demand, the faults, the serving core and the catalog at scale on demand
# (each of them runs pinned on 6.1 in the ci tier: verbs-tests.sh). At a host load of 15-20 the
# five classes took 15 minutes.
suite=(--select-class io.rdmashuffle.transport.verbs.VerbsOdpTransportTest)
if [ "${RDMASHUFFLE_TIER:-ci}" = full ]; then
  suite+=(--select-class io.rdmashuffle.transport.verbs.VerbsServedAsAnotherUserTest
    --select-class io.rdmashuffle.transport.verbs.VerbsFaultTest
    --select-class io.rdmashuffle.transport.verbs.VerbsServingTest
    --select-class io.rdmashuffle.transport.verbs.VerbsCatalogTest)
fi
step "3. the verbs suite with served memory on demand (${#suite[@]} selectors; tier ${RDMASHUFFLE_TIER:-ci})"
# READ timeouts of 120 s: rdma-core 44's rxe cannot prefetch (no ibv_advise_mr), so the first READ
# of a served file's pages faults them in packet by packet, which under emulation on a loaded host
# took over 30 s for an 8 MiB READ
java -Xcheck:jni --add-exports java.base/sun.nio.ch=ALL-UNNAMED -XX:MaxDirectMemorySize=1g \
  -XX:ErrorFile="$GUEST_OUT/hs_err_pid%p.log" -Drdma.test.odp=true -Drdma.test.readTimeoutSeconds=120 \
  -Dorg.slf4j.simpleLogger.log.com.ibm.disni=warn -Dorg.slf4j.simpleLogger.showDateTime=true \
  -Drdma.test.serverHost="$SOFTROCE_RXE0_ADDR" -Drdma.test.clientHost="$SOFTROCE_RXE1_ADDR" \
  -Drdma.test.classpath="$cp" \
  -jar "$launcher" execute --disable-banner --details=testfeed --fail-if-no-tests \
  --config=junit.jupiter.extensions.autodetection.enabled=true \
  "--config=junit.jupiter.extensions.autodetection.include=io.rdmashuffle.*" \
  --reports-dir "$GUEST_OUT/junit" --class-path "$cp" \
  "${suite[@]}" \
  >"$GUEST_OUT/console.log" 2>&1
junit=$?
sed 's/\x1b\[[0-9;]*m//g' "$GUEST_OUT/console.log" |
  grep -E "on demand, |tests (successful|failed|skipped)|:: FAILED|WARNING in native method" |
  cut -c1-400 | head -n 40 >&2
# shellcheck source=guest-tests.lib.sh
. "$SOFTROCE_TESTS_LIB"
print_jvm_crashes "$GUEST_OUT"
if grep -q "WARNING in native method" "$GUEST_OUT/console.log"; then
  step "-Xcheck:jni reported warnings"
  junit=1
fi

# step 4 in every tier: healthy, then the failures qualify advises on (in the ci tier all four in
# one run, in the full tier each alone: qualify-scenario.sh)
step "4. bin/rdma-shuffle qualify: healthy, then each failure it advises on"
scenario=0
bash "$repo/integration/softroce/qualify-scenario.sh" "$GUEST_OUT/qualify" || scenario=$?
if [ "${RDMASHUFFLE_TIER:-ci}" = full ]; then
  step "full tier: the registration benchmark, pinned against on demand"
  java --add-exports java.base/sun.nio.ch=ALL-UNNAMED -Xmx1g -XX:MaxDirectMemorySize=2g \
    -XX:ErrorFile="$GUEST_OUT/hs_err_pid%p.log" -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
    -cp "$bench_cp" io.rdmashuffle.bench.VerbsRegistrationBenchmark \
    --server "$SOFTROCE_RXE0_ADDR" --client "$SOFTROCE_RXE1_ADDR" \
    --out "$GUEST_OUT/registration.properties" || failed "VerbsRegistrationBenchmark"
  step "full tier: qualify's Spark step on a standalone cluster of the two hosts, served on demand"
  bash "$repo/integration/softroce/qualify-spark.sh" "$GUEST_OUT/qualify-spark" \
    --set spark.shuffle.rdma.verbs.registration=odp || failed "qualify's Spark step (qualify-spark/)"
fi
[ "$junit" = 0 ] || failed "the verbs suite on demand: JUnit status $junit (console.log)"
[ "$scenario" = 0 ] || failed "the qualify scenario (qualify/)"
step "all steps held"
