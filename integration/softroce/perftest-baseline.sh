#!/usr/bin/env bash
# Perftest baseline for the Soft-RoCE guest: RDMA READ bandwidth (64 KiB and 1 MiB messages) and
# latency (64 bytes) between rxe0 and rxe1, measured by the stock rdma-core tools, so our own
# verbs benchmark can be read as a ratio to them in the same guest run. Runs INSIDE the guest:
#
#   integration/softroce/run-in-guest.sh -- bash integration/softroce/perftest-baseline.sh
#
# Writes $GUEST_OUT/perftest.properties (one key per figure, see write_summary) and the raw
# outputs of every server and client under $GUEST_OUT/perftest/. Server: rxe0 on 10.77.0.1;
# client: rxe1; connections through rdma_cm (-R). Figures are TCG emulation speeds: compare them
# only with figures taken in the same guest run.
#
# Settings (environment):
#   PERFTEST_OUT_DIR      where results go (default: $GUEST_OUT)
#   PERFTEST_BW_MB        MiB moved by each bandwidth test (default: 128); iterations follow
#   PERFTEST_LAT_ITERS    iterations of the latency test (default: 5000)
#   PERFTEST_TIMEOUT      seconds one client may run before it is killed (default: 180)
set -euo pipefail
shopt -s inherit_errexit

readonly OUT_DIR="${PERFTEST_OUT_DIR:-${GUEST_OUT:-}}"
readonly BW_MB="${PERFTEST_BW_MB:-128}"
readonly LAT_ITERS="${PERFTEST_LAT_ITERS:-5000}"
readonly CLIENT_TIMEOUT="${PERFTEST_TIMEOUT:-180}"
readonly SERVER_DEV=rxe0 SERVER_ADDR=10.77.0.1 CLIENT_DEV=rxe1
readonly BW_SIZES=(65536 1048576) LAT_SIZE=64
readonly ATTEMPTS=3

say() { echo "perftest-baseline: $*" >&2; }
die() {
  say "ERROR: $*"
  exit 1
}

check_guest() {
  [[ -n "$OUT_DIR" ]] ||
    die "GUEST_OUT is not set: run me through integration/softroce/run-in-guest.sh"
  local dev
  for dev in "$SERVER_DEV" "$CLIENT_DEV"; do
    grep -qs ACTIVE "/sys/class/infiniband/$dev/ports/1/state" ||
      die "no ACTIVE $dev here: run me inside the guest (integration/softroce/run-in-guest.sh)"
  done
  command -v ib_read_bw >/dev/null && command -v ib_read_lat >/dev/null ||
    die "perftest is not installed (apt-get install perftest on the host)"
  [[ "$BW_MB" =~ ^[1-9][0-9]*$ && "$LAT_ITERS" =~ ^[1-9][0-9]*$ ]] ||
    die "PERFTEST_BW_MB=$BW_MB and PERFTEST_LAT_ITERS=$LAT_ITERS must be positive integers"
}

# Waits until the server's output shows it listens, or up to 30 s.
wait_for_server() {
  local log="$1" pid="$2" _
  for _ in $(seq 1 300); do
    grep -qs 'Waiting for client' "$log" && { sleep 0.5; return 0; }
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.1
  done
  return 0
}

# run_pair NAME PORT TOOL ARG...: one server on rxe0 and one client on rxe1, raw outputs in
# $RAW_DIR/NAME.{server,client}.txt. Retries when the client could not connect (the server was
# not listening yet), so a slow guest does not fail the baseline.
run_pair() {
  local name="$1" port="$2" tool="$3"
  shift 3
  local server_log="$RAW_DIR/$name.server.txt" client_log="$RAW_DIR/$name.client.txt"
  local attempt spid before_s before_c
  before_s="$(packets "$SERVER_DEV")"
  before_c="$(packets "$CLIENT_DEV")"
  for ((attempt = 1; attempt <= ATTEMPTS; attempt++)); do
    # Line-buffered so the server's "Waiting for client" shows up at once in its log.
    stdbuf -oL -eL "$tool" "$@" -R -F -d "$SERVER_DEV" -p "$port" >"$server_log" 2>&1 &
    spid=$!
    wait_for_server "$server_log" "$spid" || {
      say "$name: server exited early (attempt $attempt):"
      cat "$server_log" >&2
      wait "$spid" || true
      continue
    }
    local rc=0
    timeout "$CLIENT_TIMEOUT" "$tool" "$@" -R -F -d "$CLIENT_DEV" -p "$port" "$SERVER_ADDR" \
      >"$client_log" 2>&1 || rc=$?
    if ((rc == 0)); then
      timeout 60 tail --pid="$spid" -f /dev/null || kill "$spid" 2>/dev/null || true
      wait "$spid" || say "$name: server exited with status $? (client finished fine)"
      check_crossed "$name" "$before_s" "$before_c"
      # perftest turns cycles into time with a CPU clock rate it samples at start; on a busy
      # host the sample fails ("Correlation coefficient r^2 ... < 0.9") and every figure is inf.
      ! grep -Eq '(^|[[:space:]])(-?nan|inf)([[:space:]]|$)' "$client_log" && return 0
      say "$name: perftest could not calibrate its clock (busy host?), attempt $attempt of" \
        "$ATTEMPTS: $(grep -m1 Correlation "$client_log" || echo 'inf or nan in its figures')"
      port=$((port + 1))
      continue
    fi
    kill "$spid" 2>/dev/null || true
    wait "$spid" 2>/dev/null || true
    # A transfer that stalled will stall again: only a failure to connect is worth a retry.
    ((rc != 124)) || die "$name: client still running after ${CLIENT_TIMEOUT}s (transfer stalled?" \
      "see 'rdma statistic show' retry counters and /proc/net/softnet_stat drops); raw outputs in $RAW_DIR"
    say "$name: client failed with status $rc (attempt $attempt of $ATTEMPTS):"
    tail -n 5 "$client_log" >&2
    port=$((port + 1))
    sleep 1
  done
  die "$name failed $ATTEMPTS times; raw outputs in $RAW_DIR"
}

counter() { cat "/sys/class/infiniband/$1/ports/1/hw_counters/$2"; }

# Packets dropped for a full backlog queue, all CPUs (second column of softnet_stat, in hex).
softnet_dropped() {
  local n=0 _ dropped rest
  while read -r _ dropped rest; do
    n=$((n + 16#$dropped))
  done </proc/net/softnet_stat
  echo "$n"
}

# Prints "sent rcvd" packet counters of a device.
packets() {
  local c=/sys/class/infiniband/$1/ports/1/hw_counters
  echo "$(cat "$c/sent_pkts") $(cat "$c/rcvd_pkts")"
}

# Fails unless the client's device received what the server's device sent during a test: a test
# that stayed inside one device (rxe loopback) would measure something else.
check_crossed() {
  local name="$1" before_s="$2" before_c="$3" s_sent s_rcvd c_sent c_rcvd
  local b_s_sent b_s_rcvd b_c_sent b_c_rcvd
  read -r s_sent s_rcvd <<<"$(packets "$SERVER_DEV")"
  read -r c_sent c_rcvd <<<"$(packets "$CLIENT_DEV")"
  read -r b_s_sent b_s_rcvd <<<"$before_s"
  read -r b_c_sent b_c_rcvd <<<"$before_c"
  local sent=$((s_sent - b_s_sent)) rcvd=$((c_rcvd - b_c_rcvd))
  echo "$SERVER_DEV sent $sent packets, $CLIENT_DEV received $rcvd," \
    "$CLIENT_DEV sent $((c_sent - b_c_sent)), $SERVER_DEV received $((s_rcvd - b_s_rcvd))" \
    >"$RAW_DIR/$name.packets.txt"
  ((sent > 0 && rcvd > 0)) ||
    die "$name: no packets went from $SERVER_DEV to $CLIENT_DEV (rxe loopback on one device?)"
}

# Prints the result row of a perftest output: the line whose first field is the message size.
result_row() {
  local log="$1" size="$2" row
  row="$(awk -v size="$size" '$1 == size && NF >= 5 { print; exit }' "$log")"
  [[ -n "$row" ]] || die "no result row for $size bytes in $log"
  echo "$row"
}

run_bw() {
  local size="$1" port="$2" iters row
  iters=$((BW_MB * 1048576 / size))
  ((iters >= 10)) || iters=10
  say "ib_read_bw -s $size -n $iters"
  run_pair "ib_read_bw-$size" "$port" ib_read_bw -s "$size" -n "$iters"
  # #bytes #iterations BW peak[MB/sec] BW average[MB/sec] MsgRate[Mpps]
  row="$(result_row "$RAW_DIR/ib_read_bw-$size.client.txt" "$size")"
  read -r _ _ peak avg rate <<<"$row"
  SUMMARY+=("ib_read_bw.$size.iterations=$iters"
    "ib_read_bw.$size.bw_peak_MBps=$peak"
    "ib_read_bw.$size.bw_avg_MBps=$avg"
    "ib_read_bw.$size.msg_rate_Mpps=$rate")
}

run_lat() {
  local size="$1" port="$2" row
  say "ib_read_lat -s $size -n $LAT_ITERS"
  run_pair "ib_read_lat-$size" "$port" ib_read_lat -s "$size" -n "$LAT_ITERS"
  # #bytes #iterations t_min t_max t_typical t_avg t_stdev 99% 99.9%   (all in usec)
  row="$(result_row "$RAW_DIR/ib_read_lat-$size.client.txt" "$size")"
  read -r _ _ tmin tmax ttyp tavg tstdev p99 p999 <<<"$row"
  SUMMARY+=("ib_read_lat.$size.iterations=$LAT_ITERS"
    "ib_read_lat.$size.t_min_us=$tmin"
    "ib_read_lat.$size.t_typical_us=$ttyp"
    "ib_read_lat.$size.t_avg_us=$tavg"
    "ib_read_lat.$size.t_max_us=$tmax"
    "ib_read_lat.$size.t_stdev_us=$tstdev"
    "ib_read_lat.$size.t_p99_us=$p99"
    "ib_read_lat.$size.t_p999_us=$p999")
}

write_summary() {
  local file="$OUT_DIR/perftest.properties"
  {
    echo "# perftest baseline: RDMA READ between Soft-RoCE devices in one QEMU TCG guest."
    echo "# Server $SERVER_DEV ($SERVER_ADDR), client $CLIENT_DEV, rdma_cm (-R)."
    echo "# Bandwidth in MB/sec as perftest prints it (2^20 bytes per second), latency in usec."
    echo "# Emulation speeds: compare only with figures taken in the same guest run."
    echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "kernel=$(uname -r)"
    echo "cpus=$(nproc)"
    echo "perftest.version=$(dpkg-query -W -f='${Version}' perftest 2>/dev/null || echo unknown)"
    printf '%s\n' "${SUMMARY[@]}"
    # Quality of the figures: rxe retransmissions (timeouts, lost packets) and packets the
    # kernel dropped for a full backlog, both over the whole run; 0 is what clean figures show.
    echo "rxe.completer_retry_err=$(($(counter "$SERVER_DEV" completer_retry_err) +
      $(counter "$CLIENT_DEV" completer_retry_err)))"
    echo "net.softnet_dropped=$(softnet_dropped)"
  } >"$file.tmp"
  mv "$file.tmp" "$file"
  rdma statistic show >"$RAW_DIR/rdma-statistic.txt" 2>&1 || true
  say "summary in $file:"
  grep -v '^#' "$file"
}

main() {
  check_guest
  RAW_DIR="$OUT_DIR/perftest"
  mkdir -p "$RAW_DIR"
  SUMMARY=()
  ulimit -l unlimited 2>/dev/null || say "cannot lift the locked-memory limit; trying anyway"
  local port=18600 size
  for size in "${BW_SIZES[@]}"; do
    run_bw "$size" "$port"
    port=$((port + 10))
  done
  run_lat "$LAT_SIZE" "$port"
  write_summary
}

main "$@"
