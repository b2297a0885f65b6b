#!/usr/bin/env bash
# A fuzz campaign on a machine without Rust (docs/FUZZING.md, "Runs"): each
# target, P processes each (default 4), all at once, for T seconds.
#   cargo fuzz build -s none -O   (in fuzz/), and
#   cargo fuzz build -s none -O --features draco draco_decode
#   strip each release binary cargo fuzz wrote into a folder DIR, and copy
#   this script there
#   then, with fuzz/corpus/ seeded as docs/FUZZING.md says and DIR beside fuzz/:
#   OUT=results DIR/fuzz-campaign.sh T [P] [TARGET...]
# e.g. OUT=results DIR/fuzz-campaign.sh 510   (gltf_parse gltf_json
# gltf_scene_graph hdr_decode, 4 processes each), or
#      OUT=results DIR/fuzz-campaign.sh 480 8 meshopt_decode draco_decode
# Logs, crashing inputs (artifacts-*) and summary.txt land in $OUT.
set -u
T=${1:-480}
P=${2:-4}
shift $(( $# < 2 ? $# : 2 ))
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(gltf_parse gltf_json gltf_scene_graph hdr_decode)
cd "$(dirname "$0")"
mkdir -p "$OUT"
for t in "${targets[@]}"; do
  [ -x "./$t" ] || { echo "no binary ./$t" >&2; exit 2; }
  [ -d "../fuzz/corpus/$t" ] || { echo "no seeds in ../fuzz/corpus/$t" >&2; exit 2; }
done
nproc; cat /proc/cpuinfo | grep "model name" | head -1
for t in "${targets[@]}"; do
  mkdir -p work/$t; cp -r ../fuzz/corpus/$t/. work/$t/
  case $t in
    gltf_json|gltf_scene_graph) extra="-max_len=512";;
    *) extra="";;
  esac
  for i in $(seq 1 "$P"); do
    ./$t work/$t -max_total_time=$T -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 $extra \
      -artifact_prefix=$OUT/artifacts-$t- > $OUT/$t-$i.log 2>&1 &
  done
done
wait
mkdir -p logs; mv $OUT/*.log logs/
{
for t in "${targets[@]}"; do
  echo "== $t corpus: $(ls work/$t | wc -l) inputs, $(du -sk work/$t | cut -f1) KB"
  grep -h "DONE" logs/$t-*.log
  grep -h "stat::number_of_executed_units\|stat::peak_rss_mb\|stat::slowest" logs/$t-*.log
  grep -l "==ERROR\|deadly signal\|panicked at\|escaped the loader" logs/$t-*.log && echo "FOUND A FAILURE in $t"
done
ls $OUT
} > $OUT/summary.txt 2>&1
cat $OUT/summary.txt
