#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds Soft-RoCE's kernel module, rdma_rxe, for the guest kernel of a Debian suite, from Debian's
# own packages, with rdma-shuffle's fix of on-demand READs (rxe-odp-copy-offset.patch beside this
# script), as an out-of-tree module; prints the module's path on stdout.
#
#   integration/softroce/build-rxe-module.sh [SUITE]      (default: trixie-backports)
#
# The kernel is the one run-in-guest.sh boots for SOFTROCE_KERNEL=SUITE (linux-image-amd64 of that
# suite, or SOFTROCE_KERNEL_PKG). Its sources are that suite's linux-source package of exactly the
# kernel's version (Debian's patches applied); the fix is applied to its
# drivers/infiniband/sw/rxe, and the module is built against the kernel's own linux-headers
# package by the compiler those headers ask for, in a build root of the suite's packages that
# mmdebstrap unpacks (no package is installed on this host but mmdebstrap itself; the host's apt
# configuration is never changed). Nothing built is committed: each run builds it from the
# packages, or reuses the build in the work folder for the same kernel and patch.
#
# Output: SOFTROCE_WORK_DIR/rxe-module/KERNEL-PATCHHASH/rdma_rxe.ko (debug symbols stripped) and
# build.txt beside it (packages, versions, patch). Takes 1-2 minutes the first time (about 250 MB
# of packages). Exit status 125 when it cannot build (message on stderr). Needs root (chroot).
set -euo pipefail
suite="${1:-trixie-backports}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
patch_file="$here/rxe-odp-copy-offset.patch"
export SOFTROCE_KERNEL="$suite"
# run-in-guest.sh's functions: the suite's private apt list and its kernel package
# shellcheck source=run-in-guest.sh
. "$here/run-in-guest.sh"
set +o errtrace

build_say() { echo "build-rxe-module: $*" >&2; }

main_build() {
  check_host
  install_packages
  mkdir -p "$WORK_DIR"
  WORK_DIR="$(cd "$WORK_DIR" && pwd)"
  exec 9>"$WORK_DIR/.rxe-module.lock"
  flock 9
  private_apt_setup
  local image abi version series hash dir
  image="$(kernel_package)"
  abi="${image#linux-image-}"
  version="$(apt_suite apt-cache show "$image" 2>/dev/null | awk '$1 == "Version:" { print $2; exit }')"
  [[ -n "$version" ]] || die "cannot tell the version of $image in $suite"
  series="$(sed -E 's/^([0-9]+\.[0-9]+).*/\1/' <<<"$abi")"
  hash="$(sha256sum "$patch_file" | cut -c1-12)"
  dir="$WORK_DIR/rxe-module/$abi-$hash"
  if [[ -f "$dir/rdma_rxe.ko" ]]; then
    echo "$dir/rdma_rxe.ko"
    return 0
  fi
  command -v mmdebstrap >/dev/null || {
    build_say "installing mmdebstrap (Debian's tool that unpacks the build root)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mmdebstrap \
      patch xz-utils >&2 || die "apt-get install mmdebstrap failed"
  }
  local work="$WORK_DIR/rxe-module/build.tmp" mirror base
  rm -rf "$work"
  mkdir -p "$work/src"
  mirror="$(debian_mirror)"
  base="${suite%-backports}"
  local lists=("deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $base main")
  [[ "$base" == "$suite" ]] ||
    lists+=("deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $suite main")

  build_say "sources: linux-source-$series $version from $suite"
  (cd "$work/src" && apt_suite apt-get download -q -o APT::Sandbox::User=root \
    "linux-source-$series=$version" >&2) || die "apt-get download linux-source-$series=$version failed"
  local deb tarball
  deb="$(ls "$work/src"/linux-source-*.deb)"
  tarball="$(dpkg-deb -c "$deb" | awk '{ print $NF }' | grep -E '/usr/src/linux-source-.*\.tar\.xz$' | head -n 1)"
  [[ -n "$tarball" ]] || die "$deb holds no source tarball"
  dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$work/src" "$tarball"
  tar -xJf "$work/src/$tarball" -C "$work/src" --wildcards '*/drivers/infiniband/sw/rxe/*'
  local tree
  tree="$(dirname "$(dirname "$(dirname "$(dirname "$(ls -d "$work"/src/*/drivers/infiniband/sw/rxe)")")")")"
  (cd "$tree" && patch -p1 --forward --no-backup-if-mismatch <"$patch_file" >&2) ||
    die "$(basename "$patch_file") does not apply to linux-source-$series $version"

  build_say "build root: linux-headers-$abi and its compiler from $suite (mmdebstrap)"
  # extract: unpacks the packages without running their scripts, enough to run a compiler in a
  # chroot; awk is an alternative that no script set up, so it is linked by hand
  mmdebstrap --quiet --variant=extract \
    --include="linux-headers-$abi,binutils,make,bash,dash,coreutils,sed,grep,mawk,findutils,xz-utils" \
    "$base" "$work/root" "${lists[@]}" >&2 || die "mmdebstrap of $base failed"
  ln -sf mawk "$work/root/usr/bin/awk"
  mkdir -p "$work/root/build"
  cp -r "$tree/drivers/infiniband/sw/rxe" "$work/root/build/rxe"
  mount --bind /proc "$work/root/proc" # objtool reads its limits there
  local status=0
  chroot "$work/root" /usr/bin/make -s -j "$(nproc)" -C "/usr/src/linux-headers-$abi" \
    M=/build/rxe modules >&2 || status=$?
  umount "$work/root/proc"
  ((status == 0)) || die "building rdma_rxe for $abi failed"
  local ko="$work/root/build/rxe/rdma_rxe.ko" magic
  magic="$(modinfo -F vermagic "$ko")"
  [[ "$magic" == "$abi "* ]] || die "built for ${magic%% *}, not $abi"
  mkdir -p "$dir"
  strip --strip-debug -o "$dir/rdma_rxe.ko.tmp" "$ko"
  {
    echo "rdma_rxe for $abi ($image $version, $suite) with $(basename "$patch_file") (sha256 $hash...)"
    echo "sources: linux-source-$series $version; headers and compiler:"
    echo "  linux-headers-$abi $version (its kbuild and config)"
    echo "  compiler: $(chroot "$work/root" sh -c 'ls /usr/bin/x86_64-linux-gnu-gcc-[0-9]* | head -n 1' |
      xargs -I{} chroot "$work/root" {} --version | head -n 1)"
    echo "vermagic: $magic"
  } >"$dir/build.txt"
  mv "$dir/rdma_rxe.ko.tmp" "$dir/rdma_rxe.ko"
  rm -rf "$work"
  build_say "built $dir/rdma_rxe.ko"
  echo "$dir/rdma_rxe.ko"
}

main_build
