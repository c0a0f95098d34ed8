#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Perftest baseline for the Soft-RoCE guest: RDMA READ bandwidth (ib_read_bw) and latency
# (ib_read_lat) between rxe0 and rxe1 at 64 B, 4 KiB, 64 KiB and 1 MiB, measured by the stock
# rdma-core tools in two ways of waiting for completions, on pinned memory and, where the kernel's
# rxe has on-demand paging (ODP) for RC READ, on ODP memory too, so our own verbs benchmark can be
# read as a ratio to them in the same guest run. Runs INSIDE the guest:
#
#   integration/softroce/run-in-guest.sh -- bash integration/softroce/perftest-baseline.sh
#
# Modes (the second part of every key):
#   poll        perftest's default: the thread busy-polls the completion queue
#   event       -e: the thread sleeps on the completion channel until a completion arrives
#   poll_odp    as poll, memory registered on demand (--odp) instead of pinned
#   event_odp   as event, with --odp
# Under single-threaded TCG every vCPU shares one emulator thread, and rxe does the NIC's work in
# the kernel on those vCPUs, so a busy-polling thread takes time from the emulated NIC: event
# mode is the baseline for a reader that sleeps on completions.
#
# Writes $GUEST_OUT/perftest.properties, keys TOOL.MODE.SIZE.FIGURE, e.g.
# ib_read_bw.poll.65536.bw_avg_MBps, ib_read_bw.event_odp.1048576.bw_avg_MBps,
# ib_read_lat.event.64.t_typical_us (see run_bw and run_lat), and the raw outputs of every server
# and client under $GUEST_OUT/perftest/. Server: rxe0 on $SOFTROCE_RXE0_ADDR; client: rxe1;
# connections through rdma_cm (-R). Figures are TCG emulation speeds: compare them only with
# figures taken in the same guest run.
#
# Settings (environment):
#   PERFTEST_OUT_DIR      where results go (default: $GUEST_OUT)
#   PERFTEST_BW_SIZES     message sizes of ib_read_bw in bytes (default: "64 4096 65536 1048576")
#   PERFTEST_LAT_SIZES    message sizes of ib_read_lat in bytes (default: the same)
#   PERFTEST_MODES        modes to run (default: "poll event", plus "poll_odp event_odp" when rxe0
#                         reports ODP for RC READ)
#   PERFTEST_BW_MB        MiB moved by each bandwidth test (default: 16); iterations follow,
#                         between 64 and PERFTEST_BW_MAX_ITERS (default: 4000)
#   PERFTEST_LAT_MB       MiB read by each latency test (default: 8); iterations follow, between
#                         20 and PERFTEST_LAT_ITERS (default: 1000)
#   PERFTEST_TIMEOUT      seconds one client may run before it is killed (default: 180)
set -euo pipefail
shopt -s inherit_errexit

readonly OUT_DIR="${PERFTEST_OUT_DIR:-${GUEST_OUT:-}}"
read -r -a BW_SIZES <<<"${PERFTEST_BW_SIZES:-64 4096 65536 1048576}"
read -r -a LAT_SIZES <<<"${PERFTEST_LAT_SIZES:-64 4096 65536 1048576}"
readonly BW_SIZES LAT_SIZES
readonly BW_MB="${PERFTEST_BW_MB:-16}"
readonly BW_MAX_ITERS="${PERFTEST_BW_MAX_ITERS:-4000}" BW_MIN_ITERS=64
readonly LAT_MB="${PERFTEST_LAT_MB:-8}"
readonly LAT_ITERS="${PERFTEST_LAT_ITERS:-1000}" LAT_MIN_ITERS=20
readonly CLIENT_TIMEOUT="${PERFTEST_TIMEOUT:-180}"
readonly SERVER_DEV=rxe0 SERVER_ADDR="${SOFTROCE_RXE0_ADDR:-198.18.100.1}" CLIENT_DEV=rxe1
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
  local n
  for n in "$BW_MB" "$BW_MAX_ITERS" "$LAT_MB" "$LAT_ITERS" "${BW_SIZES[@]}" "${LAT_SIZES[@]}"; do
    [[ "$n" =~ ^[1-9][0-9]*$ ]] ||
      die "$n: sizes, PERFTEST_BW_MB, PERFTEST_BW_MAX_ITERS, PERFTEST_LAT_MB and" \
        "PERFTEST_LAT_ITERS must be positive integers"
  done
}

# Prints 1 when the server's device can register memory on demand for RC RDMA READ (rxe from
# kernel 6.14 on), else 0; ibv_devinfo lists the capabilities under rc_odp_caps.
odp_read_supported() {
  ibv_devinfo -v -d "$SERVER_DEV" 2>/dev/null | awk '
    /general_odp_caps:/ { section = "general"; next }
    /_odp_caps:/ { section = $1; next }
    /^[ \t]*[a-z_]+:/ { section = "" }
    section == "general" && $1 == "ODP_SUPPORT" { general = 1 }
    section == "rc_odp_caps:" && $1 == "SUPPORT_READ" { read = 1 }
    END { print (general && read) ? 1 : 0 }'
}

# Prints the modes to run: PERFTEST_MODES, else poll and event, plus their ODP variants when the
# device supports ODP for READ.
modes() {
  if [[ -n "${PERFTEST_MODES:-}" ]]; then
    echo "$PERFTEST_MODES"
  elif ((ODP_READ)); then
    echo "poll event poll_odp event_odp"
  else
    echo "poll event"
  fi
}

# Prints perftest's options for MODE.
mode_options() {
  case "$1" in
  poll) ;;
  event) echo "-e" ;;
  poll_odp) echo "--odp" ;;
  event_odp) echo "-e --odp" ;;
  *) die "unknown mode $1 (poll, event, poll_odp, event_odp)" ;;
  esac
}

# number VALUE WHAT: fails unless VALUE is a finite decimal number.
number() {
  [[ "$1" =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "$2 is '$1', not a number; raw outputs in $RAW_DIR"
}

# clamp N MIN MAX
clamp() {
  local n="$1"
  ((n >= $2)) || n=$2
  ((n <= $3)) || n=$3
  echo "$n"
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
      # host the sample fails ("Correlation coefficient r^2 ... < 0.9") and every time is inf.
      # (A standard deviation of nan alone is no such failure: perftest prints it for some
      # 1 MiB latency runs with a good clock.)
      ! grep -Eq '(^|[[:space:]])-?inf([[:space:]]|$)' "$client_log" && return 0
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

# run_bw MODE SIZE PORT: ib_read_bw, iterations from PERFTEST_BW_MB.
run_bw() {
  local mode="$1" size="$2" port="$3" iters row opts
  iters="$(clamp $((BW_MB * 1048576 / size)) "$BW_MIN_ITERS" "$BW_MAX_ITERS")"
  read -r -a opts <<<"$(mode_options "$mode")"
  say "ib_read_bw $mode -s $size -n $iters"
  run_pair "ib_read_bw-$mode-$size" "$port" ib_read_bw "${opts[@]}" -s "$size" -n "$iters"
  # #bytes #iterations BW peak[MB/sec] BW average[MB/sec] MsgRate[Mpps]
  row="$(result_row "$RAW_DIR/ib_read_bw-$mode-$size.client.txt" "$size")"
  read -r _ _ peak avg rate <<<"$row"
  number "$avg" "bandwidth of ib_read_bw $mode $size"
  local key="ib_read_bw.$mode.$size"
  SUMMARY+=("$key.iterations=$iters" "$key.bw_peak_MBps=$peak" "$key.bw_avg_MBps=$avg"
    "$key.msg_rate_Mpps=$rate")
}

# run_lat MODE SIZE PORT: ib_read_lat, iterations from PERFTEST_LAT_MB.
run_lat() {
  local mode="$1" size="$2" port="$3" iters row opts
  iters="$(clamp $((LAT_MB * 1048576 / size)) "$LAT_MIN_ITERS" "$LAT_ITERS")"
  read -r -a opts <<<"$(mode_options "$mode")"
  say "ib_read_lat $mode -s $size -n $iters"
  run_pair "ib_read_lat-$mode-$size" "$port" ib_read_lat "${opts[@]}" -s "$size" -n "$iters"
  # #bytes #iterations t_min t_max t_typical t_avg t_stdev 99% 99.9%   (all in usec)
  row="$(result_row "$RAW_DIR/ib_read_lat-$mode-$size.client.txt" "$size")"
  read -r _ _ tmin tmax ttyp tavg tstdev p99 p999 <<<"$row"
  number "$ttyp" "typical latency of ib_read_lat $mode $size"
  number "$tavg" "average latency of ib_read_lat $mode $size"
  local key="ib_read_lat.$mode.$size"
  SUMMARY+=("$key.iterations=$iters" "$key.t_min_us=$tmin" "$key.t_typical_us=$ttyp"
    "$key.t_avg_us=$tavg" "$key.t_max_us=$tmax" "$key.t_stdev_us=$tstdev" "$key.t_p99_us=$p99"
    "$key.t_p999_us=$p999")
}

write_summary() {
  local file="$OUT_DIR/perftest.properties"
  {
    echo "# perftest baseline: RDMA READ between Soft-RoCE devices in one QEMU TCG guest."
    echo "# Server $SERVER_DEV ($SERVER_ADDR), client $CLIENT_DEV, rdma_cm (-R)."
    echo "# Keys TOOL.MODE.SIZE.FIGURE; modes: poll (busy polling), event (-e, sleeps on CQ"
    echo "# events), poll_odp and event_odp (the same with --odp memory instead of pinned)."
    echo "# Bandwidth in MB/sec as perftest prints it (2^20 bytes per second), latency in usec."
    echo "# Emulation speeds: compare only with figures taken in the same guest run."
    echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "kernel=$(uname -r)"
    echo "cpus=$(nproc)"
    echo "perftest.version=$(dpkg-query -W -f='${Version}' perftest 2>/dev/null || echo unknown)"
    echo "rdma_core.version=$(dpkg-query -W -f='${Version}' ibverbs-providers 2>/dev/null || echo unknown)"
    echo "rxe.odp_rc_read=$ODP_READ"
    echo "modes=$(modes)"
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
  ibv_devinfo -v -d "$SERVER_DEV" >"$RAW_DIR/ibv_devinfo-$SERVER_DEV.txt" 2>&1 || true
  ODP_READ="$(odp_read_supported)"
  local port=18600 size mode
  read -r -a MODES <<<"$(modes)"
  for mode in "${MODES[@]}"; do
    mode_options "$mode" >/dev/null
  done
  say "kernel $(uname -r), ODP for RC READ: $ODP_READ; modes: ${MODES[*]};" \
    "sizes: ${BW_SIZES[*]} (bandwidth), ${LAT_SIZES[*]} (latency)"
  # Sizes outside, modes inside: the modes of one size are measured close together in time.
  for size in "${BW_SIZES[@]}"; do
    for mode in "${MODES[@]}"; do
      run_bw "$mode" "$size" "$port"
      port=$((port + 10))
    done
  done
  for size in "${LAT_SIZES[@]}"; do
    for mode in "${MODES[@]}"; do
      run_lat "$mode" "$size" "$port"
      port=$((port + 10))
    done
  done
  write_summary
}

main "$@"
