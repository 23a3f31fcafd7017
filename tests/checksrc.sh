#!/bin/sh
# checksrc.sh — the source rules of scripts/checksrc over the source tree,
# as a test of `make check` (skipped where python3 is missing).
command -v python3 >/dev/null 2>&1 || { echo "python3 not found: checksrc skipped"; exit 77; }
exec python3 "${MCT_SRCDIR:-.}/scripts/checksrc" "${MCT_SRCDIR:-.}"
