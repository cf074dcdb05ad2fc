// The op reference that `backplane ops --markdown` prints (committed as docs/op-reference.md,
// kept current by a test): every op of the catalog with its schema, kind, the dtypes it
// allows and the dtype its kernel sees for each, and its family's text on what a kernel
// receives and the op's edge semantics. The ops, schemas and kinds come from the catalog;
// the dtypes from the op's conformance record, with the meta rule run on the record's
// first sample of each dtype; only the family texts are written by hand
// (op_reference_text.cpp), one per family of ops that share a contract.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace bp::cli {

// A group of ops that share what a kernel receives and their edge semantics. `ops` are
// full catalog names ("add.Tensor"); the texts are Markdown paragraphs or bullet lists.
struct OpFamily {
  std::string_view title;
  std::vector<std::string_view> ops;
  std::string_view receives;  // the canonical form the meta rule hands the kernel
  std::string_view edges;     // conversions, special values, overflow, rounding
};

// Every family, in the order the reference prints them (op_reference_text.cpp).
const std::vector<OpFamily>& op_families();

// The whole reference as Markdown. Throws bp::Error naming every catalog op that no family
// lists (and the file to describe it in), every family entry the catalog does not have,
// and every op without a conformance record.
std::string op_reference_markdown();

}  // namespace bp::cli
