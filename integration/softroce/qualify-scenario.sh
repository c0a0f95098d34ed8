#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bin/rdma-shuffle qualify in the Soft-RoCE guest, its two hosts being rxe0 (198.18.100.1) and rxe1
# (198.18.100.2): once as a healthy cluster is set up, then with each failure it advises on made to
# happen once, checking the exit status and that the report gives the advice. Runs INSIDE the guest
# (run-in-guest.sh; odp-tests.sh runs it after loading rdma_rxe with the fix), as root:
#
#   bash integration/softroce/qualify-scenario.sh OUT_DIR
#
# Reports in OUT_DIR/NAME/ (report.md, report.html, charts/). Scenarios:
#   healthy           every step: exit 0, "verbs can be used", every READ byte right
#   memlock           ulimit -l 64: exit 1, verbs can't be used, advice LimitMEMLOCK=infinity
#   mtu-mismatch      veth1 at MTU 9000 (rxe1 active 4096) against veth0 at 1500: exit 1, advice
#                     to set one MTU (ip link set dev veth1 mtu 1500)
#   wrong-gid-index   --gid-index 0 (rxe0's link-local GID): exit 1, advice "Use GID index 1",
#                     and perftest run with -x 0 (on one L2 segment a link-local GID still
#                     reaches the peer: 7.3's rxe READs through it; across routers it would not)
#   perftest-missing  ib_read_bw and ib_read_lat hidden: exit 0, advice apt-get install perftest
# A qualify run costs minutes of the guest's emulated CPU (its JVM starts, at about 16 times a
# host's cost), so in the ci tier (RDMASHUFFLE_TIER, default ci) the four failures happen together
# in one run (failures-at-once: exit 1 and each one's advice in the report), and only the full
# tier runs each alone. The guest's JVMs run with C1 only and the serial collector
# (QUALIFY_JAVA_OPTS): the JIT's second tier would take the emulator's one thread.
# Exit status: 0 when every scenario came out as described, else 1 (the first that did not says why).
set -uo pipefail
out="${1:?usage: qualify-scenario.sh OUT_DIR}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
a="${SOFTROCE_RXE0_ADDR:-198.18.100.1}" b="${SOFTROCE_RXE1_ADDR:-198.18.100.2}"
mkdir -p "$out"
# the guest's root has 1024 open files; the report would say to raise it (the advice an operator
# follows, as LimitNOFILE in a unit): done here once, for every scenario
ulimit -n 65536
failures=0
say() { echo "qualify-scenario: $*" >&2; }

# scenario NAME EXPECTED_STATUS [PATTERN...] -- ARGUMENTS...: runs qualify into OUT/NAME; the
# status must be EXPECTED_STATUS and report.md must contain every PATTERN (fixed strings)
scenario() {
  local name=$1 want=$2 patterns=() rc=0 start=$SECONDS p
  shift 2
  while [ "$1" != -- ]; do
    patterns+=("$1")
    shift
  done
  shift
  "$repo/bin/rdma-shuffle" qualify --hosts "$a,$b" --out "$out/$name" "$@" \
    >"$out/$name.stdout" 2>"$out/$name.stderr" || rc=$?
  if [ "$rc" != "$want" ]; then
    say "$name: exit status $rc, not $want"
    tail -n 20 "$out/$name.stdout" "$out/$name.stderr" >&2
    failures=$((failures + 1))
    return
  fi
  for p in "${patterns[@]}"; do
    if ! grep -qF -- "$p" "$out/$name/report.md"; then
      say "$name: the report does not say: $p"
      failures=$((failures + 1))
      return
    fi
  done
  say "$name: exit $rc and the report says what it should ($((SECONDS - start)) s): $(head -n 1 "$out/$name.stdout")"
}

quick=(--sizes 64k --iterations 200 --timeout 240)
export QUALIFY_JAVA_OPTS="${QUALIFY_JAVA_OPTS:--XX:TieredStopAtLevel=1 -XX:+UseSerialGC}"

scenario healthy 0 "**verbs can be used" "every byte right" "rdma-shuffle READ 64 KiB" \
  "ib_read_bw 64 KiB" "it uses index 1" -- "${quick[@]}"

hide_perftest() {
  local tool path
  hidden=()
  for tool in ib_read_bw ib_read_lat; do
    path="$(command -v "$tool")" && mv "$path" "$path.hidden" && hidden+=("$path")
  done
}
show_perftest() {
  local path
  for path in "${hidden[@]}"; do mv "$path.hidden" "$path"; done
}

if [ "${RDMASHUFFLE_TIER:-ci}" != full ]; then
  # every failure at once: each check reports its own
  ip link set dev veth1 mtu 9000
  hide_perftest
  (
    ulimit -l 64
    scenario failures-at-once 1 "verbs can't be used" "LimitMEMLOCK=infinity" \
      "MTU end to end | FAIL" "veth1 MTU 9000, active 4096" "ip link set dev veth1 mtu 1500" \
      "GID index given | FAIL" "Use GID index 1" "perftest -x 1" \
      "perftest | WARN" "apt-get install perftest" -- --gid-index 0 --tests host,perftest \
      --timeout 240
    exit "$failures"
  ) || failures=$((failures + $?))
  show_perftest
  ip link set dev veth1 mtu 1500
else
  (
    ulimit -l 64
    scenario memlock 1 "verbs can't be used" "LimitMEMLOCK=infinity" -- --tests host --timeout 240
    exit "$failures"
  ) || failures=$((failures + $?))

  ip link set dev veth1 mtu 9000
  scenario mtu-mismatch 1 "MTU end to end | FAIL" "veth1 MTU 9000, active 4096" \
    "ip link set dev veth1 mtu 1500" -- --tests host --timeout 240
  ip link set dev veth1 mtu 1500

  scenario wrong-gid-index 1 "GID index given | FAIL" "Use GID index 1" "perftest -x 1" \
    "(GID index 0)" -- --gid-index 0 --tests host,perftest --sizes 64k --iterations 50 \
    --timeout 60

  hide_perftest
  scenario perftest-missing 0 "perftest | WARN" "apt-get install perftest" \
    "perftest is not installed" -- --tests host,perftest --sizes 64k --iterations 50 --timeout 240
  show_perftest
fi

if [ "$failures" -ne 0 ]; then
  say "$failures scenario(s) did not come out as described"
  exit 1
fi
say "every scenario came out as described"
