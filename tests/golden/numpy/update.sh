#!/bin/sh
# Regenerates the expected outputs with real python3 + numpy (Debian's python3-numpy 1.24).
cd "$(dirname "$0")" || exit 1
for f in *.py; do /usr/bin/python3 "$f" > "${f%.py}.out" || echo "failed: $f"; done
