#!/usr/bin/env bash
# Peak RSS of the glTF loader's CPU stage per file: ./scripts/gltf_rss.sh DIR...
# Runs examples/gltf_rss.rs (release build) on every .gltf and .glb under
# each DIR (recursively), one process per file, and prints every line
# sorted by peak (KiB), then the five largest and the maximum.
# Default DIRs: assets/ and Debian's assimp-testmodels. Symbolic links
# are followed only for the DIRs themselves.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$#" -eq 0 ]; then
    set -- assets /usr/share/assimp/models/glTF2
fi
cargo build --release --example gltf_rss
bin="${CARGO_TARGET_DIR:-target}/release/examples/gltf_rss"
results=$(find -H "$@" -type f \( -name '*.gltf' -o -name '*.glb' \) -print0 \
    | xargs -0 -n 1 "$bin" | sort -n)
echo "$results"
echo "--- top 5 (peak RSS KiB, outcome, file) ---"
echo "$results" | tail -n 5
echo "--- files: $(echo "$results" | wc -l), max peak RSS: $(echo "$results" | tail -n 1 | cut -d' ' -f1) KiB"
