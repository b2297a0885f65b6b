#!/usr/bin/env bash
# Runs the benchmark suite of docs/PERFORMANCE.md on the current adapter and
# regenerates its JSON and plot: ./scripts/bench.sh [output-prefix]
# (default docs/bench/h200). Paste the printed tables into PERFORMANCE.md.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix="${1:-docs/bench/h200}"
cargo build --release --locked -p unbound-bench
bench=./target/release/unbound-bench
$bench --scenes draw-bound,cube-grid --sizes 1000,10000,100000,1000000 \
    --frames 15 --warmup 3 --switches --cull-only 4194304 --json "$prefix-main.json"
$bench --scenes raster-bound --sizes 1000,10000,100000 \
    --frames 10 --warmup 2 --cull-only 0 --json "$prefix-raster.json"
$bench --scenes draw-bound --sizes 10000,100000 --frames 15 --warmup 3 \
    --tiers --cull-only 0 --paths unbound --json "$prefix-tiers.json"
# Issue 15: how many of the triangles drawn cover under a pixel (own file,
# own table: not part of the merged report).
$bench --scenes cube-grid,city --sizes 1000000 --frames 15 --warmup 3 \
    --cull-only 0 --paths unbound --occlusion on --count-small-triangles \
    --json "$prefix-small-triangles.json"
$bench --report-from "$prefix-main.json,$prefix-raster.json,$prefix-tiers.json" --plot "$prefix.png"
