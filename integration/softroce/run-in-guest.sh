#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs one command inside a throwaway QEMU guest that has two Soft-RoCE devices (rxe0, rxe1),
# so real RDMA verbs run on a machine without an RDMA NIC (see README.md beside this file).
#
#   integration/softroce/run-in-guest.sh [--] COMMAND [ARG...]
#
# The guest boots a Debian kernel under TCG, mounts the host's / read-only over 9p with a tmpfs
# overlay on top, and runs COMMAND in the host's current directory. Only the out share
# ($GUEST_OUT in the guest) survives the run. COMMAND's stdout and stderr come back on this
# script's stdout and stderr, its exit status becomes this script's exit status.
#
# Exit status: COMMAND's own, or 124 on timeout, 125 when the harness itself failed
# (setup, boot), 130 when interrupted.
#
# Settings (environment):
#   SOFTROCE_WORK_DIR  cache of kernel and initramfs (default: integration/target/softroce)
#   SOFTROCE_OUT_DIR   host folder shared writable as $GUEST_OUT (default: $SOFTROCE_WORK_DIR/out,
#                      emptied at the start of each run; a folder you name is never emptied)
#   SOFTROCE_MEM       guest memory, QEMU syntax (default: 3G)
#   SOFTROCE_CPUS      guest vCPUs (default: 2)
#   SOFTROCE_TIMEOUT   whole run, boot included, in `timeout` syntax: 90s, 40m, 1h (default: 40m)
#   SOFTROCE_KERNEL    Debian suite whose kernel the guest boots (default: bookworm, the host's
#                      own apt sources). Any other suite (trixie-backports: a 7.x kernel with
#                      ODP for rxe) is fetched through a private apt list in the work folder;
#                      the host's apt configuration is never changed.
#   SOFTROCE_KERNEL_PKG  Debian kernel package (default: the one linux-image-amd64 of that suite
#                      depends on)
#   SOFTROCE_VERBOSE   1: show kernel boot messages and the guest's setup steps
#   SOFTROCE_RXE_MODULE  a build of rdma_rxe for the guest's kernel (an .ko file) to load instead
#                      of the kernel's own before the devices are added (build-rxe-module.sh
#                      makes one with rdma-shuffle's fix of on-demand READs)
#   SOFTROCE_CLOCKSOURCE  tsc: the guest's clock reads the TSC (tsc=reliable), as a server's
#                      does; default: the kernel's choice, HPET under TCG, where every clock read
#                      is an emulated device access of a microsecond or more (benchmarks)
#
# In the guest the command also finds SOFTROCE_RXE_RELOAD, a script that removes rxe0 and rxe1,
# reloads rdma_rxe (`$SOFTROCE_RXE_RELOAD MODULE.ko`, or the kernel's own without an argument) and
# brings both devices up again, e.g. to run the same thing on two builds of the module in one boot.
#
# Sourced by another script (build-rxe-module.sh), it only defines its functions.
set -euo pipefail
shopt -s inherit_errexit

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/../.." && pwd)"
readonly SCRIPT_DIR REPO_ROOT
WORK_DIR="${SOFTROCE_WORK_DIR:-$REPO_ROOT/integration/target/softroce}" # made absolute in main
readonly MEM="${SOFTROCE_MEM:-3G}"
readonly CPUS="${SOFTROCE_CPUS:-2}"
readonly TIMEOUT="${SOFTROCE_TIMEOUT:-40m}"
readonly VERBOSE="${SOFTROCE_VERBOSE:-0}"
RXE_MODULE="${SOFTROCE_RXE_MODULE:-}"
# The host's Debian release (bookworm): its kernel comes through the host's own apt lists.
# shellcheck source=/dev/null
HOST_SUITE="$( (. /etc/os-release && echo "${VERSION_CODENAME:-}") 2>/dev/null || true)"
readonly HOST_SUITE="${HOST_SUITE:-bookworm}"
readonly KERNEL_SUITE="${SOFTROCE_KERNEL:-$HOST_SUITE}"
# Fixed path of the writable share inside the guest, exported to the command as GUEST_OUT.
readonly GUEST_OUT=/mnt/softroce-out
# The guest's two addresses, rxe0's and rxe1's, in the benchmark range 198.18.0.0/15 (RFC 2544);
# the guest has no network to the outside, so they clash with nothing.
readonly RXE0_ADDR=198.18.100.1 RXE1_ADDR=198.18.100.2 RXE_PREFIX=24
# Harness failures use this status, like `env` and `timeout` do for their own failures.
readonly EXIT_HARNESS=125

# Debian packages the host needs: QEMU, initramfs tools, and rdma-core plus perftest, which the
# guest uses straight from the host's root file system.
readonly HOST_PACKAGES=(qemu-system-x86 busybox-static kmod cpio coreutils util-linux
  rdma-core ibverbs-providers ibverbs-utils rdmacm-utils perftest libibverbs-dev librdmacm-dev
  iproute2)

# Modules for the initramfs, in load order; their dependencies are added before each one.
# crc32_generic must come before rdma_rxe where it exists (6.1): that rxe asks the crypto API for
# "crc32" and without it `rdma link add` fails with "rdma_rxe: failed to add veth0". Newer kernels
# (7.3) have no such module, and their rxe calls the crc32 library (built in) directly.
readonly GUEST_MODULES=(crc32_generic rdma_rxe ib_uverbs rdma_ucm virtio_pci 9p 9pnet_virtio
  overlay veth)
readonly OPTIONAL_MODULES=" crc32_generic "

say() { echo "softroce: $*" >&2; }
die() {
  say "ERROR: $*"
  exit "$EXIT_HARNESS"
}

usage() {
  sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"
}

check_host() {
  [[ "$(id -u)" == 0 ]] || die "run as root: it installs packages and shares / with the guest"
  [[ "$(uname -m)" == x86_64 ]] || die "x86_64 hosts only (found $(uname -m))"
  command -v apt-get >/dev/null && command -v dpkg-query >/dev/null ||
    die "needs a Debian 12 host (apt-get, dpkg-query not found)"
  [[ "$CPUS" =~ ^[1-9][0-9]*$ ]] || die "SOFTROCE_CPUS=$CPUS is not a positive integer"
  [[ "$MEM" =~ ^[1-9][0-9]*[MGmg]?$ ]] || die "SOFTROCE_MEM=$MEM is not a size like 3G or 2048M"
  [[ "$TIMEOUT" =~ ^[1-9][0-9]*[smh]?$ ]] ||
    die "SOFTROCE_TIMEOUT=$TIMEOUT is not a duration like 90s, 40m or 1h"
  [[ "$KERNEL_SUITE" =~ ^[a-z]+(-[a-z]+)?$ ]] ||
    die "SOFTROCE_KERNEL=$KERNEL_SUITE is not a Debian suite like bookworm or trixie-backports"
}

is_installed() {
  [[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" == "install ok installed" ]]
}

install_packages() {
  local missing=() pkg
  for pkg in "${HOST_PACKAGES[@]}"; do
    is_installed "$pkg" || missing+=("$pkg")
  done
  if ((${#missing[@]} > 0)); then
    say "installing Debian packages: ${missing[*]}"
    apt-get update -qq >&2 || die "apt-get update failed"
    # Recommends would pull a GUI and firmware for QEMU that a headless TCG guest never uses.
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      "${missing[@]}" >&2 || die "apt-get install ${missing[*]} failed"
  fi
  local tool
  for tool in qemu-system-x86_64 busybox depmod modprobe cpio ibv_devices rdma; do
    command -v "$tool" >/dev/null || die "$tool not found although its package is installed"
  done
  # grep reads the whole list: with -q it would stop at the match, and busybox, killed by
  # SIGPIPE, would fail the pipeline under pipefail
  [[ -x /bin/busybox ]] && /bin/busybox --list | grep -x insmod >/dev/null ||
    die "/bin/busybox (busybox-static) missing or without insmod"
}

# Runs an apt tool (apt-get, apt-cache) for the kernel's suite: on the host's own lists for the
# host's suite, else on the private list that private_apt_setup made.
apt_suite() {
  local tool="$1"
  shift
  "$tool" "${PRIVATE_APT[@]}" "$@"
}

# The Debian mirror the host's apt uses for its own suite (http://deb.debian.org/debian/ here).
debian_mirror() {
  apt-get indextargets --no-release-info --format '$(BASE_URI) $(RELEASE) $(COMPONENT)' |
    awk -v suite="$HOST_SUITE" '$2 == suite && $3 == "main" { sub(/dists\/.*$/, "", $1); print $1; exit }'
}

# For a suite other than the host's: a private apt list and state in the work folder, so that
# kernel packages of another Debian release can be resolved and downloaded without touching the
# host's apt configuration or lists. Sets PRIVATE_APT (options for apt-get and apt-cache).
private_apt_setup() {
  PRIVATE_APT=()
  [[ "$KERNEL_SUITE" == "$HOST_SUITE" ]] && return 0
  local dir="$WORK_DIR/apt/$KERNEL_SUITE" mirror
  mirror="$(debian_mirror)"
  [[ -n "$mirror" ]] || die "cannot tell the host's Debian mirror (apt-get indextargets lists" \
    "no $HOST_SUITE main)"
  mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial"
  # debian-archive-keyring holds the keys of the current and the next releases
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $KERNEL_SUITE main" \
    >"$dir/sources.list"
  PRIVATE_APT=(-o "Dir::Etc::sourcelist=$dir/sources.list" -o "Dir::Etc::sourceparts=-"
    -o "Dir::State::Lists=$dir/lists" -o "Dir::Cache=$dir/cache")
}

# Prints what linux-image-amd64 of the kernel's suite depends on (linux-image-ABI), or nothing
# (and succeeds) when the lists do not know it yet.
resolve_image_package() {
  { apt_suite apt-cache depends linux-image-amd64 2>/dev/null || true; } |
    awk '$1 == "Depends:" && $2 ~ /^linux-image-/ { print $2; exit }'
}

# Prints the Debian kernel package to boot: SOFTROCE_KERNEL_PKG, else what linux-image-amd64
# depends on, else (no apt lists) the one already unpacked in the cache.
kernel_package() {
  local pkg="${SOFTROCE_KERNEL_PKG:-}"
  [[ -n "$pkg" ]] || pkg="$(resolve_image_package)"
  # Another suite's kernel that is not cached yet is resolved again on fresh private lists: the
  # archive keeps only the newest kernel of a suite, so old lists may name one it has dropped.
  if [[ -z "$pkg" ]] || [[ -z "${SOFTROCE_KERNEL_PKG:-}" && ${#PRIVATE_APT[@]} -gt 0 &&
    ! -f "$WORK_DIR/kernel/$KERNEL_SUITE/$pkg/.ready" ]]; then
    say "fetching the package list of $KERNEL_SUITE"
    apt_suite apt-get update -qq >&2 || say "apt-get update for $KERNEL_SUITE failed"
    pkg="$(resolve_image_package)"
  fi
  [[ -n "$pkg" ]] || pkg="$(ls -1 "$WORK_DIR/kernel/$KERNEL_SUITE" 2>/dev/null | tail -n 1)"
  [[ -n "$pkg" ]] || die "cannot tell which kernel package linux-image-amd64 of $KERNEL_SUITE" \
    "depends on"
  echo "$pkg"
}

# Prints the packages that hold kernel package PKG's files: PKG and, recursively, those of its
# dependencies built for the same ABI. Up to Debian 12 the image package holds kernel and
# modules; from 13 on it is a shell over linux-binary-ABI (the kernel), linux-modules-ABI and
# linux-base-ABI (modules.builtin, modules.order, config).
kernel_debs() {
  local pkg="$1" abi="${1#linux-image-}" todo seen=" " dep
  todo=("$pkg")
  while ((${#todo[@]} > 0)); do
    pkg="${todo[0]}"
    todo=("${todo[@]:1}")
    [[ "$seen" == *" $pkg "* ]] && continue
    seen+="$pkg "
    echo "$pkg"
    for dep in $(apt_suite apt-cache depends "$pkg" 2>/dev/null |
      awk '$1 == "Depends:" || $1 == "PreDepends:" { print $2 }'); do
      [[ "$dep" == linux-*-"$abi" ]] && todo+=("$dep")
    done
  done
}

# Unpacks kernel package PKG into $WORK_DIR/kernel/SUITE/PKG (once) and prints that folder, in
# which lib/modules/VERSION holds the modules (depmod'ed) and kernel_image finds the kernel.
prepare_kernel() {
  local pkg="$1" dir="$WORK_DIR/kernel/$KERNEL_SUITE/$1"
  if [[ ! -f "$dir/.ready" ]]; then
    say "preparing guest kernel $pkg from $KERNEL_SUITE (download 70-120 MB, once)"
    local tmp="$dir.tmp" debs="$WORK_DIR/debs" deb kver pkgs
    rm -rf "$tmp" "$debs"
    mkdir -p "$debs" "$tmp"
    mapfile -t pkgs < <(kernel_debs "$pkg")
    # As root into a root-only folder: apt's _apt sandbox user could not write there.
    local get=(apt-get download -q -o APT::Sandbox::User=root)
    (cd "$debs" && apt_suite "${get[@]}" "${pkgs[@]}" >&2) ||
      (apt_suite apt-get update -qq >&2 && cd "$debs" && apt_suite "${get[@]}" "${pkgs[@]}" >&2) ||
      die "apt-get download ${pkgs[*]} from $KERNEL_SUITE failed"
    for deb in "$debs"/*.deb; do
      dpkg -x "$deb" "$tmp" || die "dpkg -x $deb failed"
    done
    # Merged /usr (Debian 13 on): modules under usr/lib/modules. depmod and modprobe -d look
    # under lib/modules, as on a merged-/usr system.
    [[ -d "$tmp/usr/lib/modules" && ! -e "$tmp/lib" ]] && ln -s usr/lib "$tmp/lib"
    kver="$(ls -1 "$tmp/lib/modules" 2>/dev/null | head -n 1)"
    [[ -n "$kver" ]] && kernel_image "$tmp" "$kver" >/dev/null ||
      die "${pkgs[*]} hold no kernel and modules"
    depmod -b "$tmp" "$kver" || die "depmod for $kver failed"
    rm -rf "$dir" "$debs"
    mv "$tmp" "$dir"
    touch "$dir/.ready"
  fi
  echo "$dir"
}

# Prints the kernel image of the unpacked kernel in DIR, version KVER.
kernel_image() {
  local f
  for f in "$1/boot/vmlinuz-$2" "$1/lib/modules/$2/vmlinuz"; do
    [[ -f "$f" ]] && { echo "$f"; return 0; }
  done
  return 1
}

# Prints the module files to load, dependencies first, each once.
module_files() {
  local kdir="$1" kver="$2" mod deps
  for mod in "${GUEST_MODULES[@]}"; do
    if ! deps="$(modprobe -d "$kdir" -S "$kver" --show-depends "$mod" 2>&1)"; then
      [[ "$OPTIONAL_MODULES" == *" $mod "* ]] && continue
      die "kernel module $mod not found in $kver: $deps"
    fi
    # "insmod PATH [params]" lines are modules, "builtin NAME" lines need nothing.
    awk '$1 == "insmod" { print $2 }' <<<"$deps"
  done | awk '!seen[$0]++'
}

# PID 1 of the guest (busybox sh). Static, so the initramfs is built once; what changes per run
# (the command, the in-guest setup) comes through the control share.
guest_init() {
  cat <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
exec </dev/null >/dev/ttyS1 2>&1
# No \r before \n on the consoles: the host streams them as they are.
stty -onlcr </dev/ttyS0
stty -onlcr </dev/ttyS1
verbose=0
grep -q 'softroce.verbose=1' /proc/cmdline && verbose=1
log() { [ "$verbose" = 1 ] && echo "softroce-guest: $*"; return 0; }
fail() {
  echo "softroce-guest: ERROR: $*"
  [ -d /newroot/run/softroce/ctl ] && echo "$*" >/newroot/run/softroce/ctl/setup-error
  poweroff -f
}
log "kernel up after $(cut -d' ' -f1 /proc/uptime) s"
while read -r mod; do
  insmod "/modules/$mod" || fail "insmod $mod failed"
done </modules/order
opts=trans=virtio,version=9p2000.L,msize=262144
mkdir -p /lower /rw /newroot
mount -t 9p -o "$opts,ro,cache=loose" hostroot /lower || fail "cannot mount the host's / over 9p"
mount -t tmpfs -o mode=755 tmpfs /rw
mkdir -p /rw/upper /rw/work
mount -t overlay overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work /newroot ||
  fail "cannot mount the overlay over the host's /"
mount -t tmpfs -o mode=755,nosuid,nodev tmpfs /newroot/run
mkdir -p /newroot/run/softroce/ctl
mount -t 9p -o "$opts" ctl /newroot/run/softroce/ctl || fail "cannot mount the control share"
mount -t proc proc /newroot/proc
mount -t sysfs sysfs /newroot/sys
mount -t devtmpfs devtmpfs /newroot/dev
[ -f /newroot/run/softroce/ctl/guest-main.sh ] || fail "guest-main.sh missing in the control share"
log "root mounted after $(cut -d' ' -f1 /proc/uptime) s"
chroot /newroot /bin/bash /run/softroce/ctl/guest-main.sh </dev/null >/dev/ttyS0 2>/dev/ttyS1
echo "$?" >/newroot/run/softroce/ctl/status
sync
poweroff -f
EOF
}

# Runs in the guest, chrooted into the overlay over the host's /: finishes the mounts, sets up
# the veth pair and Soft-RoCE devices, then execs the command. Written to the control share for
# each run, next to config.sh and command.sh.
guest_main() {
  cat <<'EOF'
set -uo pipefail
ctl=/run/softroce/ctl
. "$ctl/config.sh"
if [[ "$SOFTROCE_VERBOSE" == 1 ]]; then
  PS4='+ ${EPOCHREALTIME} '
  set -x
fi
log() { [[ "$SOFTROCE_VERBOSE" == 1 ]] && echo "softroce-guest: $*" >&2; return 0; }
fail() {
  echo "softroce-guest: ERROR: $*" >&2
  echo "$*" >"$ctl/setup-error"
  exit 125
}
uptime_s() { cut -d' ' -f1 /proc/uptime; }

mkdir -p /dev/pts /dev/shm "$GUEST_OUT" "$HOST_OUT_DIR"
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /dev/pts
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /dev/shm
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,cache=mmap out "$GUEST_OUT" ||
  fail "cannot mount the out share at $GUEST_OUT"
# The same folder also at its host path, so paths computed on the host work unchanged.
mount --bind "$GUEST_OUT" "$HOST_OUT_DIR"
# The whole module tree of the guest kernel, so modprobe works for anything else (sch_netem...).
mkdir -p "/lib/modules/$GUEST_KVER"
mount --bind "$GUEST_MODULES_DIR" "/lib/modules/$GUEST_KVER" || fail "cannot bind the module tree"

hostname softroce-guest
echo "127.0.1.1 softroce-guest" >>/etc/hosts

ip link set lo up || fail "cannot bring lo up"
ip link add veth0 type veth peer name veth1 || fail "cannot create the veth pair"
ip addr add "$RXE0_ADDR/$RXE_PREFIX" dev veth0
ip addr add "$RXE1_ADDR/$RXE_PREFIX" dev veth1
ip link set veth0 up
ip link set veth1 up
# Both ends live in one network namespace, where the kernel would deliver traffic between the two
# addresses through lo: rdma_cm then puts both QPs on one device (rxe loopback), and packets that
# rxe1 addresses to rxe0 arrive on lo and are dropped (rxe only accepts packets from its netdev).
# An rxe device in another namespace gets nothing either (kernel 6.1 rxe listens in init_net
# only). So make the pair behave like two hosts: what this machine sends to one address leaves
# through the other end of the pair, and each end accepts packets from the other's (local)
# address.
for conf in all default veth0 veth1; do
  echo 1 >"/proc/sys/net/ipv4/conf/$conf/accept_local" &&
    echo 0 >"/proc/sys/net/ipv4/conf/$conf/rp_filter" ||
    fail "cannot set accept_local/rp_filter on $conf"
done
# veth hands each packet to the receiving CPU's backlog queue (default 1000 packets); one 1 MiB
# READ response alone is 1024 packets at MTU 1024, so overflowing it drops packets and rxe's
# go-back-N retries crawl or stall. A deep backlog makes the pair lossless, as RoCE fabrics are
# configured to be (PFC).
echo 131072 >/proc/sys/net/core/netdev_max_backlog || fail "cannot raise netdev_max_backlog"
# Traffic from an address to itself stays on its device, as on a host with one NIC: two processes
# bound to one address (two executors of a host), or one reading what it serves itself, connect
# through lo, and rdma_cm puts both ends on that address's device (rxe loopback).
ip route add "$RXE1_ADDR" dev veth0 src "$RXE0_ADDR" table 100 &&
  ip route add "$RXE0_ADDR" dev veth1 src "$RXE1_ADDR" table 101 &&
  ip rule add pref 8 from "$RXE0_ADDR" to "$RXE0_ADDR" lookup local &&
  ip rule add pref 9 from "$RXE1_ADDR" to "$RXE1_ADDR" lookup local &&
  ip rule add pref 10 iif lo to "$RXE1_ADDR" lookup 100 &&
  ip rule add pref 11 iif lo to "$RXE0_ADDR" lookup 101 &&
  ip rule add pref 100 lookup local &&
  ip rule del pref 0 lookup local ||
  fail "cannot set up routing across the veth pair"
. "$ctl/rxe.sh"
if [[ -n "$GUEST_RXE_MODULE" ]]; then
  # SOFTROCE_RXE_MODULE: this build of rdma_rxe instead of the kernel's (before any device exists)
  PATH="$GUEST_PATH" rmmod rdma_rxe && PATH="$GUEST_PATH" insmod "$GUEST_RXE_MODULE" ||
    fail "cannot load $GUEST_RXE_MODULE instead of the kernel's rdma_rxe"
fi
rxe_devices_up

ulimit -l unlimited || fail "cannot lift the locked-memory limit"
export PATH="$GUEST_PATH" HOME="$GUEST_HOME" GUEST_OUT SOFTROCE_GUEST=1 TERM=dumb \
  SOFTROCE_RXE0_ADDR="$RXE0_ADDR" SOFTROCE_RXE1_ADDR="$RXE1_ADDR" \
  SOFTROCE_RXE_RELOAD="$ctl/rxe-reload.sh"
[[ -n "$GUEST_JAVA_HOME" ]] && export JAVA_HOME="$GUEST_JAVA_HOME"
[[ -n "$GUEST_LANG" ]] && export LANG="$GUEST_LANG"
cd "$GUEST_CWD" || fail "cannot cd to $GUEST_CWD in the guest"
. "$ctl/command.sh"
echo "softroce-guest: rxe0 and rxe1 ACTIVE, ready $(uptime_s) s after kernel start" >&2
exec "${GUEST_COMMAND[@]}"
EOF
}

# The guest's Soft-RoCE devices, rxe0 on veth0 and rxe1 on veth1: bringing them up (guest-main.sh,
# at boot) and reloading rdma_rxe under them (rxe-reload.sh, which a command runs as
# $SOFTROCE_RXE_RELOAD). Written to the control share as rxe.sh; the caller defines fail and sets
# RXE0_ADDR and RXE1_ADDR.
guest_rxe_lib() {
  cat <<'EOF'
# rxe_devices_up: adds rxe0 and rxe1 and waits until both are ready for RDMA-CM.
rxe_devices_up() {
  rdma link add rxe0 type rxe netdev veth0 ||
    fail "rdma link add rxe0 failed (on 6.1: is crc32_generic loaded before rdma_rxe?)"
  rdma link add rxe1 type rxe netdev veth1 || fail "rdma link add rxe1 failed"

  # Ports turn ACTIVE once their netdev has carrier, which takes a moment under emulation.
  for i in $(seq 1 100); do
    grep -q ACTIVE /sys/class/infiniband/rxe0/ports/1/state 2>/dev/null &&
      grep -q ACTIVE /sys/class/infiniband/rxe1/ports/1/state 2>/dev/null && break
    sleep 0.1
  done
  for dev in rxe0 rxe1; do
    grep -q ACTIVE "/sys/class/infiniband/$dev/ports/1/state" ||
      fail "$dev port is $(cat "/sys/class/infiniband/$dev/ports/1/state"), not ACTIVE"
  done

  # RDMA-CM resolves an address through the neighbour table and the device's GID table. Both fill
  # in lazily (ARP, and a kernel work item for the GIDs) and, under a loaded host, the first
  # resolution after boot took 20-60 s. Make both ready now: permanent neighbour entries across
  # the pair, and wait for each device's IPv4 GID.
  ip neigh replace "$RXE0_ADDR" lladdr "$(cat /sys/class/net/veth0/address)" dev veth1 nud permanent &&
    ip neigh replace "$RXE1_ADDR" lladdr "$(cat /sys/class/net/veth1/address)" dev veth0 nud permanent ||
    fail "cannot add the neighbour entries across the veth pair"
  # An IPv4 address's GID is ::ffff:a.b.c.d, as sysfs prints it: 0000:...:ffff:aabb:ccdd.
  ipv4_gid() {
    local IFS=.
    set -- $1
    printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$1" "$2" "$3" "$4"
  }
  local pair dev gid i devfile node devices
  for pair in "rxe0 $RXE0_ADDR" "rxe1 $RXE1_ADDR"; do
    dev="${pair%% *}" gid="$(ipv4_gid "${pair#* }")"
    for i in $(seq 1 1200); do
      grep -qs "$gid" /sys/class/infiniband/"$dev"/ports/1/gids/* && break
      sleep 0.1
    done
    grep -qs "$gid" /sys/class/infiniband/"$dev"/ports/1/gids/* ||
      fail "$dev has no GID for its IPv4 address ${pair#* } ($gid) after 120 s"
  done

  # devtmpfs normally creates these; create any that is missing from its sysfs major:minor.
  mkdir -p /dev/infiniband
  for devfile in /sys/class/infiniband_verbs/uverbs*/dev /sys/class/misc/rdma_cm/dev; do
    [[ -f "$devfile" ]] || continue
    node="${devfile%/dev}"
    node="/dev/infiniband/${node##*/}"
    [[ -c "$node" ]] || mknod -m 666 "$node" c "$(cut -d: -f1 "$devfile")" "$(cut -d: -f2 "$devfile")"
  done
  [[ -c /dev/infiniband/rdma_cm ]] || fail "/dev/infiniband/rdma_cm missing (rdma_ucm not loaded?)"
  devices="$(ibv_devices 2>&1)" || fail "ibv_devices failed: $devices"
  grep -qw rxe0 <<<"$devices" && grep -qw rxe1 <<<"$devices" ||
    fail "ibv_devices does not list rxe0 and rxe1: $devices"
}

# rxe_reload [MODULE.ko]: removes both devices, unloads rdma_rxe, loads MODULE.ko (a build of
# rdma_rxe for this kernel) or the kernel's own rdma_rxe, and brings the devices up again.
rxe_reload() {
  local module="${1:-}" dev PATH="$GUEST_PATH:$PATH" # kmod's tools are in sbin
  for dev in rxe0 rxe1; do
    [[ -e "/sys/class/infiniband/$dev" ]] || continue
    rdma link delete "$dev" || fail "rdma link delete $dev failed"
  done
  if grep -q '^rdma_rxe ' /proc/modules; then
    rmmod rdma_rxe || fail "cannot unload rdma_rxe (still in use?)"
  fi
  if [[ -n "$module" ]]; then
    insmod "$module" || fail "cannot load $module"
  else
    modprobe rdma_rxe || fail "cannot load the kernel's rdma_rxe"
  fi
  rxe_devices_up
}
EOF
}

# SOFTROCE_RXE_RELOAD in the guest: rxe-reload.sh [MODULE.ko] (see rxe_reload).
guest_rxe_reload() {
  cat <<'EOF'
#!/bin/bash
set -uo pipefail
ctl=/run/softroce/ctl
. "$ctl/config.sh"
fail() {
  echo "rxe-reload: ERROR: $*" >&2
  exit 1
}
. "$ctl/rxe.sh"
rxe_reload "$@"
module="${1:-the rdma_rxe of the kernel}"
echo "rxe-reload: rxe0 and rxe1 ACTIVE with $module" >&2
EOF
}

# SOFTROCE_RXE_MODULE, when set: an rdma_rxe module built for kernel KVER (its vermagic names it).
check_rxe_module() {
  [[ -n "$RXE_MODULE" ]] || return 0
  [[ -f "$RXE_MODULE" ]] || die "SOFTROCE_RXE_MODULE=$RXE_MODULE: no such file"
  RXE_MODULE="$(readlink -f "$RXE_MODULE")"
  local name magic
  name="$(modinfo -F name "$RXE_MODULE" 2>/dev/null || true)"
  magic="$(modinfo -F vermagic "$RXE_MODULE" 2>/dev/null || true)"
  [[ "$name" == rdma_rxe ]] || die "SOFTROCE_RXE_MODULE=$RXE_MODULE is not rdma_rxe (name: ${name:-none})"
  [[ "$magic" == "$1 "* ]] ||
    die "SOFTROCE_RXE_MODULE=$RXE_MODULE was built for ${magic%% *}, the guest boots $1"
}

# Builds the initramfs (busybox, modules, init) once per kernel, module list and init text.
prepare_initramfs() {
  local kdir="$1" kver="$2" files key image stage f i=0
  files="$(module_files "$kdir" "$kver")"
  key="$( (echo "$kver"; echo "$files"; guest_init; sha256sum /bin/busybox) | sha256sum | cut -c1-12)"
  image="$WORK_DIR/initramfs-$kver-$key.cpio"
  if [[ ! -f "$image" ]]; then
    say "building initramfs for $kver"
    stage="$WORK_DIR/initramfs.tmp"
    rm -rf "$stage"
    mkdir -p "$stage"/{bin,dev,proc,sys,modules}
    cp /bin/busybox "$stage/bin/busybox"
    guest_init >"$stage/init"
    chmod 755 "$stage/init"
    # Without /dev/console the kernel starts init with no stdin/stdout.
    mknod -m 600 "$stage/dev/console" c 5 1
    while read -r f; do
      i=$((i + 1))
      local name
      name="$(printf '%02d-%s' "$i" "$(basename "$f")")"
      case "$f" in
      *.ko) cp "$f" "$stage/modules/$name" ;;
      *.ko.xz) xz -dc "$f" >"$stage/modules/${name%.xz}"; name="${name%.xz}" ;;
      *.ko.zst) zstd -qdc "$f" >"$stage/modules/${name%.zst}"; name="${name%.zst}" ;;
      *) die "unknown module format: $f" ;;
      esac
      echo "$name" >>"$stage/modules/order"
    done <<<"$files"
    (cd "$stage" && find . -print0 | cpio --null -o -H newc --owner=0:0 --quiet) >"$image.tmp" ||
      die "cpio failed"
    rm -f "$WORK_DIR/initramfs-$kver-"*.cpio
    mv "$image.tmp" "$image"
    rm -rf "$stage"
  fi
  echo "$image"
}

# The host's PATH, plus the usual system folders it lacks (a root shell may not have sbin).
guest_path() {
  local path="${PATH:-}" dir
  for dir in /usr/local/sbin /usr/local/bin /usr/sbin /usr/bin /sbin /bin; do
    [[ ":$path:" == *":$dir:"* ]] || path="${path:+$path:}$dir"
  done
  echo "$path"
}

# Writes the per-run files of the control share.
write_control() {
  local ctl="$1" kdir="$2" kver="$3" java_home="${JAVA_HOME:-}" java
  if [[ -z "$java_home" ]] && java="$(command -v java)"; then
    java_home="$(dirname "$(dirname "$(readlink -f "$java")")")"
  fi
  guest_main >"$ctl/guest-main.sh"
  guest_rxe_lib >"$ctl/rxe.sh"
  guest_rxe_reload >"$ctl/rxe-reload.sh"
  chmod 755 "$ctl/rxe-reload.sh"
  {
    printf 'SOFTROCE_VERBOSE=%q\n' "$VERBOSE"
    printf 'GUEST_OUT=%q\n' "$GUEST_OUT"
    printf 'RXE0_ADDR=%q\nRXE1_ADDR=%q\nRXE_PREFIX=%q\n' "$RXE0_ADDR" "$RXE1_ADDR" "$RXE_PREFIX"
    printf 'HOST_OUT_DIR=%q\n' "$OUT_DIR"
    printf 'GUEST_KVER=%q\n' "$kver"
    printf 'GUEST_MODULES_DIR=%q\n' "$(readlink -f "$kdir/lib/modules/$kver")"
    printf 'GUEST_CWD=%q\n' "$PWD"
    printf 'GUEST_PATH=%q\n' "$(guest_path)"
    printf 'GUEST_HOME=%q\n' "${HOME:-/root}"
    printf 'GUEST_JAVA_HOME=%q\n' "$java_home"
    printf 'GUEST_LANG=%q\n' "${LANG:-C.UTF-8}"
    printf 'GUEST_RXE_MODULE=%q\n' "${RXE_MODULE:-}"
  } >"$ctl/config.sh"
  {
    printf 'GUEST_COMMAND=('
    printf ' %q' "${COMMAND[@]}"
    printf ' )\n'
  } >"$ctl/command.sh"
}

QEMU_JOB=""
CTL_DIR=""
ERR_PUMP=""
INTERRUPTED=0

# On any exit: a QEMU still running (we are exiting early) is stopped, then the control share
# is removed.
cleanup() {
  if [[ -n "$QEMU_JOB" ]]; then
    local pid
    pid="$(cat "$CTL_DIR/qemu.pid" 2>/dev/null || true)"
    kill -TERM "$QEMU_JOB" 2>/dev/null || true
    sleep 1
    # Only the QEMU of this run: its command line names our control folder.
    if [[ -n "$pid" ]] && grep -qF "$CTL_DIR" "/proc/$pid/cmdline" 2>/dev/null; then
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  [[ -n "$ERR_PUMP" ]] && kill "$ERR_PUMP" 2>/dev/null
  [[ -n "$CTL_DIR" ]] && rm -rf "$CTL_DIR"
  return 0
}

on_signal() {
  INTERRUPTED=1
  say "interrupted: stopping the guest"
  [[ -n "$QEMU_JOB" ]] && kill -TERM "$QEMU_JOB" 2>/dev/null || true
}

# Boots the guest and waits for it; sets GUEST_STATUS.
boot_guest() {
  local kernel="$1" initrd="$2" append
  # Serial ports: ttyS0 is the command's stdout, ttyS1 its stderr and the guest's harness
  # messages, ttyS2 the kernel console, kept in a file (shown when the guest dies, and on our
  # stderr too with SOFTROCE_VERBOSE=1).
  # panic=-1 with -no-reboot: a guest kernel panic ends QEMU at once instead of waiting for
  # the timeout. mitigations=off: no page-table switch per system call, which TCG pays dearly.
  append="panic=-1 mitigations=off"
  # TCG's TSC is one counter for all vCPUs, but the kernel's boot check finds it unsynchronised
  # and falls back to HPET, an emulated device read on every clock_gettime
  [[ "${SOFTROCE_CLOCKSOURCE:-}" == tsc ]] && append+=" tsc=reliable clocksource=tsc"
  if [[ "$VERBOSE" == 1 ]]; then
    append+=" console=ttyS1 softroce.verbose=1"
  else
    append+=" console=ttyS2"
  fi
  # The guest's stderr goes through a FIFO to ours, so this works whatever our stderr is
  # (terminal, file, pipe, socket).
  mkfifo "$CTL_DIR/stderr.fifo"
  cat "$CTL_DIR/stderr.fifo" >&2 &
  ERR_PUMP=$!
  # One TCG thread for both vCPUs. With multi-threaded TCG, guest JVMs died at random of what
  # looked like corrupted memory (SIGSEGV at the entry of JIT-compiled methods, C2 internal
  # errors), in one run 3 s after start, before any RDMA: 4 crashes in 4 runs, then 5 clean runs
  # of 5 with one thread (QEMU 7.2, Debian 12). Slower, but the guest's processes run correctly.
  local qemu=(qemu-system-x86_64 -name softroce -machine pc -accel "tcg,thread=single" -cpu max
    -smp "$CPUS" -m "$MEM" -nodefaults -no-user-config -display none -vga none -monitor none
    -nic none -no-reboot -pidfile "$CTL_DIR/qemu.pid"
    -kernel "$kernel" -initrd "$initrd" -append "$append"
    -chardev "stdio,id=gout,signal=off" -serial chardev:gout
    -chardev "file,id=gerr,path=$CTL_DIR/stderr.fifo" -serial chardev:gerr
    -chardev "file,id=gcon,path=$CTL_DIR/console.log" -serial chardev:gcon
    -virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"
    -virtfs "local,path=$OUT_DIR,mount_tag=out,security_model=none"
    -virtfs "local,path=$CTL_DIR,mount_tag=ctl,security_model=none")
  # In the background so that a signal reaches our trap at once; `timeout` runs in its own
  # process group and would not see a Ctrl-C itself.
  timeout --kill-after=10s "$TIMEOUT" "${qemu[@]}" </dev/null &
  QEMU_JOB=$!
  local rc
  while :; do
    rc=0
    wait "$QEMU_JOB" || rc=$?
    kill -0 "$QEMU_JOB" 2>/dev/null || break
  done
  QEMU_JOB=""
  # Opening the FIFO read-write never blocks: this frees the pump if QEMU died before opening
  # its end, and the pump then drains what is left and ends.
  exec 7<>"$CTL_DIR/stderr.fifo"
  exec 7>&-
  wait "$ERR_PUMP" 2>/dev/null || true
  ERR_PUMP=""
  cp "$CTL_DIR/console.log" "$WORK_DIR/console.log" 2>/dev/null || true
  if ((INTERRUPTED)); then
    exit 130
  fi
  if ((rc == 124)); then
    say "TIMEOUT: the guest did not finish within SOFTROCE_TIMEOUT=$TIMEOUT (boot included);" \
      "QEMU was killed"
    exit 124
  fi
  if [[ -f "$CTL_DIR/setup-error" ]]; then
    die "guest setup failed: $(cat "$CTL_DIR/setup-error")"
  fi
  if [[ ! -s "$CTL_DIR/status" ]]; then
    [[ "$VERBOSE" == 1 ]] || tail -n 25 "$WORK_DIR/console.log" >&2 2>/dev/null || true
    die "the guest stopped without reporting an exit status (QEMU exit status $rc);" \
      "kernel messages in $WORK_DIR/console.log"
  fi
  GUEST_STATUS="$(cat "$CTL_DIR/status")"
}

main() {
  if [[ $# -gt 0 && ( "$1" == -h || "$1" == --help ) ]]; then
    usage
    exit 0
  fi
  [[ $# -gt 0 && "$1" == -- ]] && shift
  (($# > 0)) || die "no command given; usage: $0 [--] COMMAND [ARG...]"
  COMMAND=("$@")

  check_host
  install_packages
  local t0=$SECONDS pkg kdir kver initrd
  mkdir -p "$WORK_DIR"
  WORK_DIR="$(cd "$WORK_DIR" && pwd)"
  # One preparation at a time per work folder; the boot itself needs no lock.
  exec 9>"$WORK_DIR/.lock"
  flock 9
  private_apt_setup
  pkg="$(kernel_package)"
  kdir="$(prepare_kernel "$pkg")"
  kver="$(ls -1 "$kdir/lib/modules" | head -n 1)"
  initrd="$(prepare_initramfs "$kdir" "$kver")"
  flock -u 9
  check_rxe_module "$kver"

  if [[ -n "${SOFTROCE_OUT_DIR:-}" ]]; then
    OUT_DIR="$SOFTROCE_OUT_DIR"
    mkdir -p "$OUT_DIR"
  else
    # The default out folder is emptied for each run, so two runs must not share it.
    exec 8>"$WORK_DIR/out.lock"
    flock -n 8 || die "another run is using $WORK_DIR/out; wait, or set SOFTROCE_OUT_DIR"
    OUT_DIR="$WORK_DIR/out"
    rm -rf "$OUT_DIR"
    mkdir -p "$OUT_DIR"
  fi
  OUT_DIR="$(cd "$OUT_DIR" && pwd)"
  CTL_DIR="$(mktemp -d "$WORK_DIR/run.XXXXXX")"
  trap cleanup EXIT
  trap on_signal INT TERM HUP
  write_control "$CTL_DIR" "$kdir" "$kver"
  # Under TCG every guest timing scales with what else the host runs: say how busy it is.
  say "booting $kver${RXE_MODULE:+ with rdma_rxe from $RXE_MODULE} (TCG, $CPUS vCPUs, $MEM;" \
    "host load $(cut -d' ' -f1 /proc/loadavg) on $(nproc) cores) for: ${COMMAND[*]}"
  local t1=$SECONDS
  boot_guest "$(kernel_image "$kdir" "$kver")" "$initrd"
  say "guest finished with status $GUEST_STATUS after $((SECONDS - t1)) s" \
    "($((SECONDS - t0)) s in all); results in $OUT_DIR"
  exit "$GUEST_STATUS"
}

[[ "${BASH_SOURCE[0]}" != "$0" ]] || main "$@"
