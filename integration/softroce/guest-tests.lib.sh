# shellcheck shell=bash
# What the scripts that run tests in the Soft-RoCE guest share (verbs-tests.sh, spark-suites-test.sh,
# mixed-transport-test.sh). Sourced; only defines functions. print_jvm_crashes also runs inside
# the guest, which sees this file at the same path (the host's / over 9p).

# guest_kernels DEFAULT: the Debian suites in SOFTROCE_KERNELS (else DEFAULT) into the array
# `kernels`; exits 125 when there is none.
guest_kernels() {
  read -r -a kernels <<<"${SOFTROCE_KERNELS:-$1}"
  [ ${#kernels[@]} -gt 0 ] || { echo "SOFTROCE_KERNELS names no kernel" >&2; exit 125; }
}

# junit_launcher: the path of JUnit's console launcher jar, fetched into ~/.m2 when missing.
junit_launcher() {
  local version=1.14.1
  local jar="$HOME/.m2/repository/org/junit/platform/junit-platform-console-standalone/$version/junit-platform-console-standalone-$version.jar"
  [ -f "$jar" ] || mvn -q -B dependency:get \
    -Dartifact=org.junit.platform:junit-platform-console-standalone:$version >&2
  printf '%s\n' "$jar"
}

# require_native_library JAR: exits 125 unless JAR bundles our native library (libdisni.so), which
# the build compiles only where rdma-core's headers are installed.
require_native_library() {
  unzip -qql "$1" 'native/*/libdisni.so' >/dev/null 2>&1 ||
    { echo "${1:-the plugin jar} has no native library: install libibverbs-dev librdmacm-dev and rebuild" >&2; exit 125; }
}

# progress FILE plan KEY... | progress FILE step KEY SECONDS WHAT...: a progress line of a
# script's long steps (guest boots), as io.rdmashuffle.tools.Progress prints them for the Java
# runners: step k of n, what ran, elapsed, time left estimated from the last run's steps (kept in
# FILE.history). Nothing when rdma-buffers' classes are not built; never fails the caller.
progress() {
  local classes
  classes="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/rdma-buffers/target/classes"
  [ -f "$classes/io/rdmashuffle/tools/ProgressCommand.class" ] || return 0
  java -cp "$classes" io.rdmashuffle.tools.ProgressCommand "$@" || true
}

# run_each_kernel NAME: run_kernel KERNEL (the caller's) for every kernel of `kernels`, even when
# an earlier one failed, with a progress line after each guest boot; prints a summary (reports
# under $out/KERNEL) and exits with 0 when every run passed, else the first failing run's status.
run_each_kernel() {
  local name=$1 kernel start status first_failure=0
  local summary=() keys=()
  local state="${SOFTROCE_WORK_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/integration/target/softroce}/$name.progress"
  for kernel in "${kernels[@]}"; do keys+=("$name:$kernel"); done
  progress "$state" plan "${keys[@]}"
  for kernel in "${kernels[@]}"; do
    echo "$name: kernel $kernel" >&2
    start=$SECONDS
    status=0
    run_kernel "$kernel" || status=$?
    summary+=("$kernel: status $status, $((SECONDS - start)) s, reports in $out/$kernel")
    progress "$state" step "$name:$kernel" "$((SECONDS - start))" "$name on $kernel: status $status"
    [ "$status" -eq 0 ] || [ "$first_failure" -ne 0 ] || first_failure=$status
  done
  for kernel in "${summary[@]}"; do
    printf '%s: %s\n' "$name" "$kernel" >&2
  done
  exit "$first_failure"
}

# print_jvm_crashes DIR (in the guest): the head of every JVM crash report in DIR, to stderr.
print_jvm_crashes() {
  local crash
  for crash in "$1"/hs_err_pid*.log; do
    [ -f "$crash" ] || continue
    echo "JVM crash report $crash (head):" >&2
    sed -n "1,/^Registers/p" "$crash" | head -n 80 >&2
  done
}
