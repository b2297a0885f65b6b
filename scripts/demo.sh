#!/usr/bin/env bash
# Renders the built-in demo scene headless: ./scripts/demo.sh [demo args...]
# (default: --headless --out frame.png; ./scripts/demo.sh --window opens the
# interactive window instead). Installs lavapipe, and for the window the X
# libraries winit loads, if they are missing and it can.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/vulkan-check.sh
ensure_vulkan
if [ $# -eq 0 ]; then set -- --headless --out frame.png; fi
if [ "$1" = "--window" ]; then shift; ensure_window_libs; fi
exec cargo run --release --locked -p unbound-demo -- "$@"
