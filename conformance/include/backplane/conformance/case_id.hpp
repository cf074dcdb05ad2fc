// Case ids: the stable name of one conformance case, `op/dtype/sample`, e.g.
// `add.Tensor/f32/broadcast_3x1_with_1`. Ids appear in reports, in `--case ID` and in the
// `repro` line, and expectations files glob over them, so the format is strict: exactly three
// non-empty parts separated by '/'. The dtype and sample parts hold only a-z 0-9 '_' '.'; the
// op part also A-Z, because PyTorch's overload names (add.Tensor, div.Scalar_mode) have upper
// case. No spaces, no '/' inside a part. The dtype part is the short dtype name (f32, bf16, i64,
// ...) but is only checked for the character set, so device-API cases may use other words there.
#pragma once

#include <string>
#include <string_view>

namespace bp::conformance {

struct CaseId {
  std::string op;      // op name with overload, e.g. "add.Tensor", "softmax.int"
  std::string dtype;   // short dtype name, e.g. "f32"
  std::string sample;  // sample name within the op's record, e.g. "broadcast_3x1_with_1"

  // Builds an id from its parts; throws bp::Error (Parse) naming the bad part and character.
  static CaseId make(std::string_view op, std::string_view dtype, std::string_view sample);
  // Parses `op/dtype/sample`; throws bp::Error (Parse) naming the id and what is wrong.
  static CaseId parse(std::string_view text);

  // `op/dtype/sample`.
  std::string str() const;

  friend bool operator==(const CaseId&, const CaseId&) = default;
};

// True for the characters a case id part may hold: a-z 0-9 '_' '.', and A-Z in the op part.
constexpr bool is_case_id_char(char c, bool op_part) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
         (op_part && c >= 'A' && c <= 'Z');
}

}  // namespace bp::conformance
