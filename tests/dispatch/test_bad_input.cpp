// Bad input through the public API (issue 9): element counts that overflow int64, negative
// sizes in every shape-taking function, allocations larger than the device, views reaching
// past their storage, and writes whose output overlaps an input or itself. Each must be a
// bp::Error naming the op and what is wrong (never a wrapped size, a crash or a silently
// wrong result). PyTorch 2.x's answer is noted where we differ from it or copy its text.
#include "../cpu/cpu_checks.hpp"
#include "plugin_test_support.hpp"

#include <backplane/backplane.hpp>

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace bp::test {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("factories with element counts that overflow int64 are errors, never wrapped sizes") {
  // torch.empty((2**63-1, 2)): "Storage size calculation overflowed with sizes=[...]".
  CHECK(error_of(
            [] {
              (void)empty({kMax, 2});
            },
            ErrorCode::InvalidArgument) ==
        "empty: shape [9223372036854775807, 2] has more elements than int64 can count");
  // (No structured bindings here: clang 14 cannot capture them in INFO's lambda.)
  const std::vector<std::pair<std::string, std::function<void()>>> factories = {
      {"zeros",
       [] {
         (void)zeros({2, kMax});
       }},
      {"ones",
       [] {
         (void)ones({kMax, kMax});
       }},
      {"full",
       [] {
         (void)full({kMax, 3}, 1.0);
       }},
  };
  for (const auto& factory : factories) {
    INFO(factory.first);
    CHECK(error_of(factory.second, ErrorCode::InvalidArgument)
              .starts_with(factory.first + ": shape ["));
    CHECK(contains(error_of(factory.second), "has more elements than int64 can count"));
  }
  // The count fits, the bytes do not.
  CHECK(error_of([] { (void)empty({int64_t{1} << 62}, ScalarType::Float32); },
                 ErrorCode::OutOfMemory) ==
        "empty: 4611686018427387904 elements of f32 overflow the addressable size");
  // Zero elements however large the other sizes: no error (as PyTorch).
  CHECK(empty({0, kMax}).numel() == 0);
}

TEST_CASE("views whose element counts overflow int64 are errors, never wrapped sizes") {
  const Tensor x = zeros({10});
  CHECK(error_of(
            [&] {
              (void)x.as_strided({kMax, 2}, {1, 1});
            },
            ErrorCode::InvalidArgument) ==
        "as_strided: shape [9223372036854775807, 2] has more elements than int64 can count");
  // Sizes whose count fits but whose farthest element does not.
  CHECK(error_of(
            [&] {
              (void)x.as_strided({2, 2}, {kMax, 1});
            },
            ErrorCode::InvalidArgument) ==
        "as_strided: sizes [2, 2], strides [9223372036854775807, 1] and offset 0 of f32 reach "
        "byte beyond int64 but the storage has 40 bytes");
  CHECK(error_of([&] {
          (void)x.view({kMax, 2});
        }) == "view: shape [9223372036854775807, 2] has more elements than int64 can count");
  CHECK(error_of([&] {
          (void)reshape(x, {kMax, kMax});
        }) ==
        "reshape: shape [9223372036854775807, 9223372036854775807] has more elements than int64 "
        "can count");
  CHECK(error_of([&] {
          (void)x.view({-1, kMax, 2});
        }) == "view: shape [1, 9223372036854775807, 2] has more elements than int64 can count");
  // Merging dims of an empty tensor whose other sizes multiply past int64 (the count is 0).
  const Tensor hollow = empty({0, kMax, 2});
  CHECK(error_of([&] { (void)flatten(hollow, 1, 2); }, ErrorCode::InvalidArgument) ==
        "flatten: merging dims 1..2 of shape [0, 9223372036854775807, 2] overflows int64");
  CHECK(error_of([&] { (void)hollow.flatten(1, 2); }, ErrorCode::InvalidArgument) ==
        "flatten: merging dims 1..2 of shape [0, 9223372036854775807, 2] overflows int64");
  // expand of a 1-element tensor to a count past int64 (torch: "numel: integer
  // multiplication overflow").
  const Tensor one = zeros({1, 1});
  CHECK(error_of(
            [&] {
              (void)one.expand({kMax, kMax});
            },
            ErrorCode::InvalidArgument) ==
        "expand: shape [9223372036854775807, 9223372036854775807] has more elements than int64 "
        "can count");
}

TEST_CASE("a negative size is an error naming the op in every shape-taking function") {
  const Tensor x = zeros({10});
  struct Case {
    std::string expected;
    std::function<void()> call;
  };
  const std::vector<Case> cases = {
      {"empty: shape [2, -1] has negative size -1 at dim 1",
       [] {
         (void)empty({2, -1});
       }},
      {"zeros: shape [-1] has negative size -1 at dim 0", [] { (void)zeros({-1}); }},
      {"ones: shape [3, -3] has negative size -3 at dim 1",
       [] {
         (void)ones({3, -3});
       }},
      {"full: shape [-2] has negative size -2 at dim 0", [] { (void)full({-2}, 1.0); }},
      {"as_strided: shape [-1] has negative size -1 at dim 0",
       [&] { (void)x.as_strided({-1}, {1}); }},
      {"as_strided: stride -1 at dim 0 is negative (strides [-1])",
       [&] { (void)x.as_strided({2}, {-1}); }},
      {"as_strided: storage offset -1 is negative", [&] { (void)x.as_strided({2}, {1}, -1); }},
      {"view: invalid size -2 at dim 0 of [-2, 5]",
       [&] {
         (void)x.view({-2, 5});
       }},
      {"reshape: invalid size -5 at dim 0 of [-5, -2]",
       [&] {
         (void)reshape(x, {-5, -2});
       }},
      {"expand: the target shape [-2, 10] has negative size -2 at dim 0",
       [&] {
         (void)x.expand({-2, 10});
       }},
      {"narrow: argument 'length' is -1 but must be >= 0", [&] { (void)x.narrow(0, 2, -1); }},
  };
  for (const Case& c : cases) {
    const std::string message = error_of(c.call, ErrorCode::InvalidArgument);
    INFO(message);
    CHECK(message == c.expected);
  }
}

TEST_CASE("from_vector checks the shape against the values it copies") {
  // It copied numel(shape) elements from the vector whatever its size: a shape larger than
  // the vector read past its end (a heap overflow under ASan).
  CHECK(error_of(
            [] {
              (void)from_vector<float>({1, 2}, {100});
            },
            ErrorCode::Shape) ==
        "from_vector: 2 values given for shape [100], which has 100 elements");
  CHECK(error_of(
            [] {
              (void)from_vector<bool>({true}, {2, 2});
            },
            ErrorCode::Shape) ==
        "from_vector: 1 values given for shape [2, 2], which has 4 elements");
  CHECK(error_of(
            [] {
              (void)from_vector<float>({1, 2, 3}, {2});
            },
            ErrorCode::Shape) == "from_vector: 3 values given for shape [2], which has 2 elements");
  CHECK(error_of([] { (void)from_vector<float>({1}, {-1}); }, ErrorCode::InvalidArgument) ==
        "from_vector: shape [-1] has negative size -1 at dim 0");
  CHECK(error_of(
            [] {
              (void)from_vector<float>({1}, {kMax, 4});
            },
            ErrorCode::InvalidArgument) ==
        "from_vector: shape [9223372036854775807, 4] has more elements than int64 can count");
  CHECK(from_vector<float>({}, {0, 3}).numel() == 0);
  CHECK(to_vector<float>(from_vector<float>({1, 2, 3, 4}, {2, 2})) ==
        std::vector<float>{1, 2, 3, 4});
}

TEST_CASE("an allocation larger than the device is a clean out-of-memory error") {
  // 4 TiB of f32: more than any machine that runs these tests has. The message names the
  // device, the bytes asked for and the free memory (torch: "DefaultCPUAllocator: can't
  // allocate memory: you tried to allocate 4398046511104 bytes").
  const int64_t n = int64_t{1} << 40;
  for (const Device device : {cpu_device(), kRefDevice}) {
    INFO(device.str());
    const std::string message =
        error_of([&] { (void)empty({n}, ScalarType::Float32, device); }, ErrorCode::OutOfMemory);
    INFO(message);
    CHECK(message.starts_with(fmt::format(
        "out of memory on {} allocating 4398046511104 bytes (device memory: ", device.str())));
    // The plugin's own reason: the request is more than the host has, with what is free.
    CHECK(contains(message, fmt::format("): {}: cannot allocate 4398046511104 bytes: more than "
                                        "the host's ",
                                        device_type_name(device.type))));
    CHECK(contains(message, " bytes free)"));
    // And the device still works.
    const Tensor a = from_vector<float>({1, 2}, {2}, device);
    CHECK(to_vector<float>(add(a, a)) == std::vector<float>{2, 4});
  }
}

TEST_CASE("a view reaching past its storage is an error naming the op and its geometry") {
  const Tensor x = zeros({10});
  // torch: "setStorage: sizes [5], strides [3], storage offset 0, and itemsize 4 requiring
  // a storage size of 52 are out of bounds for storage of size 40".
  CHECK(error_of([&] { (void)x.as_strided({5}, {3}); }, ErrorCode::InvalidArgument) ==
        "as_strided: sizes [5], strides [3] and offset 0 of f32 reach byte 52 but the storage "
        "has 40 bytes");
  CHECK(error_of([&] { (void)x.as_strided({2}, {1}, 9); }, ErrorCode::InvalidArgument) ==
        "as_strided: sizes [2], strides [1] and offset 9 of f32 reach byte 44 but the storage "
        "has 40 bytes");
  // A view of a view is checked against the whole storage, not the view.
  const Tensor tail = x.narrow(0, 6, 4);
  CHECK(tail.as_strided({4}, {1}, 6).numel() == 4);
  CHECK(error_of([&] { (void)tail.as_strided({5}, {1}); }, ErrorCode::InvalidArgument) ==
        "as_strided: sizes [5], strides [1] and offset 6 of f32 reach byte 44 but the storage "
        "has 40 bytes");
  CHECK(error_of([&] { (void)x.narrow(0, 8, 5); }, ErrorCode::Index) ==
        "narrow: start 8 + length 5 exceeds the size 10 of dim 0");
}

TEST_CASE("views of an empty tensor with huge strides stay defined") {
  // An empty view may carry any strides (nothing is read); the views derived from it must
  // not overflow computing theirs (undefined behaviour, caught by UBSan in the asan build).
  const Tensor x = zeros({4});
  const Tensor e = x.as_strided({5, 0}, {kMax, 1});
  // 5 * kMax: the stride of the new outer dim.
  CHECK(e.unsqueeze(0).sizes() == Shape{1, 5, 0});
  CHECK(e.expand({1, 5, 0}).sizes() == Shape{1, 5, 0});
  CHECK(e.expand({2, 5, 0}).sizes() == Shape{2, 5, 0});
}

TEST_CASE("an in-place op whose input overlaps the written tensor reads the input first") {
  // PyTorch raises "unsupported operation: some elements of the input tensor and the
  // written-to tensor refer to a single memory location" for a partial overlap; Backplane
  // computes it through a temporary (docs/dispatch.md, "Outputs"), so the result is as if
  // every input was read before anything was written, on every backend and path.
  for (const Device device : {kRefDevice, cpu_device()}) {
    INFO(device.str());
    // Written shifted one element up from its input: an element-by-element kernel would
    // read what it just wrote.
    Tensor x = from_vector<float>({0, 1, 2, 3, 4}, {5}, device);
    Tensor up = x.narrow(0, 1, 4);
    add_(up, x.narrow(0, 0, 4));
    CHECK(to_vector<float>(x) == std::vector<float>{0, 1, 3, 5, 7});
    Tensor y = from_vector<float>({0, 1, 2, 3, 4}, {5}, device);
    Tensor down = y.narrow(0, 0, 4);
    add_(down, y.narrow(0, 1, 4));
    CHECK(to_vector<float>(y) == std::vector<float>{1, 3, 5, 7, 4});
    // An out that partly overlaps both inputs.
    Tensor z = from_vector<float>({0, 1, 2, 3, 4}, {5}, device);
    Tensor out = z.narrow(0, 1, 4);
    add_out(out, z.narrow(0, 0, 4), z.narrow(0, 0, 4));
    CHECK(to_vector<float>(z) == std::vector<float>{0, 0, 2, 4, 6});
    // The identical view is a plain in-place op.
    Tensor w = from_vector<float>({1, 2}, {2}, device);
    add_(w, w);
    CHECK(to_vector<float>(w) == std::vector<float>{2, 4});
  }
}

TEST_CASE("writing to a tensor whose elements share memory (expanded) is an error") {
  // torch: "unsupported operation: more than one element of the written-to tensor refers to
  // a single memory location. Please clone() the tensor before performing the operation."
  for (const Device device : {kRefDevice, cpu_device()}) {
    INFO(device.str());
    const Tensor z = zeros({1}, ScalarType::Float32, device);
    const Tensor four = ones({4}, ScalarType::Float32, device);
    Tensor expanded = z.expand({4});
    CHECK(error_of([&] { add_(expanded, four); }, ErrorCode::InvalidArgument) ==
          fmt::format("add.Tensor: argument 'self' (Tensor[f32, [4], {}]) has a dim of size 4 "
                      "with stride 0, so several of its elements share one memory location; "
                      "write to a contiguous copy instead",
                      device.str()));
    CHECK(error_of([&] { add_out(expanded, four, four); }, ErrorCode::InvalidArgument) ==
          fmt::format("add.Tensor: argument 'out' (Tensor[f32, [4], {}]) has a dim of size 4 "
                      "with stride 0, so several of its elements share one memory location; "
                      "write to a contiguous copy instead",
                      device.str()));
    // An out of another dtype (the kernel would write a temporary then copied into it).
    Tensor expanded_f64 = zeros({1}, ScalarType::Float64, device).expand({4});
    CHECK(contains(error_of([&] { add_out(expanded_f64, four, four); }, ErrorCode::InvalidArgument),
                   "add.Tensor: argument 'out' (Tensor[f64, [4], "));
    // copy_ has its own check in core, in the same words.
    CHECK(error_of([&] { copy_(expanded, four); }, ErrorCode::InvalidArgument) ==
          fmt::format("copy_: argument 'self' (Tensor[f32, [4], {}]) has a dim of size 4 with "
                      "stride 0, so several of its elements share one memory location; write "
                      "to a contiguous copy instead",
                      device.str()));
    // Nothing was written.
    CHECK(to_vector<float>(z) == std::vector<float>{0});
    // Reading an expanded tensor is fine, and so is an expanded size-1 dim.
    CHECK(to_vector<float>(add(expanded, four)) == std::vector<float>{1, 1, 1, 1});
    // fill_ writes one value to every element: allowed through an expanded view, as in
    // PyTorch.
    fill_(expanded, 3);
    CHECK(to_vector<float>(z) == std::vector<float>{3});
    Tensor single = z.expand({1});
    add_(single, ones({1}, ScalarType::Float32, device));
    CHECK(to_vector<float>(z) == std::vector<float>{4});
  }
}

}  // namespace bp::test
