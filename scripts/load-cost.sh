#!/usr/bin/env bash
# Load time and peak CPU memory of the glTF loader's CPU stage, compressed
# files against their originals (issue 25): ./scripts/load-cost.sh DIR [N]
# DIR holds a release build of examples/gltf_rss.rs (named gltf_rss), for
# instance target/release/examples or a folder it was copied to; each file
# is parsed N times (default 20) in its own process. Prints a markdown
# table: the file's bytes (a .gltf with its .bin, not its images; a .glb
# whole), peak RSS, the first (cold) parse, the minimum and the median,
# and the median against its original's (the nearest row above whose name
# has no "_"). Parses include decoding every image, the same in both
# files of a pair. Run from anywhere; the files are the repo's assets/.
set -euo pipefail
bin="${1:?usage: load-cost.sh DIR_OF_gltf_rss [REPEAT]}/gltf_rss"
repeat="${2:-20}"
cd "$(dirname "$0")/.."
test -x "$bin" || { echo "$bin is not an executable" >&2; exit 2; }
files=(
    assets/FlightHelmet/FlightHelmet.gltf
    assets/FlightHelmet/FlightHelmet_meshopt.gltf
    assets/AnisotropyBarnLamp/AnisotropyBarnLamp.gltf
    assets/AnisotropyBarnLamp/AnisotropyBarnLamp_meshopt.gltf
    assets/AnisotropyBarnLamp/AnisotropyBarnLamp_quantized.gltf
    assets/gltfpack/Fox.glb
    assets/gltfpack/Fox_meshopt.glb
    assets/gltfpack/Fox_quantized.glb
)
echo "gltf_rss: $bin, $repeat parses per file, $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo
echo "| file | bytes (.gltf + .bin, or .glb) | peak RSS (MiB) | cold (ms) | min (ms) | median (ms) | median / original's |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
original_median=""
for file in "${files[@]}"; do
    bytes=$(stat -c %s "$file")
    if [[ "$file" == *.gltf ]]; then
        base="${file%.gltf}"
        [ -f "$base.bin" ] && bytes=$((bytes + $(stat -c %s "$base.bin")))
    fi
    line=$("$bin" --repeat "$repeat" "$file")
    read -r peak outcome _ <<<"$line"
    if [ "$outcome" != ok ]; then
        echo "$line" >&2
        exit 1
    fi
    value() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p" <<<"$line"; }
    cold=$(value cold_ms); min=$(value min_ms); median=$(value median_ms)
    name=$(basename "$file")
    stem="${name%.*}"
    if [[ "$stem" != *_* ]]; then
        original_median=$median
        ratio="1.00"
    else
        ratio=$(awk -v m="$median" -v o="$original_median" 'BEGIN { printf "%.2f", m / o }')
    fi
    mib=$(awk -v k="$peak" 'BEGIN { printf "%.1f", k / 1024 }')
    echo "| \`$name\` | $bytes | $mib | $cold | $min | $median | $ratio× |"
done
