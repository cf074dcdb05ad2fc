#!/usr/bin/env bash
# Runs a command with the CPU plugin capped at one ISA level (BACKPLANE_CPU_ISA; docs/cpu.md,
# "ISA levels"): ctest's conformance/suite_cpu_full_<level> (the full conformance suite) and
# cpu/kernels_at_<level> (the CPU kernel tests). First it shows that the cap takes effect:
# cpu:0 must report the level, and Highway's target and oneDNN's ISA must be the level's own.
# A level this CPU does not have is skipped (exit 77, ctest's SKIP_RETURN_CODE) with the
# reason, never passed.
#   at_isa_level.sh LEVEL BACKPLANE_PROGRAM CPU_PLUGIN COMMAND [ARGS...]
set -euo pipefail
level="$1" cli="$2" plugin="$3"
shift 3

case "$level" in
  avx512) highway=AVX3 onednn=avx512_core ;;
  avx2) highway=AVX2 onednn=avx2 ;;
  sse4) highway=SSE4 onednn=sse41 ;;
  # Highway's portable baseline: SCALAR when g++ < 12.3 builds it (Highway 1.0 marks EMU128
  # broken there), EMU128 under clang; tests/tools/test_cpu_isa_cap.cpp pins which one.
  scalar) highway='SCALAR|EMU128' onednn=sse41 ;;
  *) echo "unknown level '$level' (avx512, avx2, sse4, scalar)" >&2; exit 2 ;;
esac

# The value of attribute $1 in an attributes line ("isa=avx2 highway=AVX2 ...").
attribute() { tr ' ' '\n' <<<"$2" | sed -n "s/^$1=//p"; }
# cpu:0's attributes line from `backplane devices` under BACKPLANE_CPU_ISA=$1.
attributes_at() {
  BACKPLANE_CPU_ISA="$1" "$cli" devices --device cpu:0 --plugin "$plugin" |
    sed -n 's/^cpu:0: //p'
}

native=$(attributes_at native)
best=$(attribute cpu_best "$native")
order=(avx512 avx2 sse4 scalar)
index_of() { for i in "${!order[@]}"; do [[ "${order[$i]}" == "$1" ]] && echo "$i"; done; }
if (($(index_of "$level") < $(index_of "$best"))); then
  echo "skipped: this CPU ($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n1)) has" \
    "ISA level $best at best, not $level (cpu:0 without a cap: $native)"
  exit 77
fi

capped=$(attributes_at "$level")
echo "cpu:0 at BACKPLANE_CPU_ISA=$level: $capped"
echo "cpu:0 without a cap:            $native"
fail=0
for want in "isa=$level" "highway=$highway" "onednn=$onednn"; do
  key=${want%%=*}
  # The expected value is a regular expression (SCALAR|EMU128).
  if ! [[ "$(attribute "$key" "$capped")" =~ ^(${want#*=})$ ]]; then
    echo "FAILED: the cap did not take effect: $key is '$(attribute "$key" "$capped")'," \
      "expected '${want#*=}'"
    fail=1
  fi
done
((fail == 0)) || exit 1

export BACKPLANE_CPU_ISA="$level"
exec "$@"
