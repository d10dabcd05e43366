#!/usr/bin/env bash
# Installs a build into a scratch prefix and builds the example plugins the
# way docs/plugins.md tells a plugin author to: against the installed headers
# through pkg-config, and through find_package(rwstress). Then runs them with
# the installed binary: the plain C locks, the kernel-style ones, and the
# kernel's own semaphore.c/qrwlock.c/qspinlock.c if scripts/kernel-upstream.sh
# can get them. The ctest and meson test 'install'.
#   scripts/check-install.sh cmake|meson BUILD_DIR SOURCE_DIR
set -euo pipefail
kind=$1
build=$(cd "$2" && pwd)
src=$(cd "$3" && pwd)
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
case $kind in
  cmake) cmake --install "$build" --prefix "$prefix" >/dev/null ;;
  meson) meson install -C "$build" --destdir "$prefix" --no-rebuild >/dev/null ;;
  *) echo "check-install: cmake or meson, not '$kind'" >&2; exit 2 ;;
esac
bin=$(find "$prefix" -path '*/bin/rwstress' -type f | head -1)
pc_dir=$(dirname "$(find "$prefix" -name rwstress.pc | head -1)")
cfg_dir=$(dirname "$(find "$prefix" -name rwstressConfig.cmake | head -1)")
root=$(dirname "$(dirname "$bin")")
# Each pkg-config module builds what it is for: rwstress (the plugin ABI
# alone) the plain C locks, futex_locks among them, whose <linux/futex.h>
# and <stdatomic.h> must stay the system's; rwstress-kernel the kernel-style
# ones.
cflags=$(PKG_CONFIG_PATH=$pc_dir pkg-config --cflags rwstress)
kcflags=$(PKG_CONFIG_PATH=$pc_dir pkg-config --cflags rwstress-kernel)
for ex in plain_locks futex_locks explore_locks; do
  cc -shared -fPIC -O2 -Wall -Werror $cflags "$src/examples/$ex.c" -o "$prefix/$ex.so"
done
# explore_locks marks its scheduling points (<rwstress/explore.h>): explored.
"$bin" --plugin "$prefix/explore_locks.so" explore --lock explore-futex --threads 3 \
  --schedules 200 >/dev/null
for ex in kernel_semaphore kernel_qrwlock; do
  cc -shared -fPIC -O2 -Wall -Werror $kcflags "$src/examples/$ex.c" -o "$prefix/$ex.so"
done
"$bin" --plugin "$prefix/plain_locks.so" --plugin "$prefix/futex_locks.so" \
  --plugin "$prefix/kernel_semaphore.so" --plugin "$prefix/kernel_qrwlock.so" \
  --lock c-rwlock,c-mutex,c-semaphore,futex-mutex,futex-semaphore,kernel-semaphore,kernel-qrwlock,kernel-qspinlock \
  --duration 200ms >/dev/null
# find_package(rwstress): a plugin project that uses both targets.
mkdir -p "$prefix/proj"
cat >"$prefix/proj/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.16)
project(myplugin C)
find_package(rwstress 0.1 REQUIRED)
foreach(ex plain_locks futex_locks)
  add_library(\${ex} MODULE $src/examples/\${ex}.c)
  target_link_libraries(\${ex} PRIVATE rwstress::plugin)
  set_target_properties(\${ex} PROPERTIES PREFIX "")
endforeach()
add_library(kernel_qrwlock MODULE $src/examples/kernel_qrwlock.c)
target_link_libraries(kernel_qrwlock PRIVATE rwstress::kernel)
set_target_properties(kernel_qrwlock PROPERTIES PREFIX "")
CMAKE
cmake -S "$prefix/proj" -B "$prefix/proj/build" -Drwstress_DIR="$cfg_dir" >/dev/null
cmake --build "$prefix/proj/build" >/dev/null
"$bin" --plugin "$prefix/proj/build/plain_locks.so" --plugin "$prefix/proj/build/futex_locks.so" \
  --plugin "$prefix/proj/build/kernel_qrwlock.so" \
  --lock c-rwlock,futex-mutex,futex-semaphore,kernel-qrwlock --duration 200ms >/dev/null
echo "install ($kind): headers, rwstress.pc, rwstress-kernel.pc and find_package(rwstress) (rwstress::plugin, rwstress::kernel) build plugins that the installed rwstress runs"
# The kernel's own files against the installed layer, from the oldest and
# the newest series: compiled (the explore builds too) and run once
# (validate, the searches, every series and the rwstress kernel command's
# checks are the kernel-upstream test's).
rc=0
RWSTRESS_VALIDATE_TIME=none RWSTRESS_KERNEL_COMMAND=0 RWSTRESS_KERNEL_EXPLORE=build RWSTRESS_KERNEL_SERIES="6.1 7.2" \
  RWSTRESS_KERNEL_CACHE=${RWSTRESS_KERNEL_CACHE:-$build/kernel-src} \
  "$src/scripts/kernel-upstream.sh" "$bin" $kcflags >"$prefix/kernel-upstream.log" 2>&1 || rc=$?
case $rc in
  0) echo "install ($kind): the kernel's semaphore.c, qrwlock.c, qspinlock.c, rwsem.c and mutex.c (6.1, 7.2) build against the installed layer and pass"
     # rwstress kernel from the install: the layer and the glue beside the binary.
     tree=$(find "${RWSTRESS_KERNEL_CACHE:-$build/kernel-src}" -maxdepth 1 -type d -name 'linux-7.2*' | head -1)
     if ! "$bin" kernel --source "$tree" --files semaphore --time 2s --cache "$prefix/kc" \
          >"$prefix/kernel.log" 2>&1 || ! grep -q "$prefix/kc/plugins/k7.2-semaphore" "$prefix/kernel.log"; then
       tail -5 "$prefix/kernel.log" >&2
       echo "install ($kind): the installed rwstress kernel did not build and pass semaphore.c" >&2
       exit 1
     fi
     echo "install ($kind): the installed rwstress kernel builds and validates the kernel's semaphore.c" ;;
  77) echo "install ($kind): kernel sources not reachable; their check skipped" ;;
  *) grep '^kernel-upstream:' "$prefix/kernel-upstream.log" >&2
     echo "install ($kind): the kernel's locking files failed against the installed layer" >&2; exit 1 ;;
esac
