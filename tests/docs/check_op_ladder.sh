#!/usr/bin/env bash
# The plugin guide's ladder of op sets names, for each example model, exactly the primitive
# ops its forward pass runs as kernels and the composites it runs through: each example runs
# on reference:0 with a trace (docs/tracing.md), and the ops of the trace's events with
# path "kernel" and "composite" must be the backquoted names of the guide's table row that
# names the example's source file (third and fourth columns). The reference backend has no
# fused kernel of a composite, so its trace shows every primitive a composite needs.
#   tests/docs/check_op_ladder.sh MLP_PROGRAM TRANSFORMER_BLOCK_PROGRAM SOURCE_DIR
set -euo pipefail
mlp="$1" block="$2" source_dir="$3"
guide="$source_dir/docs/plugin-guide.md"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

# The op names of a trace whose events took `path` (sorted, one per line).
traced_ops() {
  grep -o "\"name\":\"[^\"]*\"[^}]*\"path\":\"$2\"" "$1" | sed 's/^"name":"\([^"]*\)".*/\1/' |
    sort -u
}

# The backquoted names in column `col` of the guide's table row that names `source`.
guide_ops() {
  local row
  row="$(grep -F "\`$1\`" "$guide" | grep '^|' || true)"
  if [[ "$(grep -c . <<<"$row")" != 1 ]]; then
    echo "check_op_ladder: $guide has no single ladder row naming \`$1\`" >&2
    exit 1
  fi
  awk -F'|' -v col="$2" '{print $(col + 1)}' <<<"$row" | grep -o '`[^`]*`' | tr -d '`' | sort -u
}

status=0
check() {  # check NAME SOURCE PROGRAM ARGS...
  local name="$1" source="$2" program="$3"
  shift 3
  local trace="$scratch/$name.json"
  env -u BACKPLANE_CONFIG -u BACKPLANE_PLUGIN_PATH -u BACKPLANE_FALLBACK \
    BACKPLANE_DEVICE=reference BACKPLANE_TRACE="$trace" "$program" "$@" >/dev/null
  for kind in kernel:3 composite:4; do
    local path="${kind%:*}" col="${kind#*:}"
    if ! diff <(guide_ops "$source" "$col") <(traced_ops "$trace" "$path") >"$scratch/diff"; then
      echo "check_op_ladder: the $name row of $guide (column $col, the ops run as $path)" \
        "differs from what $source runs on reference:0 ('<' only in the guide, '>' only in" \
        "the trace):" >&2
      cat "$scratch/diff" >&2
      status=1
    fi
  done
}
check mlp examples/mlp.cpp "$mlp" --batch 2 --hidden 16 --iterations 1
check transformer_block examples/transformer_block.cpp "$block" --batch 2 --seq 8 --dim 16 \
  --heads 2 --ffn 32 --iterations 1
if ((status == 0)); then echo "check_op_ladder: the guide's ladder matches both examples"; fi
exit "$status"
