#!/usr/bin/env bash
# The anchors, built from Debian bookworm's own source packages at bench
# time (nothing of them is committed): liburcu's tests/benchmark/test_rwlock
# and test_mutex, and Concurrency Kit's regressions/ck_rwlock/benchmark and
# regressions/ck_spinlock/benchmark programs. apt-get source runs against a
# cache of its own; the system's apt configuration is not touched.
#
#   bench/anchors/build.sh [DIR]        (default build/anchors)
#
# Prints where each program is. Exit 77 when a source cannot be had (no
# network), naming it.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(mkdir -p "${1:-$here/build/anchors}" && cd "${1:-$here/build/anchors}" && pwd)
cd "$dir"

apt_opts=(-qq -o Dir::Etc::SourceList="$dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
          -o Dir::State::Lists="$dir/lists" -o Dir::Cache="$dir/apt" -o Debug::NoLocking=1)
fetch() {  # fetch PACKAGE: its orig tarball into $dir, once
  ls "$dir/$1"_*.orig.tar.* >/dev/null 2>&1 && return 0
  echo "deb-src http://deb.debian.org/debian bookworm main" >"$dir/sources.list"
  mkdir -p "$dir/lists/partial" "$dir/apt/archives/partial"
  if ! { apt-get "${apt_opts[@]}" update && apt-get "${apt_opts[@]}" source --download-only "$1"; } \
       >"$dir/fetch-$1.log" 2>&1; then
    echo "anchors: cannot fetch Debian's $1 source (see $dir/fetch-$1.log)"
    exit 77
  fi
}

fetch liburcu
urcu=$(find "$dir" -maxdepth 1 -type d -name 'userspace-rcu-*' | sort | tail -1)
if [ -z "$urcu" ]; then
  tar -xjf "$(ls "$dir"/liburcu_*.orig.tar.bz2 | tail -1)" -C "$dir"
  urcu=$(find "$dir" -maxdepth 1 -type d -name 'userspace-rcu-*' | sort | tail -1)
fi
if [ ! -x "$urcu/tests/benchmark/.libs/test_rwlock" ] && [ ! -x "$urcu/tests/benchmark/test_rwlock" ]; then
  (cd "$urcu" && ./configure -q && make -s -j"$(nproc)" -C src && make -s -C tests/common &&
   make -s -C tests/benchmark test_rwlock test_mutex) >"$dir/build-liburcu.log" 2>&1 ||
    { echo "anchors: liburcu did not build (see $dir/build-liburcu.log)"; exit 1; }
fi

fetch ck
ck=$(find "$dir" -maxdepth 1 -type d -name 'ck-*' | sort | tail -1)
if [ -z "$ck" ]; then
  tar -xJf "$(ls "$dir"/ck_*.orig.tar.xz | tail -1)" -C "$dir"
  ck=$(find "$dir" -maxdepth 1 -type d -name 'ck-*' | sort | tail -1)
fi
if [ ! -x "$ck/regressions/ck_rwlock/benchmark/throughput" ]; then
  (cd "$ck" && ./configure && make -s -C regressions/ck_rwlock/benchmark &&
   make -s -C regressions/ck_spinlock/benchmark) >"$dir/build-ck.log" 2>&1 ||
    { echo "anchors: ck did not build (see $dir/build-ck.log)"; exit 1; }
fi

# liburcu's programs are libtool wrappers: the binaries are under .libs
# when it linked them shared.
for p in test_rwlock test_mutex; do
  b=$urcu/tests/benchmark/.libs/$p
  [ -x "$b" ] || b=$urcu/tests/benchmark/$p
  echo "anchor $p $b"
done
echo "anchor ck_rwlock $ck/regressions/ck_rwlock/benchmark/throughput"
for l in ticket mcs clh fas cas; do
  echo "anchor ck_$l $ck/regressions/ck_spinlock/benchmark/ck_$l.THROUGHPUT"
done
