// Standalone reproducers of conformance cases (repro.hpp). The program text is assembled
// here from the case's inputs; the part that never changes (loading, comparing, printing)
// is the raw string kProgramBody below, so what a reproducer does can be read in one place.
#include "backplane/conformance/repro.hpp"

#include "backplane/conformance/device_checks.hpp"
#include "backplane/conformance/gradient_checks.hpp"
#include "backplane/conformance/run_case.hpp"
#include "guarded_buffer.hpp"  // storage_extent

#include <backplane/backplane.hpp>

#include <fmt/format.h>

#include <cmath>

namespace bp::conformance {
namespace {

// A C++ string literal of `s` (escaped).
std::string cpp_literal(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += std::string("\\") + c;
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out + "\"";
}

std::string int_list(IntArrayRef values) {
  std::string out = "{";
  for (size_t i = 0; i < values.size(); ++i) out += fmt::format("{}{}", i ? ", " : "", values[i]);
  return out + "}";
}

// A double as an exact C++ literal (hexadecimal floating point; inf and NaN by name).
std::string double_literal(double d) {
  if (std::isnan(d)) return "std::numeric_limits<double>::quiet_NaN()";
  if (std::isinf(d)) return d > 0 ? "kInf" : "-kInf";
  return fmt::format("{:a}", d);
}

// A tensor of the case: the bytes of its storage from element 0 to the last element it
// reaches, and its view (sizes, strides, offset), rebuilt on either device by make_tensor.
std::string tensor_expression(const Tensor& t) {
  const int64_t extent = detail::storage_extent(t.sizes(), t.strides(), t.storage_offset());
  const size_t esize = element_size(t.dtype());
  std::vector<uint8_t> bytes(static_cast<size_t>(extent) * esize);
  if (extent > 0) copy_to_host(t.as_strided({extent}, {1}, 0), bytes.data(), t.dtype());
  std::string hex;
  for (size_t i = 0; i < bytes.size(); ++i)
    hex += fmt::format("{}0x{:02x}", i == 0 ? "" : (i % 16 == 0 ? ",\n        " : ", "), bytes[i]);
  return fmt::format("make_tensor(device, \"{}\", {}, {}, {},\n        std::vector<uint8_t>{{{}}})",
                     dtype_name(t.dtype()), int_list(t.sizes()), int_list(t.strides()),
                     t.storage_offset(), hex);
}

std::string ivalue_expression(const IValue& v) {
  if (v.is_tensor()) return v.tensor().defined() ? tensor_expression(v.tensor()) : "bp::IValue()";
  if (v.is_tensor_list()) {
    std::string out = "bp::TensorList{";
    for (size_t k = 0; k < v.tensor_list().size(); ++k)
      out += (k ? ",\n      " : "") + (v.tensor_list()[k].defined()
                                           ? tensor_expression(v.tensor_list()[k])
                                           : std::string("bp::Tensor()"));  // Tensor?[] None
    return out + "}";
  }
  if (v.is_none()) return "bp::IValue()";
  if (v.is_scalar()) {
    const Scalar s = v.scalar();
    if (s.is_bool()) return fmt::format("bp::Scalar({})", s.to_int() != 0);
    if (s.is_integral()) return fmt::format("bp::Scalar(int64_t{{{}}})", s.to_int());
    return fmt::format("bp::Scalar({})", double_literal(s.to_double()));
  }
  if (v.is_int()) return fmt::format("int64_t{{{}}}", v.to_int());
  if (v.is_int_list()) return fmt::format("bp::Shape{}", int_list(v.int_list()));
  if (v.is_double()) return double_literal(v.to_double());
  if (v.is_bool()) return v.to_bool() ? "true" : "false";
  if (v.is_dtype()) return fmt::format("*bp::parse_dtype(\"{}\")", dtype_name(v.dtype()));
  if (v.is_string()) return fmt::format("std::string({})", cpp_literal(v.string()));
  if (v.is_device()) return "device";
  BP_FAIL(ErrorCode::Internal, "--emit-repro: an argument of kind {} cannot be written",
          v.kind_name());
}

// How a reproducer rebuilds a tensor: before its arguments in repro.cpp.
constexpr const char* kMakeTensor =
    R"(// A tensor on `device` with the case's exact storage bytes and view.
bp::Tensor make_tensor(bp::Device device, const char* dtype, std::vector<int64_t> sizes,
                       std::vector<int64_t> strides, int64_t offset,
                       const std::vector<uint8_t>& storage) {
  const bp::ScalarType type = *bp::parse_dtype(dtype);
  const auto elements = static_cast<int64_t>(storage.size() / bp::element_size(type));
  const bp::Tensor base = bp::from_data(storage.data(), type, {elements}, device);
  return base.as_strided(sizes, strides, offset);
}
)";

// What every reproducer does with its arguments: after them in repro.cpp.
constexpr const char* kProgramBody = R"(
// The distance allowed between a device value and a finite reference value `want`.
double allowed(const Tolerance& tol, double want) {
  if (tol.exact) return 0.0;
  const double ulp = std::ldexp(1.0, std::ilogb(std::max(std::fabs(want), tol.tiny)) - tol.digits);
  return std::max(tol.atol + tol.rtol * std::fabs(want), tol.max_ulp * ulp);
}

int compare(size_t output, const bp::Tensor& got, const bp::Tensor& want, const Tolerance& tol) {
  if (got.sizes() != want.sizes() || got.dtype() != want.dtype()) {
    std::printf("output %zu: got %s of shape %s, the reference %s of shape %s\n", output,
                std::string(bp::dtype_name(got.dtype())).c_str(),
                bp::shape_str(got.sizes()).c_str(),
                std::string(bp::dtype_name(want.dtype())).c_str(),
                bp::shape_str(want.sizes()).c_str());
    return 1;
  }
  size_t bad = 0;
  if (!bp::is_floating(want.dtype())) {  // integers and bools: exact, over the int64 range
    const std::vector<int64_t> g = bp::to_vector<int64_t>(bp::to(got, kReference));
    const std::vector<int64_t> w = bp::to_vector<int64_t>(want);
    for (size_t i = 0; i < w.size(); ++i)
      if (g[i] != w[i] && bad++ == 0)
        std::printf("output %zu: element %zu (row-major) is %lld on the device, %lld on the "
                    "reference (exact)\n",
                    output, i, static_cast<long long>(g[i]), static_cast<long long>(w[i]));
    if (bad > 0) std::printf("output %zu: %zu of %zu elements differ\n", output, bad, w.size());
    return bad > 0 ? 1 : 0;
  }
  const std::vector<double> g = bp::to_vector<double>(bp::to(got, kReference));
  const std::vector<double> w = bp::to_vector<double>(want);
  for (size_t i = 0; i < w.size(); ++i) {
    const bool ok = std::isnan(w[i]) || std::isnan(g[i])
                        ? std::isnan(w[i]) && std::isnan(g[i])
                        : (std::isinf(w[i]) || std::isinf(g[i]))
                              ? g[i] == w[i]
                          : (tol.signed_zeros && g[i] == 0.0 && w[i] == 0.0)
                              ? std::signbit(g[i]) == std::signbit(w[i])
                              : std::fabs(g[i] - w[i]) <= allowed(tol, w[i]);
    if (ok) continue;
    if (bad++ == 0)
      std::printf("output %zu: element %zu (row-major) is %.17g on the device, %.17g on the "
                  "reference (allowed |diff| %g)\n",
                  output, i, g[i], w[i], std::isfinite(w[i]) ? allowed(tol, w[i]) : 0.0);
  }
  if (bad > 0) std::printf("output %zu: %zu of %zu elements differ\n", output, bad, w.size());
  return bad > 0 ? 1 : 0;
}

}  // namespace

int main() {
  if (kCpuIsa[0] != '\0') ::setenv("BACKPLANE_CPU_ISA", kCpuIsa, /*overwrite=*/0);
  try {
    for (const char* path : kPlugins) {
      const bp::PluginLoadReport r = bp::load_plugin(path);
      if (r.status != bp::LoadStatus::Loaded) {
        std::printf("%s: %s (%s)\n", path, std::string(bp::to_string(r.status)).c_str(),
                    r.message.c_str());
        return 2;
      }
    }
    const bp::Device device = bp::Device::parse(kDevice);
    std::printf("case %s (seed %s) on %s\n", kCase, kSeed, kDevice);
    if (kExpectError[0] != '\0') {
      try {
        (void)bp::call(kOp, arguments(device));
      } catch (const bp::Error& e) {
        const bool same = std::string(e.what()).find(kExpectError) != std::string::npos;
        std::printf("%s: %s\n", same ? "rejected as every backend must" : "rejected with another "
                    "error", e.what());
        return same ? 0 : 1;
      }
      std::printf("accepted an input every backend must reject (expected an error containing "
                  "'%s')\n", kExpectError);
      return 1;
    }
    const std::vector<bp::Tensor> want = bp::call(kOp, arguments(kReference));
    std::vector<bp::Tensor> got;
    try {
      got = bp::call(kOp, arguments(device));
    } catch (const bp::Error& e) {
      std::printf("the device raised an error the reference does not: %s\n", e.what());
      return 1;
    }
    int status = got.size() == want.size() ? 0 : 1;
    for (size_t i = 0; i < std::min(got.size(), want.size()); ++i)
      status |= compare(i, got[i], want[i], kTolerances[i]);
    std::printf("%s\n", status == 0 ? "the device agrees with the reference"
                                    : "the device does not agree with the reference");
    return status;
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
    return 2;
  }
}
)";

// Mantissa digits and the smallest normal of a floating dtype (the ULP of a value is
// 2^(exponent - digits)); for the others, values compare exactly.
std::pair<int, double> ulp_shape(ScalarType dtype) {
  switch (dtype) {
    case ScalarType::Float16:
      return {10, 0x1p-14};
    case ScalarType::BFloat16:
      return {7, 0x1p-126};
    case ScalarType::Float32:
      return {23, 0x1p-126};
    default:
      return {52, 0x1p-1022};
  }
}

// The program's opening comment (how to build and run it) and its includes.
std::string source_header(const CaseId& id, uint64_t suite_seed, const ReproTarget& target,
                          const CaseInputs& in) {
  return fmt::format(
      "// Reproducer of the conformance case {} (seed {}) on {}, written by `backplane "
      "conformance\n"
      "// --emit-repro`. Build it against an installed Backplane and run it:\n"
      "//   cmake -S . -B build -DCMAKE_PREFIX_PATH=<Backplane install prefix>\n"
      "//   cmake --build build && build/repro\n"
      "// It calls {} on the device and on the reference backend with the case's inputs\n"
      "// (exact bytes, sizes, strides and offsets) and compares the outputs under the case's\n"
      "// tolerance. Exit status: 0 the device agrees, 1 it does not, 2 it could not run.\n"
      "//   {}\n"
      "#include <backplane/backplane.hpp>\n#include <backplane/dispatch/dispatcher.hpp>\n\n"
      "#include <algorithm>\n#include <cmath>\n#include <cstdint>\n#include <cstdio>\n"
      "#include <cstdlib>\n#include <limits>\n#include <string>\n#include <vector>\n\n"
      "namespace {{\n\n",
      id.str(), suite_seed, target.device, in.op->name, in.op->schema.str());
}

// What the case runs where: plugins, device, case id, seed, op, CPU ISA, expected error.
std::string case_constants(const CaseId& id, uint64_t suite_seed, const ReproTarget& target,
                           const CaseInputs& in) {
  std::string src = "constexpr const char* kPlugins[] = {";
  for (size_t i = 0; i < target.plugin_files.size(); ++i)
    src += (i ? ", " : "") + cpp_literal(target.plugin_files[i]);
  if (target.plugin_files.empty()) src += "nullptr";
  src += "};\n";
  src += fmt::format(
      "constexpr const char* kDevice = {};\nconstexpr const char* kCase = {};\n"
      "constexpr const char* kSeed = \"{}\";\nconstexpr const char* kOp = {};\n"
      "constexpr const char* kCpuIsa = {};\nconstexpr const char* kExpectError = {};\n"
      "constexpr double kInf = std::numeric_limits<double>::infinity();\n"
      "const bp::Device kReference{{bp::device_types::Reference, 0}};\n\n",
      cpp_literal(target.device), cpp_literal(id.str()), suite_seed, cpp_literal(in.op->name),
      cpp_literal(target.cpu_isa), cpp_literal(in.expect_error.value_or("")));
  return src;
}

// The case's tolerance of each output, as a table the program compares with.
std::string tolerance_table(const CaseInputs& in) {
  std::string src =
      "// The case's tolerance of each output (conformance/src/tolerance.cpp): |diff| <= atol +\n"
      "// rtol * |want|, or within max_ulp units in the last place of the output dtype.\n"
      "struct Tolerance {\n  double rtol, atol;\n  int64_t max_ulp;\n  bool exact;\n"
      "  int digits;    // mantissa bits of the output dtype\n"
      "  double tiny;   // its smallest normal\n"
      "  bool signed_zeros;  // exact, and a zero must have the reference's sign\n};\n"
      "const Tolerance kTolerances[] = {";
  for (size_t i = 0; i < in.tolerances.size(); ++i) {
    const Tolerance& t = in.tolerances[i];
    const auto [digits, tiny] = ulp_shape(in.output_dtypes[i]);
    src += fmt::format("{}{{{}, {}, {}, {}, {}, {}, {}}}", i ? ", " : "", double_literal(t.rtol),
                       double_literal(t.atol), t.max_ulp, t.exact ? "true" : "false", digits,
                       double_literal(tiny), t.signed_zeros ? "true" : "false");
  }
  if (in.tolerances.empty()) src += "{0.0, 0.0, 0, true, 0, 0.0, false}";
  src += "};\n\n";
  return src;
}

// arguments(device): the case's inputs, exact, in schema order.
std::string arguments_function(const CaseInputs& in) {
  std::string src =
      "\n// The arguments of the call, in schema order, with every tensor on `device`.\n"
      "std::vector<bp::IValue> arguments(bp::Device device) {\n"
      "  std::vector<bp::IValue> args;\n";
  for (size_t i = 0; i < in.args.size(); ++i)
    src += fmt::format("  // {}\n  args.emplace_back({});\n", in.argument_names[i],
                       ivalue_expression(in.args[i]));
  src += "  (void)device;\n  return args;\n}\n";
  return src;
}

constexpr const char* kReproCMakeLists =
    "# A reproducer of one conformance case (repro.cpp says which), written by `backplane\n"
    "# conformance --emit-repro`; it builds against an installed Backplane package.\n"
    "cmake_minimum_required(VERSION 3.25)\nproject(backplane_repro LANGUAGES CXX)\n"
    "find_package(Backplane 0.1 REQUIRED)\nadd_executable(repro repro.cpp)\n"
    "target_link_libraries(repro PRIVATE Backplane::backplane)\n";

}  // namespace

std::string repro_folder_name(const CaseId& id) {
  return id.op + "__" + id.dtype + "__" + id.sample;
}

ReproFiles make_repro(const CaseId& id, uint64_t suite_seed, const ReproTarget& target) {
  BP_CHECK(id.op != kDeviceApiOp, ErrorCode::InvalidArgument,
           "--emit-repro: '{}' is a device-API check, which has no op to call; rerun it with "
           "--case",
           id.str());
  BP_CHECK(id.op != kGradientCheckOp, ErrorCode::InvalidArgument,
           "--emit-repro: '{}' is a gradient check, which calls several ops; rerun it with "
           "--case",
           id.str());
  const CaseInputs in = make_case_inputs(id, suite_seed);
  const std::string src = source_header(id, suite_seed, target, in) +
                          case_constants(id, suite_seed, target, in) + tolerance_table(in) +
                          kMakeTensor + arguments_function(in) + kProgramBody;
  return {kReproCMakeLists, src};
}

}  // namespace bp::conformance
