#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bin/rdma-shuffle qualify's Spark step in the Soft-RoCE guest: a Spark standalone cluster whose two
# Workers are the guest's two hosts (198.18.100.1 on rxe0, 198.18.100.2 on rxe1; the Master on the
# first), then `qualify --tests spark`: a small shuffle on the stock shuffle and on ours over verbs,
# results compared; with --set arguments for ours (odp-tests-guest.sh passes
# spark.shuffle.rdma.verbs.registration=odp, so the executors serve their map outputs on demand).
# Runs INSIDE the guest, as root, from the repository (the tier full step of odp-tests.sh):
#
#   bash integration/softroce/qualify-spark.sh OUT_DIR [--set key=value]...
#
# Spark's home is the one the build makes of Maven's jars (integration/target/spark-VERSION). The
# daemons' logs and the executors' work folders are in OUT_DIR/spark/. Exit status: qualify's.
set -uo pipefail
out="${1:?usage: qualify-spark.sh OUT_DIR [--set key=value]...}"
shift
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
a="${SOFTROCE_RXE0_ADDR:-198.18.100.1}" b="${SOFTROCE_RXE1_ADDR:-198.18.100.2}"
home="$(ls -d "$repo"/integration/target/spark-[0-9]* | head -n 1)"
work="$out/spark"
mkdir -p "$work/conf"
ulimit -n 65536
cat >"$work/conf/log4j2.properties" <<'EOF'
rootLogger.level = info
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss.SSS} %p %c{1}: %m%n%ex
EOF
opens=(-XX:+IgnoreUnrecognizedVMOptions --add-opens=java.base/java.lang=ALL-UNNAMED
  --add-opens=java.base/java.lang.invoke=ALL-UNNAMED --add-opens=java.base/java.lang.reflect=ALL-UNNAMED
  --add-opens=java.base/java.io=ALL-UNNAMED --add-opens=java.base/java.net=ALL-UNNAMED
  --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED
  --add-opens=java.base/java.util.concurrent=ALL-UNNAMED
  --add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED
  --add-opens=java.base/jdk.internal.ref=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED
  --add-opens=java.base/sun.nio.cs=ALL-UNNAMED --add-opens=java.base/sun.security.action=ALL-UNNAMED
  --add-opens=java.base/sun.util.calendar=ALL-UNNAMED -Djdk.reflect.useDirectMethodHandle=false
  -Dio.netty.tryReflectionSetAccessible=true -XX:+UseSerialGC -XX:TieredStopAtLevel=1)
pids=()
# daemon ADDRESS NAME MAIN ARGS...: a Spark daemon as a host at ADDRESS
daemon() {
  local address=$1 name=$2 main=$3
  shift 3
  mkdir -p "$work/$name-local"
  env SPARK_HOME="$home" SPARK_CONF_DIR="$work/conf" SPARK_SCALA_VERSION=2.13 \
    SPARK_LOCAL_IP="$address" SPARK_LOCAL_DIRS="$work/$name-local" SPARK_WORKER_DIR="$work/$name-work" \
    java -Xmx160m "${opens[@]}" -cp "$work/conf:$home/jars/*" "$main" "$@" >"$work/$name.log" 2>&1 &
  pids+=($!)
}
# shellcheck disable=SC2317  # called by the EXIT trap
stop() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  wait 2>/dev/null
}
trap stop EXIT
daemon "$a" master org.apache.spark.deploy.master.Master --host "$a" --port 7077 --webui-port 8080
for _ in $(seq 1 120); do
  grep -q "I have been elected leader" "$work/master.log" 2>/dev/null && break
  sleep 2
done
daemon "$a" worker1 org.apache.spark.deploy.worker.Worker --host "$a" --cores 1 --memory 700m \
  "spark://$a:7077"
daemon "$b" worker2 org.apache.spark.deploy.worker.Worker --host "$b" --cores 1 --memory 700m \
  "spark://$a:7077"
for _ in $(seq 1 180); do
  [ "$(grep -c "Successfully registered with master" "$work"/worker*.log 2>/dev/null |
    awk -F: '{ s += $2 } END { print s + 0 }')" -ge 2 ] && break
  sleep 2
done
echo "qualify-spark: Spark standalone up: Master $a, Workers $a and $b" >&2
export QUALIFY_JAVA_OPTS="${QUALIFY_JAVA_OPTS:--XX:TieredStopAtLevel=1 -XX:+UseSerialGC}"
rc=0
env SPARK_LOCAL_IP="$a" SPARK_CONF_DIR="$work/conf" SPARK_SCALA_VERSION=2.13 \
  "$repo/bin/rdma-shuffle" qualify --hosts "$a,$b" --tests spark --spark-master "spark://$a:7077" \
  --spark-home "$home" --spark-bytes 32m --spark-executors 2 --timeout 300 --out "$out/report" "$@" \
  >"$out/qualify.stdout" 2>"$out/qualify.stderr" || rc=$?
cat "$out/qualify.stdout" >&2
cp -r "$work"/worker*-work "$out/" 2>/dev/null
exit "$rc"
