#!/usr/bin/env bash
# The kernel's own locking code, unchanged, as rwstress plugins, from every
# kernel series Debian serves: for each series (6.1 6.12 6.18 7.2 by
# default) fetches the newest linux source package of it that the archive
# hands out (apt-get source, into a cache of its own: the system's apt
# configuration is not touched; the tarball is kept between runs), takes
# kernel/locking/ out of it, and compiles at -Wall -Werror against the
# kernel-compat layer, with the glue files in tests/kernel/:
#   semaphore.c; qrwlock.c with qspinlock.c;
#   rwsem.c without optimistic spinning, and with CONFIG_RWSEM_SPIN_ON_OWNER
#   and osq_lock.c (as x86 distributions build it).
# Then runs them: a main run, then validate. A file that does not compile
# is one line naming the tree, the file and the compiler's first error, and
# the script fails. Nothing of the kernel is committed to this repository.
#
#   scripts/kernel-upstream.sh RWSTRESS_BIN CFLAGS...
#
# CFLAGS: how to find the layer, e.g. "-Iinclude -Iinclude/rwstress/kernel-compat"
# or "$(pkg-config --cflags rwstress-kernel)". Environment:
#   RWSTRESS_KERNEL_CACHE   where the sources are kept (default build/kernel-src)
#   RWSTRESS_KERNEL_SERIES  the series to test (default "6.1 6.12 6.18 7.2")
#   RWSTRESS_LINUX_SRC      one kernel tree to use instead of fetching any
#   RWSTRESS_VALIDATE_TIME  validate's --time per lock (default 10s; none: no validate)
# Exit 77 (a skipped test) when no source can be had (no network).
set -euo pipefail
bin=$(readlink -f "$1")
shift
cflags=("$@")
here=$(cd "$(dirname "$0")/.." && pwd)
cache=${RWSTRESS_KERNEL_CACHE:-$here/build/kernel-src}
mkdir -p "$cache"
validate_time=${RWSTRESS_VALIDATE_TIME:-10s}

apt_opts=(-qq -o Dir::Etc::SourceList="$cache/sources.list" -o Dir::Etc::SourceParts=/dev/null
          -o Dir::State::Lists="$cache/lists" -o Dir::Cache="$cache/apt" -o Debug::NoLocking=1)

# The Sources index of every suite that serves a current kernel.
index_ready=
update_index() {
  [ -n "$index_ready" ] && return 0
  local suite
  : >"$cache/sources.list"
  for suite in bookworm bookworm-backports trixie trixie-backports sid; do
    echo "deb-src http://deb.debian.org/debian $suite main" >>"$cache/sources.list"
  done
  mkdir -p "$cache/lists/partial" "$cache/apt/archives/partial"
  apt-get "${apt_opts[@]}" update >>"$cache/fetch.log" 2>&1 || return 1
  index_ready=1
}

# Prints the tree of SERIES (e.g. 6.12) in the cache, fetching it first if
# need be: the newest version of the series whose upstream tarball the
# archive serves (an index may list versions its pool no longer holds).
cached_tree() {
  local have
  have=$(find "$cache" -maxdepth 1 -type d -name "linux-$1.*" | sort -V | tail -1)
  [ -n "$have" ] && [ -f "$have/kernel/locking/rwsem.c" ] && [ -f "$have/Makefile" ] &&
    echo "$have"
}
tree_of_series() {
  local series=$1 version tarball top
  cached_tree "$series" && return 0
  # Upstream versions, newest first; a tarball already in the cache first.
  for version in $(ls "$cache" | sed -n "s/^linux_\($series\.[0-9]*\)\.orig\.tar\.xz$/\1/p" |
                   sort -Vr) \
                 $(apt-cache "${apt_opts[@]}" showsrc linux 2>/dev/null | sed -n 's/^Version: //p' |
                   grep "^$series\.[0-9]*-" | sed 's/-[^-]*$//' | sort -Vru | head -16); do
    tarball=$cache/linux_$version.orig.tar.xz
    if [ ! -f "$tarball" ]; then
      # The .dsc may be gone where the tarball is not: the tarball is enough.
      (cd "$cache" && apt-get "${apt_opts[@]}" source --download-only "linux=$(
        apt-cache "${apt_opts[@]}" showsrc linux 2>/dev/null | sed -n 's/^Version: //p' |
        grep -m1 "^$version-")") >>"$cache/fetch.log" 2>&1 || true
      [ -f "$tarball" ] || continue
    fi
    top=linux-$version
    tar -xJf "$tarball" -C "$cache" "$top/Makefile" --wildcards "$top/kernel/locking/*"
    rm -f "$cache"/linux_*.debian.tar.xz "$cache"/linux_*.dsc
    echo "$cache/$top"
    return 0
  done
  return 1
}

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
failed=0

# Compiles FILES... into OUT.so at -Werror; on failure, one line.
build() {
  local tree=$1 so=$2 what=$3
  shift 3
  if ! cc -shared -fPIC -O2 -Wall -Werror "${cflags[@]}" "$@" -o "$so" 2>"$out/cc.log"; then
    echo "kernel-upstream: $(basename "$tree"): $what does not compile against the layer:" \
         "$(grep -m1 -E 'error|undefined' "$out/cc.log" || head -1 "$out/cc.log")"
    return 1
  fi
}

check_tree() {
  local tree=$1 name locking major minor sub code
  name=$(basename "$tree")
  locking=$tree/kernel/locking
  major=$(sed -n 's/^VERSION = //p' "$tree/Makefile")
  minor=$(sed -n 's/^PATCHLEVEL = //p' "$tree/Makefile")
  sub=$(sed -n 's/^SUBLEVEL = //p' "$tree/Makefile")
  code=$(( (major << 16) + (minor << 8) + (sub > 255 ? 255 : sub) ))
  local v=(-DRWSTRESS_LINUX_VERSION_CODE=$code)
  echo "kernel-upstream: $locking ($name)"
  local ok=1
  build "$tree" "$out/semaphore.so" semaphore.c "${v[@]}" "$locking/semaphore.c" \
    "$here/tests/kernel/upstream_semaphore.c" || ok=0
  build "$tree" "$out/qrwlock.so" "qrwlock.c + qspinlock.c" "${v[@]}" "$locking/qrwlock.c" \
    "$locking/qspinlock.c" "$here/tests/kernel/upstream_qrwlock.c" || ok=0
  build "$tree" "$out/rwsem.so" rwsem.c "${v[@]}" "$locking/rwsem.c" \
    "$here/tests/kernel/upstream_rwsem.c" || ok=0
  build "$tree" "$out/rwsem-spin.so" "rwsem.c + osq_lock.c (CONFIG_RWSEM_SPIN_ON_OWNER)" \
    "${v[@]}" -DCONFIG_RWSEM_SPIN_ON_OWNER=1 "$locking/rwsem.c" "$locking/osq_lock.c" \
    "$here/tests/kernel/upstream_rwsem.c" || ok=0
  if [ $ok = 0 ]; then
    failed=1
    return
  fi
  local plugins=(--plugin "$out/semaphore.so" --plugin "$out/qrwlock.so" --plugin "$out/rwsem.so"
                 --plugin "$out/rwsem-spin.so")
  local locks=upstream-semaphore,upstream-qrwlock,upstream-qspinlock,upstream-rwsem,upstream-rwsem-spin
  if ! "$bin" "${plugins[@]}" --lock "$locks" --readers 4 --writers 2 --duration 1s; then
    echo "kernel-upstream: $name: the main run did not pass"
    failed=1
    return
  fi
  if [ "$validate_time" != none ] &&
     ! "$bin" "${plugins[@]}" validate --lock "$locks" --time "$validate_time"; then
    echo "kernel-upstream: $name: validate did not pass"
    failed=1
    return
  fi
  echo "kernel-upstream: $name: semaphore.c, qrwlock.c, qspinlock.c and rwsem.c (spinning on and off) compiled unchanged and passed"
}

if [ -n "${RWSTRESS_LINUX_SRC:-}" ]; then
  check_tree "$(cd "$RWSTRESS_LINUX_SRC" && pwd)"
else
  fetched=0
  for series in ${RWSTRESS_KERNEL_SERIES:-6.1 6.12 6.18 7.2}; do
    cached_tree "$series" >/dev/null || update_index || true
    if tree=$(tree_of_series "$series"); then
      fetched=1
      check_tree "$tree"
    else
      echo "kernel-upstream: no linux $series source could be fetched (see $cache/fetch.log)"
      [ -n "$index_ready" ] && failed=1
    fi
  done
  if [ $fetched = 0 ]; then
    echo "kernel-upstream: SKIPPED: cannot fetch Debian's linux source (see $cache/fetch.log)"
    exit 77
  fi
fi
exit $failed
