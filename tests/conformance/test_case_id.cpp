// Case ids (conformance/src/case_id.cpp): parse/format round trip and every validation error.
#include <backplane/conformance/case_id.hpp>
#include <backplane/core/error.hpp>

#include <doctest/doctest.h>

#include <string>

using bp::conformance::CaseId;

namespace {

// The message of the bp::Error that `fn` throws; fails the test when it throws nothing.
template <typename Fn>
std::string error_of(Fn&& fn) {
  try {
    fn();
  } catch (const bp::Error& e) {
    CHECK(e.code() == bp::ErrorCode::Parse);
    return e.what();
  }
  FAIL("no bp::Error thrown");
  return {};
}

}  // namespace

TEST_CASE("case id: parse and format round trip") {
  const CaseId id = CaseId::parse("add.Tensor/f32/broadcast_3x1_with_1");
  CHECK(id.op == "add.Tensor");
  CHECK(id.dtype == "f32");
  CHECK(id.sample == "broadcast_3x1_with_1");
  CHECK(id.str() == "add.Tensor/f32/broadcast_3x1_with_1");
  CHECK(CaseId::parse(id.str()) == id);
  CHECK(CaseId::make("softmax.int", "bf16", "dim_0.5") ==
        CaseId::parse("softmax.int/bf16/dim_0.5"));
  CHECK(CaseId::parse("fill_.Scalar/i64/x").op == "fill_.Scalar");
}

TEST_CASE("case id: wrong number of parts") {
  CHECK(error_of([] { CaseId::parse("add.Tensor/f32"); }) ==
        "case id 'add.Tensor/f32': expected op/dtype/sample (three parts separated by '/')");
  CHECK(error_of([] { CaseId::parse("add"); }) ==
        "case id 'add': expected op/dtype/sample (three parts separated by '/')");
  CHECK(error_of([] { CaseId::parse("a/f32/b/c"); }) ==
        "case id 'a/f32/b/c': expected op/dtype/sample, found more than three parts");
}

TEST_CASE("case id: empty parts") {
  CHECK(error_of([] { CaseId::parse("/f32/x"); }) == "case id '/f32/x': the op part is empty");
  CHECK(error_of([] { CaseId::parse("add//x"); }) == "case id 'add//x': the dtype part is empty");
  CHECK(error_of([] { CaseId::parse("add/f32/"); }) ==
        "case id 'add/f32/': the sample part is empty");
  CHECK(error_of([] { CaseId::parse(""); }) ==
        "case id '': expected op/dtype/sample (three parts separated by '/')");
}

TEST_CASE("case id: characters") {
  // Upper case only in the op part (PyTorch overload names), never in dtype or sample.
  CHECK(error_of([] { CaseId::parse("add/F32/x"); }) ==
        "case id 'add/F32/x': the dtype part 'F32' has 'F' at position 0; it may use only a-z "
        "0-9 _ .");
  CHECK(error_of([] { CaseId::parse("add/f32/a b"); }) ==
        "case id 'add/f32/a b': the sample part 'a b' has ' ' at position 1; it may use only "
        "a-z 0-9 _ .");
  CHECK(error_of([] { CaseId::parse("ad-d/f32/x"); }) ==
        "case id 'ad-d/f32/x': the op part 'ad-d' has '-' at position 2; it may use only a-z "
        "A-Z 0-9 _ .");
  CHECK(error_of([] { CaseId::make("add", "f32", "a/b"); }) ==
        "case id 'add/f32/a/b': the sample part 'a/b' has '/' at position 1; it may use only "
        "a-z 0-9 _ .");
  CHECK(error_of([] { CaseId::make("add", "f*", "x"); }) ==
        "case id 'add/f*/x': the dtype part 'f*' has '*' at position 1; it may use only a-z 0-9 "
        "_ .");
}
