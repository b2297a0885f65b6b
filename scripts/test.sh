#!/usr/bin/env bash
# Runs the whole test suite: ./scripts/test.sh [extra cargo test args...]
# Installs lavapipe if no suitable Vulkan adapter exists and it can. Tests
# pick the software adapter unless UNBOUND_ADAPTER / UNBOUND_BACKEND say otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/vulkan-check.sh
ensure_vulkan
ensure_test_models
ensure_window_libs
exec cargo test --locked --workspace "$@"
