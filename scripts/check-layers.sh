#!/usr/bin/env bash
# The layering of src/ (docs/architecture.md), checked: a file may include
# headers of its own layer and of the layers below it, never above. Prints
# each upward include and exits 1 if there is one.
#   scripts/check-layers.sh [SOURCE_DIR]
set -euo pipefail
root=${1:-$(dirname "$0")/..}
layers=(explore platform locks injectors model config report run registry commands cli)
rank() {
  local i
  for i in "${!layers[@]}"; do [ "${layers[$i]}" = "$1" ] && { echo "$i"; return; }; done
  echo -1
}
bad=0
while IFS= read -r file; do
  rel=${file#"$root"/src/}
  layer=${rel%%/*}
  [ "$layer" = "$rel" ] && layer=main  # src/main.cc sits on top
  mine=$([ "$layer" = main ] && echo ${#layers[@]} || rank "$layer")
  if [ "$mine" -lt 0 ]; then
    [ "$layer" = generated ] && continue
    echo "$rel: folder '$layer' is not a layer (add it to scripts/check-layers.sh and docs/architecture.md)"
    bad=1
    continue
  fi
  while IFS= read -r inc; do
    dep=${inc%%/*}
    theirs=$(rank "$dep")
    [ "$theirs" -lt 0 ] && continue  # rwstress_version.h, tests/...
    if [ "$theirs" -gt "$mine" ]; then
      echo "$rel: includes $inc ($layer may not reach up to $dep)"
      bad=1
    fi
  done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$file")
done < <(find "$root/src" -name '*.h' -o -name '*.cc' -o -name '*.c' | sort)
if [ $bad -eq 0 ]; then echo "layers: every include points down (${layers[*]})"; fi
exit $bad
