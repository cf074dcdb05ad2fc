#!/usr/bin/env bash
# The committed op reference must be what the program prints from the catalog: a changed
# op, schema, dtype rule or family text without a regenerated docs/op-reference.md fails
# here, with the difference and the command that regenerates it.
#   tests/docs/check_op_reference.sh BACKPLANE_PROGRAM SOURCE_DIR
set -euo pipefail
program="$1" source_dir="$2"
doc="$source_dir/docs/op-reference.md"
regenerate="$program ops --markdown > $doc"

printed="$(mktemp)"
trap 'rm -f "$printed"' EXIT
if ! "$program" ops --markdown >"$printed"; then
  echo "check_op_reference: '$program ops --markdown' failed (its message is above)" >&2
  exit 1
fi
if [[ ! -f "$doc" ]]; then
  echo "check_op_reference: $doc is missing; generate it with: $regenerate" >&2
  exit 1
fi
if ! diff -u "$doc" "$printed" >&2; then
  echo "check_op_reference: $doc is out of date with the catalog (the diff above goes from" \
    "the file to what the program prints); regenerate it with: $regenerate" >&2
  exit 1
fi
echo "check_op_reference: $doc is current"
