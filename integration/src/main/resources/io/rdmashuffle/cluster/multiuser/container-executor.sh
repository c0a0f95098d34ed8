#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The cluster harness's container-executor, run as root by container-executor.c (setuid) for
# Hadoop's LinuxContainerExecutor: the command line of Hadoop's container-executor as
# LinuxContainerExecutor and DefaultLinuxContainerRuntime build it (PrivilegedOperation), for the
# default runtime without cgroups, traffic control or Docker:
#
#   --checksetup
#   RUN_AS_USER USER 0 APP LOCALIZER_ID TOKENS LOCAL_DIRS LOG_DIRS JAVA ARGS...   initialize
#   RUN_AS_USER USER 1 APP CONTAINER WORK_DIR SCRIPT TOKENS --http PID_FILE LOCAL_DIRS LOG_DIRS
#                      RESOURCES                                                  launch
#   RUN_AS_USER USER 2 PID SIGNAL                                                 signal
#   RUN_AS_USER USER 3 DIR [BASE_DIR...]                                          delete
#   RUN_AS_USER USER 5 DIR                                                        list
#   RUN_AS_USER USER 6 APP LOCAL_DIRS                                             sysfs (nothing)
#
# (lists of dirs are joined with %). What it gives the job's user, as Hadoop's does: below every
# NodeManager local dir usercache/USER, its appcache/APP and each container's dir (and its tmp),
# owned by the user, group the NodeManager's, mode 2750 (the NodeManager reads what the job writes there, no
# other user can); log dirs APP/CONTAINER the same; localizers and containers run as the user
# with umask 0027, in a session of their own (the pid file names the session); the tokens and the
# launch script are copied into the container's dir, readable by the user only.
#
# Its settings (RS_CE_CONF, written by the harness): nm.group=GROUP, users=USER..., dirs=DIR (every
# local and log dir lies below it). Exit codes are Hadoop's: 2 bad user, 9 no such container
# process, 22 bad arguments, 24 bad set-up.
set -u
umask 0022

conf_value() {
  sed -n "s/^$1=//p" "$RS_CE_CONF" | head -1
}

die() {
  echo "container-executor: $2" >&2
  exit "$1"
}

[ -f "${RS_CE_CONF:-}" ] || die 24 "no settings file"
NM_GROUP=$(conf_value nm.group)
USERS=" $(conf_value users) "
DIRS=$(conf_value dirs)
[ -n "$NM_GROUP" ] && [ -n "$DIRS" ] || die 24 "settings lack nm.group or dirs"
NM_UID=${RS_CE_CALLER_UID:?}

if [ "${1:-}" = "--checksetup" ]; then
  exit 0
fi
[ $# -ge 3 ] || die 22 "usage: RUN_AS_USER USER COMMAND ARGS..."
RUN_AS=$1
COMMAND=$3
shift 3
case "$USERS" in
  *" $RUN_AS "*) ;;
  *) die 2 "user '$RUN_AS' may not run containers here (users:$USERS)" ;;
esac
USER_UID=$(id -u "$RUN_AS" 2>/dev/null) || die 2 "no user '$RUN_AS'"
USER_GID=$(id -g "$RUN_AS")
[ "$USER_UID" != 0 ] || die 2 "not as root"
AS_USER=(setpriv "--reuid=$USER_UID" "--regid=$USER_GID" --init-groups --)

# a path must be absolute, without .., below the harness's dirs
checked() {
  case "$1" in
    "$DIRS"/*) ;;
    *) die 22 "'$1' is not below $DIRS" ;;
  esac
  case "/$1/" in
    */../* | */./*) die 22 "'$1' is not a plain path" ;;
  esac
  printf '%s' "$1"
}

# mkdir -p of the user's dirs, each new one USER:NM_GROUP 2750
user_dir() {
  local d
  d=$(checked "$1") || exit $?
  if [ ! -d "$d" ]; then
    mkdir -p "$d" || die 22 "can't create $d"
  fi
  chown "$USER_UID:$NM_GROUP" "$d" && chmod 2750 "$d" || die 22 "can't set up $d"
}

split_dirs() {
  local IFS=%
  # shellcheck disable=SC2206
  SPLIT=($1)
}

# files the NodeManager reads (pid, exit code), written as it
as_nm() {
  local tmp="$1.tmp"
  printf '%s\n' "$2" >"$tmp" && chown "$NM_UID" "$tmp" && mv -f "$tmp" "$1"
}

initialize() {
  [ $# -ge 6 ] || die 22 "initialize: APP LOCALIZER TOKENS LOCAL_DIRS LOG_DIRS COMMAND..."
  local app=$1 loc=$2 tokens=$3 first=""
  split_dirs "$4"
  local locals=("${SPLIT[@]}")
  split_dirs "$5"
  local logs=("${SPLIT[@]}")
  shift 5
  for d in "${locals[@]}"; do
    user_dir "$d/usercache/$RUN_AS"
    user_dir "$d/usercache/$RUN_AS/appcache"
    user_dir "$d/usercache/$RUN_AS/filecache"
    user_dir "$d/usercache/$RUN_AS/appcache/$app"
    [ -n "$first" ] || first="$d/usercache/$RUN_AS/appcache/$app"
  done
  for d in "${logs[@]}"; do
    user_dir "$d/$app"
    user_dir "$d/$app/$loc"
  done
  local copy
  copy="$first/$(basename "$tokens")"
  install -o "$USER_UID" -g "$USER_GID" -m 0600 "$tokens" "$copy" || die 22 "can't copy $tokens"
  cd "$first" || die 22 "no $first"
  umask 0027
  exec "${AS_USER[@]}" "$@"
}

launch() {
  [ $# -ge 10 ] || die 22 "launch: APP CONTAINER WORK_DIR SCRIPT TOKENS --http PID LOCALS LOGS RES"
  local app=$1 container=$2 work=$3 script=$4 tokens=$5
  shift 5
  if [ "$1" = "--https" ]; then
    die 22 "launch: --https is not supported by the harness"
  fi
  local pidfile=$2
  split_dirs "$3"
  local locals=("${SPLIT[@]}")
  split_dirs "$4"
  local logs=("${SPLIT[@]}")
  local workdir_ok=""
  for d in "${locals[@]}"; do
    user_dir "$d/usercache/$RUN_AS"
    user_dir "$d/usercache/$RUN_AS/appcache"
    user_dir "$d/usercache/$RUN_AS/appcache/$app"
    user_dir "$d/usercache/$RUN_AS/appcache/$app/$container"
    [ "$d/usercache/$RUN_AS/appcache/$app/$container" != "$work" ] || workdir_ok=1
  done
  [ -n "$workdir_ok" ] || die 22 "work dir $work is not a container dir of $RUN_AS"
  # the container's java.io.tmpdir ($PWD/tmp in its launch script), as Hadoop's makes it
  user_dir "$work/tmp"
  for d in "${logs[@]}"; do
    user_dir "$d/$app"
    user_dir "$d/$app/$container"
  done
  install -o "$USER_UID" -g "$USER_GID" -m 0700 "$script" "$work/launch_container.sh" \
    || die 7 "can't copy $script"
  install -o "$USER_UID" -g "$USER_GID" -m 0600 "$tokens" "$work/container_tokens" \
    || die 22 "can't copy $tokens"
  # the container leads a session of its own (what the NodeManager signals: the session's group)
  (cd "$work" && umask 0027 && exec setsid "${AS_USER[@]}" /bin/bash launch_container.sh) &
  local pid=$!
  as_nm "$pidfile" "$pid" || die 22 "can't write $pidfile"
  wait "$pid"
  local rc=$?
  as_nm "$pidfile.exitcode" "$rc"
  exit "$rc"
}

signal() {
  [ $# -eq 2 ] || die 22 "signal: PID SIGNAL"
  local pid=$1 sig=$2
  [[ "$pid" =~ ^[0-9]+$ && "$sig" =~ ^[0-9]+$ && "$pid" -gt 1 ]] || die 22 "signal: $pid $sig"
  local owner
  owner=$(stat -c %u "/proc/$pid" 2>/dev/null) || exit 9
  [ "$owner" = "$USER_UID" ] || die 9 "process $pid is not $RUN_AS's"
  # the session's group first, the process alone when it leads none (as Hadoop's)
  "${AS_USER[@]}" kill -s "$sig" -- "-$pid" 2>/dev/null && exit 0
  "${AS_USER[@]}" kill -s "$sig" -- "$pid" 2>/dev/null && exit 0
  [ -d "/proc/$pid" ] || exit 9
  die 22 "can't signal $pid"
}

delete() {
  [ $# -ge 1 ] || die 22 "delete: DIR [BASE_DIR...]"
  local dir=$1 p
  shift
  if [ $# -eq 0 ]; then
    p=$(checked "$dir") || exit $?
    rm -rf -- "$p"
  else
    for base in "$@"; do
      p=$(checked "$base${dir:+/$dir}") || exit $?
      rm -rf -- "$p"
    done
  fi
}

list() {
  [ $# -eq 1 ] || die 22 "list: DIR"
  local p
  p=$(checked "$1") || exit $?
  ls -1A -- "$p"
}

case "$COMMAND" in
  0) initialize "$@" ;;
  1) launch "$@" ;;
  2) signal "$@" ;;
  3) delete "$@" ;;
  5) list "$@" ;;
  6) exit 0 ;;
  *) die 1 "command $COMMAND is not supported by the harness" ;;
esac
