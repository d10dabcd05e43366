#!/usr/bin/env bash
# The kernel's own locking code, unchanged, as rwstress plugins: fetches
# Debian bookworm's linux source package (apt-get source, into a cache of
# its own: the system's apt configuration is not touched), takes
# kernel/locking/ out of it, compiles semaphore.c, and qrwlock.c with
# qspinlock.c, against the kernel-compat layer with the glue files in
# tests/kernel/, and runs them: a main run, then validate. Nothing of the
# kernel is committed to this repository.
#
#   scripts/kernel-upstream.sh RWSTRESS_BIN CFLAGS...
#
# CFLAGS: how to find the layer, e.g. "-Iinclude -Iinclude/rwstress/kernel-compat"
# or "$(pkg-config --cflags rwstress-kernel)". Environment:
#   RWSTRESS_KERNEL_CACHE   where the source is kept (default build/kernel-src)
#   RWSTRESS_LINUX_SRC      a kernel tree to use instead of fetching one
#   RWSTRESS_VALIDATE_TIME  validate's --time per lock (default 30s; none: no validate)
# Exit 77 (a skipped test) when no source can be had (no network).
set -euo pipefail
bin=$(readlink -f "$1")
shift
cflags=("$@")
here=$(cd "$(dirname "$0")/.." && pwd)
cache=${RWSTRESS_KERNEL_CACHE:-$here/build/kernel-src}
mkdir -p "$cache"

src=${RWSTRESS_LINUX_SRC:-}
if [ -z "$src" ]; then
  src=$(find "$cache" -maxdepth 1 -type d -name 'linux-*' | sort | tail -1)
  if [ -z "$src" ] || [ ! -f "$src/kernel/locking/semaphore.c" ]; then
    apt_opts=(-qq -o Dir::Etc::SourceList="$cache/sources.list" -o Dir::Etc::SourceParts=/dev/null
              -o Dir::State::Lists="$cache/lists" -o Dir::Cache="$cache/apt" -o Debug::NoLocking=1)
    echo "deb-src http://deb.debian.org/debian bookworm main" >"$cache/sources.list"
    mkdir -p "$cache/lists/partial" "$cache/apt/archives/partial"
    if ! (cd "$cache" && apt-get "${apt_opts[@]}" update && \
          apt-get "${apt_opts[@]}" source --download-only linux) >"$cache/fetch.log" 2>&1; then
      echo "kernel-upstream: SKIPPED: cannot fetch Debian's linux source (see $cache/fetch.log)"
      exit 77
    fi
    tarball=$(ls "$cache"/linux_*.orig.tar.xz | sort | tail -1)
    version=${tarball##*/linux_}
    top=linux-${version%.orig.tar.xz}
    tar -xJf "$tarball" -C "$cache" --wildcards "$top/kernel/locking/*"
    rm -f "$cache"/linux_*.orig.tar.xz "$cache"/linux_*.debian.tar.xz "$cache"/linux_*.dsc
    src=$cache/$top
  fi
fi
locking=$src/kernel/locking
echo "kernel-upstream: $locking ($(basename "$src"))"

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cc -shared -fPIC -O2 "${cflags[@]}" "$locking/semaphore.c" "$here/tests/kernel/upstream_semaphore.c" \
  -o "$out/upstream_semaphore.so"
cc -shared -fPIC -O2 "${cflags[@]}" "$locking/qrwlock.c" "$locking/qspinlock.c" \
  "$here/tests/kernel/upstream_qrwlock.c" -o "$out/upstream_qrwlock.so"

plugins=(--plugin "$out/upstream_semaphore.so" --plugin "$out/upstream_qrwlock.so")
locks=upstream-semaphore,upstream-qrwlock,upstream-qspinlock
"$bin" "${plugins[@]}" --lock "$locks" --readers 4 --writers 2 --duration 1s
if [ "${RWSTRESS_VALIDATE_TIME:-}" != none ]; then
  "$bin" "${plugins[@]}" validate --lock "$locks" --time "${RWSTRESS_VALIDATE_TIME:-30s}"
fi
echo "kernel-upstream: semaphore.c, qrwlock.c and qspinlock.c from $(basename "$src") compiled unchanged and passed"
