#!/usr/bin/env bash
# Our verbs READ benchmark against perftest (ib_read_bw 64 KiB and 1 MiB, ib_read_lat 64 B) on the
# same Soft-RoCE devices in ONE guest run, alternating, then the ratios. Runs on the host:
#
#   integration/softroce/verbs-benchmark.sh [ROUNDS]      (default 2 rounds of each)
#
# Writes integration/results/verbs-vs-perftest-<date>.md (committed) and the raw figures under
# integration/target/softroce-bench/.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
harness="${SOFTROCE_HARNESS:-$repo/integration/softroce/run-in-guest.sh}"
rounds="${1:-2}"
out="${VERBS_BENCH_OUT:-$repo/integration/target/softroce-bench}"
cd "$repo"
if [ ! -f integration/target/bench.classpath ] || [ -n "${REBUILD:-}" ]; then
  mvn -q -B -DskipTests -pl integration -am install
fi
jar="$(ls rdma-buffers/target/rdma-buffers-*-SNAPSHOT.jar | grep -v -- -tests.jar | head -n 1)"
cp="$repo/integration/target/classes:$repo/$jar:$(cat integration/target/bench.classpath)"
rm -rf "$out"
mkdir -p "$out"
export SOFTROCE_OUT_DIR="$out"
"$harness" -- bash -c '
  set -euo pipefail
  ulimit -l unlimited
  for r in $(seq 1 "$1"); do
    PERFTEST_OUT_DIR="$GUEST_OUT/perftest-$r" bash integration/softroce/perftest-baseline.sh \
      > "$GUEST_OUT/perftest-$r.log" 2>&1 || { cat "$GUEST_OUT/perftest-$r.log"; exit 1; }
    mkdir -p "$GUEST_OUT/perftest-$r"
    java --add-exports java.base/sun.nio.ch=ALL-UNNAMED -Xmx1g -XX:MaxDirectMemorySize=2g \
      -XX:ErrorFile="$GUEST_OUT/hs_err_pid%p.log" \
      -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$2" io.rdmashuffle.bench.VerbsReadBenchmark \
      --out "$GUEST_OUT/ours-$r.properties"
  done
' verbs-bench "$rounds" "$cp"

# ratios from the medians of the rounds
python3 - "$out" "$rounds" "$repo/integration/results" <<'PY'
import glob, os, statistics, sys, datetime
out, rounds, results = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def props(path):
    d = {}
    for line in open(path):
        line = line.strip()
        if line and not line.startswith('#') and '=' in line:
            k, v = line.split('=', 1); d[k] = v
    return d
perf = [props(f"{out}/perftest-{r}/perftest.properties") for r in range(1, rounds + 1)]
ours = [props(f"{out}/ours-{r}.properties") for r in range(1, rounds + 1)]
def med(rows, key): return statistics.median(float(r[key]) for r in rows)
rows = []
for size in (65536, 1048576):
    p = med(perf, f"ib_read_bw.{size}.bw_avg_MBps"); o = med(ours, f"ours.read_bw.{size}.bw_avg_MBps")
    rows.append((f"READ bandwidth, {size // 1024} KiB messages (MB/s)", o, p, o / p, "≥ 0.95"))
for key, how in (("read_lat_parked", "reader parked as a fetch task waits"),
                 ("read_lat", "reader polling, yielding")):
    p = med(perf, "ib_read_lat.64.t_typical_us"); o = med(ours, f"ours.{key}.64.t_typical_us")
    rows.append((f"READ latency, 64 bytes, {how}, typical (µs)", o, p, o / p, "≤ 1.1"))
    p = med(perf, "ib_read_lat.64.t_avg_us"); o = med(ours, f"ours.{key}.64.t_avg_us")
    rows.append((f"READ latency, 64 bytes, {how}, average (µs)", o, p, o / p, ""))
meta = perf[0]
date = datetime.datetime.utcnow().strftime("%Y-%m-%d")
text = [f"# rdma-shuffle verbs READ vs perftest, Soft-RoCE guest ({date})", "",
        f"One QEMU TCG guest run ({meta.get('cpus','?')} vCPUs, kernel {meta.get('kernel','?')}, perftest {meta.get('perftest.version','?')}),",
        "server rxe0 (10.77.0.1), reader rxe1 (10.77.0.2), connections through RDMA-CM,",
        f"{rounds} alternating rounds of perftest and ours, medians. Emulation speeds: only the ratios mean anything.", "",
        "| measure | rdma-shuffle | perftest | ratio | goal |", "| --- | --- | --- | --- | --- |"]
for name, o, p, r, goal in rows:
    text.append(f"| {name} | {o:.2f} | {p:.2f} | {r:.2f} | {goal} |")
text += ["", "Per round:", ""]
for r in range(rounds):
    text.append(f"- round {r+1}: perftest " + ", ".join(f"{k}={v}" for k, v in perf[r].items() if k.startswith('ib_read') and ('avg' in k or 'typical' in k))
                + "; ours " + ", ".join(f"{k}={v}" for k, v in ours[r].items() if 'avg' in k or 'typical' in k))
os.makedirs(results, exist_ok=True)
path = f"{results}/verbs-vs-perftest-{date}.md"
open(path, "w").write("\n".join(text) + "\n")
print("\n".join(text)); print(f"\nwrote {path}")
PY
