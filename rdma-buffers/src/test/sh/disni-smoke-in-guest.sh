#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs io.rdmashuffle.transport.verbs.DisniSmoke (real RDMA READs through DiSNI and our native
# library, loaded from the rdma-buffers jar) and the doctor inside the Soft-RoCE guest, with
# -Xcheck:jni. No Maven in the guest: the class path is computed here, on the host.
#
#   mvn -q install -DskipTests            # builds the jar (with libdisni.so) and the test classes
#   rdma-buffers/src/test/sh/disni-smoke-in-guest.sh
#
# SOFTROCE_HARNESS names run-in-guest.sh (default: integration/softroce/run-in-guest.sh of this
# repository); its own settings (SOFTROCE_WORK_DIR, SOFTROCE_TIMEOUT, ...) pass through.
# Exit status: the smoke's (0 passed, 1 a check failed, 2 library not loadable), or the harness's.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../.." && pwd)"
harness="${SOFTROCE_HARNESS:-$repo/integration/softroce/run-in-guest.sh}"
module="$repo/rdma-buffers"
[[ -x "$harness" ]] || { echo "no Soft-RoCE harness at $harness (set SOFTROCE_HARNESS)" >&2; exit 125; }
jar="$(ls "$module"/target/rdma-buffers-*-SNAPSHOT.jar 2>/dev/null | grep -v -- -tests.jar | head -n 1 || true)"
[[ -n "$jar" && -d "$module/target/test-classes" ]] ||
  { echo "build first: mvn -q install -DskipTests" >&2; exit 125; }
unzip -qql "$jar" 'native/*/libdisni.so' >/dev/null 2>&1 ||
  { echo "$jar has no native library (built without rdma-core's headers?)" >&2; exit 125; }

deps="$module/target/smoke-classpath.txt"
(cd "$module" && mvn -q -o dependency:build-classpath -Dmdep.includeScope=test \
  -Dmdep.outputFile="$deps" >&2)
cp="$jar:$module/target/test-classes:$(cat "$deps")"
jvm=(java -Xcheck:jni --add-exports java.base/sun.nio.ch=ALL-UNNAMED -cp "$cp")

# Nothing on java.library.path may offer a libdisni.so: the jar's copy must be the one used.
exec "$harness" -- bash -c '
  set -u
  "$@" io.rdmashuffle.transport.verbs.DisniSmoke 2>&1 | tee "$GUEST_OUT/disni-smoke.log"
  status=${PIPESTATUS[0]}
  echo "---- doctor (expects: native library bundled, rxe0/rxe1 ACTIVE)"
  "$@" io.rdmashuffle.tools.Doctor --set spark.shuffle.rdma.transport=verbs 2>&1 |
    grep -v "^SLF4J\|INFO com.ibm.disni" | tee "$GUEST_OUT/doctor.log"
  exit "$status"
' disni-smoke "${jvm[@]}"
