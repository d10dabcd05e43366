#!/usr/bin/env bash
# Installs a CMake build into a scratch prefix and builds the example plugin
# the way docs/plugins.md tells a plugin author to: against the installed
# header through pkg-config, and through find_package(rwstress). Then runs
# it with the installed binary. Run as the ctest test 'install'.
#   scripts/check-install.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$(cd "$2" && pwd)
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
pc_dir=$(dirname "$(find "$prefix" -name rwstress.pc | head -1)")
cflags=$(PKG_CONFIG_PATH=$pc_dir pkg-config --cflags rwstress)
cc -shared -fPIC -O2 $cflags "$src/examples/plain_locks.c" -o "$prefix/plain_locks.so"
"$prefix/bin/rwstress" --plugin "$prefix/plain_locks.so" --lock c-rwlock,c-mutex,c-semaphore \
  --duration 200ms >/dev/null
# find_package(rwstress): a plugin project that uses the rwstress::plugin target.
mkdir -p "$prefix/proj"
cat >"$prefix/proj/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.16)
project(myplugin C)
find_package(rwstress REQUIRED)
add_library(plain_locks MODULE $src/examples/plain_locks.c)
target_link_libraries(plain_locks PRIVATE rwstress::plugin)
set_target_properties(plain_locks PROPERTIES PREFIX "")
CMAKE
cmake -S "$prefix/proj" -B "$prefix/proj/build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$prefix/proj/build" >/dev/null
"$prefix/bin/rwstress" --plugin "$prefix/proj/build/plain_locks.so" --lock c-rwlock \
  --duration 200ms >/dev/null
echo "install: header, rwstress.pc and find_package(rwstress) build a plugin that the installed rwstress runs"
