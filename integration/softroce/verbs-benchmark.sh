#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Our verbs READ benchmark against perftest (ib_read_bw and ib_read_lat at 64 B, 4 KiB, 64 KiB and
# 1 MiB, each in perftest's polling mode and in its event mode -e) on the same Soft-RoCE devices
# in ONE guest run, alternating, then the ratios. Where the guest kernel's rxe has on-demand
# paging, also the registration benchmark (pinned against ODP, and ib_read_bw --odp). Runs on
# the host:
#
#   integration/softroce/verbs-benchmark.sh [ROUNDS]      (default 3 rounds of each)
#
# The guest's clock reads the TSC (SOFTROCE_CLOCKSOURCE=tsc unless set otherwise): perftest times
# its READs with the TSC itself, we with the JVM's clock, which under TCG's default HPET costs an
# emulated device access of over a microsecond per read, a cost no server has.
#
# Writes integration/results/verbs-vs-perftest-<date>.md (committed; VERBS_BENCH_RESULT names
# another file, e.g. for a second run that day) and the raw figures under
# integration/target/softroce-bench/.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
harness="${SOFTROCE_HARNESS:-$repo/integration/softroce/run-in-guest.sh}"
rounds="${1:-3}"
out="${VERBS_BENCH_OUT:-$repo/integration/target/softroce-bench}"
cd "$repo"
if [ ! -f integration/target/bench.classpath ] || [ -n "${REBUILD:-}" ]; then
  # package, not install: everything runs from target/, and an installed SNAPSHOT would leak
  # into every other build sharing ~/.m2
  mvn -q -B -DskipTests -pl integration -am package
fi
jar="$(ls rdma-buffers/target/rdma-buffers-*-SNAPSHOT.jar | grep -v -- -tests.jar | head -n 1)"
cp="$repo/integration/target/classes:$repo/$jar:$(cat integration/target/bench.classpath)"
rm -rf "$out"
mkdir -p "$out"
export SOFTROCE_OUT_DIR="$out"
export SOFTROCE_CLOCKSOURCE="${SOFTROCE_CLOCKSOURCE-tsc}"
"$harness" -- bash -c '
  set -euo pipefail
  ulimit -l unlimited
  java_opts=(--add-exports java.base/sun.nio.ch=ALL-UNNAMED -Xmx1g -XX:MaxDirectMemorySize=2g
    -XX:ErrorFile="$GUEST_OUT/hs_err_pid%p.log" -Dorg.slf4j.simpleLogger.defaultLogLevel=warn)
  # rxe on demand paging: the registration benchmark and perftest --odp run only there
  odp=0
  if ibv_devinfo -v -d rxe0 2>/dev/null | grep -A3 "RC ODP caps" | grep -q "SUPPORT_READ"; then
    odp=1
  fi
  echo "odp=$odp" > "$GUEST_OUT/guest.properties"
  echo "clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)" \
    >> "$GUEST_OUT/guest.properties"
  for r in $(seq 1 "$1"); do
    PERFTEST_OUT_DIR="$GUEST_OUT/perftest-$r" PERFTEST_BW_MAX_ITERS=20000 \
      bash integration/softroce/perftest-baseline.sh \
      > "$GUEST_OUT/perftest-$r.log" 2>&1 || { cat "$GUEST_OUT/perftest-$r.log"; exit 1; }
    java "${java_opts[@]}" -cp "$2" io.rdmashuffle.bench.VerbsReadBenchmark \
      --server "$SOFTROCE_RXE0_ADDR" --client "$SOFTROCE_RXE1_ADDR" \
      --out "$GUEST_OUT/ours-$r.properties"
    if [ "$odp" = 1 ]; then
      java "${java_opts[@]}" -cp "$2" io.rdmashuffle.bench.VerbsRegistrationBenchmark \
        --server "$SOFTROCE_RXE0_ADDR" --client "$SOFTROCE_RXE1_ADDR" --out "$GUEST_OUT/registration-$r.properties"
    fi
  done
' verbs-bench "$rounds" "$cp"

# ratios from the medians of the rounds
python3 - "$out" "$rounds" "$repo/integration/results" <<'PY'
import glob, os, statistics, sys, datetime
out, rounds, results = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def props(path):
    d = {}
    if not os.path.exists(path):
        return d
    for line in open(path):
        line = line.strip()
        if line and not line.startswith('#') and '=' in line:
            k, v = line.split('=', 1); d[k] = v
    return d
perf = [props(f"{out}/perftest-{r}/perftest.properties") for r in range(1, rounds + 1)]
ours = [props(f"{out}/ours-{r}.properties") for r in range(1, rounds + 1)]
reg = [props(f"{out}/registration-{r}.properties") for r in range(1, rounds + 1)]
guest = props(f"{out}/guest.properties")
def med(rows, key):
    vals = [float(r[key]) for r in rows if key in r]
    return statistics.median(vals) if vals else float('nan')
sizes = (64, 4096, 65536, 1048576)
def name(size): return f"{size} B" if size < 1024 else f"{size // 1024} KiB"
rows = []
for size in sizes:
    o = med(ours, f"ours.read_bw.{size}.bw_avg_MBps")
    p = med(perf, f"ib_read_bw.poll.{size}.bw_avg_MBps"); e = med(perf, f"ib_read_bw.event.{size}.bw_avg_MBps")
    rows.append((f"READ bandwidth {name(size)} (MB/s, higher is better)", o, p, o / p, e, o / e, "≥ 0.95"))
for size in sizes:
    for stat, label in (("t_typical_us", "typical"), ("t_avg_us", "average")):
        o = med(ours, f"ours.read_lat_parked.{size}.{stat}")
        p = med(perf, f"ib_read_lat.poll.{size}.{stat}"); e = med(perf, f"ib_read_lat.event.{size}.{stat}")
        rows.append((f"READ latency {name(size)}, {label} (µs, lower is better)", o, p, o / p, e, o / e,
                     "≤ 1.1" if stat == "t_typical_us" else ""))
meta = perf[0]
date = datetime.datetime.utcnow().strftime("%Y-%m-%d")
text = [f"# rdma-shuffle verbs READ vs perftest, Soft-RoCE guest ({date})", "",
        f"One QEMU TCG guest run ({meta.get('cpus','?')} vCPUs, kernel {meta.get('kernel','?')}, perftest {meta.get('perftest.version','?')}),",
        "server rxe0 (198.18.100.1), reader rxe1 (198.18.100.2), connections through RDMA-CM,",
        f"{rounds} alternating rounds of perftest and ours, medians, guest clock source {guest.get('clocksource','?')}.",
        "Emulation speeds: only the ratios mean anything.",
        "Ours: READs posted by the caller, which then waits as a fetch task does: it polls the completion queue",
        "itself for verbs.read.waitSpinMicros (default 200 µs), then parks until the engine thread finds the",
        "completion and its listener wakes it. perftest poll: its default, one thread spinning on the",
        "completion queue; perftest event (-e): the thread sleeps on the completion channel until the device signals.", "",
        "| measure | rdma-shuffle | perftest poll | ratio | perftest event (-e) | ratio | goal |",
        "| --- | --- | --- | --- | --- | --- | --- |"]
for n, o, p, rp, e, re, goal in rows:
    text.append(f"| {n} | {o:.2f} | {p:.2f} | {rp:.2f} | {e:.2f} | {re:.2f} | {goal} |")
if guest.get("odp") == "1":
    text += ["", "## Registration: pinned against on-demand paging (rxe ODP)", "",
             "| measure | median |", "| --- | --- |"]
    keys = sorted({k for r in reg for k in r})
    for k in keys:
        text.append(f"| {k} | {med(reg, k):.2f} |")
    for size in (65536, 1048576):
        text.append(f"| ib_read_bw -e --odp {name(size)} (MB/s) | {med(perf, f'ib_read_bw.event_odp.{size}.bw_avg_MBps'):.2f} |")
else:
    text += ["", "The guest kernel's rxe has no on-demand paging: no registration benchmark in this run."]
text += ["", "Per round (bandwidth MB/s, typical latency µs):", ""]
for r in range(rounds):
    parts = []
    for size in sizes:
        parts.append(f"{name(size)}: bw ours {ours[r].get(f'ours.read_bw.{size}.bw_avg_MBps','?')} / poll {perf[r].get(f'ib_read_bw.poll.{size}.bw_avg_MBps','?')} / event {perf[r].get(f'ib_read_bw.event.{size}.bw_avg_MBps','?')}, "
                     f"lat ours {ours[r].get(f'ours.read_lat_parked.{size}.t_typical_us','?')} / poll {perf[r].get(f'ib_read_lat.poll.{size}.t_typical_us','?')} / event {perf[r].get(f'ib_read_lat.event.{size}.t_typical_us','?')}")
    text.append(f"- round {r+1}: " + "; ".join(parts) + f"; rxe retries {perf[r].get('rxe.completer_retry_err','?')}")
os.makedirs(results, exist_ok=True)
path = os.environ.get("VERBS_BENCH_RESULT") or f"{results}/verbs-vs-perftest-{date}.md"
open(path, "w").write("\n".join(text) + "\n")
print("\n".join(text)); print(f"\nwrote {path}")
PY
