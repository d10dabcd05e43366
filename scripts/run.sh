#!/usr/bin/env bash
# README command 1: install what is missing, build a release binary, and run
# the main job. Extra arguments replace the default job's arguments.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build-release -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-release --target rwstress
if [ $# -eq 0 ]; then set -- --readers 4 --writers 2 --sched; fi
exec build-release/rwstress "$@"
