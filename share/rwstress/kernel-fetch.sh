#!/usr/bin/env bash
# Prints the path of a kernel tree of VERSION (a series, 6.18, or an exact
# release, 6.18.15) holding kernel/locking/ and the Makefile, from CACHE or
# fetched into it from Debian's archive: the newest release of VERSION whose
# upstream tarball the archive serves (apt-get source, with an apt state of
# its own in CACHE: the system's apt configuration is not touched). The
# tarball is kept in CACHE, so a second call fetches nothing. Used by
# `rwstress kernel --version` and scripts/kernel-upstream.sh.
#
#   kernel-fetch.sh VERSION CACHE [PATH_FILE]
#
# Exit 0 with the tree's path on stdout (or written to PATH_FILE); 77 when the archive cannot be
# reached and nothing is cached; 1 when the archive serves no such version
# (one line on stderr either way). The log is CACHE/fetch.log.
set -euo pipefail
want=$1
path_file=${3:-}
mkdir -p "$2"
cache=$(cd "$2" && pwd) # absolute: apt reads a relative Dir::... under its own /etc/apt
found() {
  if [ -n "$path_file" ]; then echo "$1" >"$path_file"; else echo "$1"; fi
  exit 0
}
if ! [[ $want =~ ^[0-9]+\.[0-9]+(\.[0-9]+)?$ ]]; then
  echo "kernel version '$want': want a series like 6.18 or a release like 6.18.15" >&2
  exit 1
fi
apt_opts=(-qq -o Dir::Etc::SourceList="$cache/sources.list" -o Dir::Etc::SourceParts=/dev/null
          -o Dir::State::Lists="$cache/lists" -o Dir::Cache="$cache/apt" -o Debug::NoLocking=1)

# The releases of $want among WORDS, newest first ("6.1" takes 6.1.176, not 6.10.2).
of_want() { tr ' ' '\n' | grep -E "^${want//./\\.}(\.[0-9]+)?$" | sort -Vru || true; }

# A tree already extracted.
have=$(find "$cache" -maxdepth 1 -type d -name 'linux-*' -printf '%f\n' | sed 's/^linux-//' |
       of_want | head -1)
if [ -n "$have" ] && [ -f "$cache/linux-$have/kernel/locking/rwsem.c" ] &&
   [ -f "$cache/linux-$have/Makefile" ]; then
  found "$cache/linux-$have"
fi

# The Sources index of every suite that serves a current kernel.
indexed=0
: >"$cache/sources.list"
for suite in bookworm bookworm-backports trixie trixie-backports sid; do
  echo "deb-src http://deb.debian.org/debian $suite main" >>"$cache/sources.list"
done
mkdir -p "$cache/lists/partial" "$cache/apt/archives/partial"
if apt-get "${apt_opts[@]}" update >>"$cache/fetch.log" 2>&1; then indexed=1; fi
debian_versions=$(apt-cache "${apt_opts[@]}" showsrc linux 2>/dev/null | sed -n 's/^Version: //p' || true)

# A tarball already in the cache first, then what the index lists (an index
# may list releases its pool no longer holds: try the next one down).
cached=$(ls "$cache" | sed -n 's/^linux_\(.*\)\.orig\.tar\.xz$/\1/p' | of_want | tr '\n' ' ')
listed=$(echo "$debian_versions" | sed 's/-[^-]*$//' | of_want | head -16 | tr '\n' ' ')
for version in $cached $listed; do
  tarball=$cache/linux_$version.orig.tar.xz
  if [ ! -f "$tarball" ]; then
    debian=$(echo "$debian_versions" | grep -m1 "^$version-" || true)
    [ -n "$debian" ] || continue
    # The .dsc may be gone where the tarball is not: the tarball is enough.
    (cd "$cache" && apt-get "${apt_opts[@]}" source --download-only "linux=$debian") \
      >>"$cache/fetch.log" 2>&1 || true
    rm -f "$cache"/linux_*.debian.tar.xz "$cache"/linux_*.dsc
    [ -f "$tarball" ] || continue
  fi
  top=linux-$version
  tar -xJf "$tarball" -C "$cache" "$top/Makefile" --wildcards "$top/kernel/locking/*"
  found "$cache/$top"
done
if [ $indexed = 0 ]; then
  echo "cannot reach Debian's archive for linux $want (see $cache/fetch.log)" >&2
  exit 77
fi
echo "Debian's archive serves no linux $want source (see $cache/fetch.log)" >&2
exit 1
