#!/usr/bin/env bash
# Configures and builds accelopt into build/ (Release: -O2, shared module libraries, Ninja).
# Extra arguments go to cmake, e.g. -DCMAKE_BUILD_TYPE=RelWithDebInfo for profiling.
set -euo pipefail
cd "$(dirname "$0")/.."
# A full build needs ~80 MB (plus ~60 MB while compiling); say so up front rather than failing
# in the linker with "No space left on device".
free_mb=$(df -Pm . | awk 'NR==2 {print $4}')
if [ "${free_mb:-0}" -lt 200 ]; then
  echo "build.sh: only ${free_mb} MB free on $(df -P . | awk 'NR==2 {print $6}'); a build needs about 200 MB" >&2
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build build -j "$(nproc)"
