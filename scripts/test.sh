#!/usr/bin/env bash
# README command 2: install what is missing, build everything, run the test
# suite with ctest (a few minutes on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build
# The long proofs (label long: validate over every lock) run with ctest -L long.
ctest --test-dir build --output-on-failure -LE long
