// bp_reference_eval: runs operator calls on the reference backend for the differential test
// against PyTorch (tests/differential/test_reference_vs_torch.py). It reads one JSON case per
// line on stdin and writes one JSON result per line on stdout, so that PyTorch, in the test,
// computes the expected outputs of the very same inputs at test time.
//
// A case:   {"id": "...", "op": "add.Tensor", "args": [ARG, ...]}
// An ARG is one of
//   {"tensor": {"dtype": "f32", "shape": [..], "strides": [..], "offset": 0,
//               "storage": "<hex bytes>"}}    a strided view of a 1-D storage
//   {"tensors": [TENSOR, ...]}  {"scalar": NUMBER}  {"int": 3}  {"float": NUMBER}
//   {"bool": true}  {"ints": [..]}  {"str": ".."}  {"dtype": "f32"}  {"device": "reference:0"}
//   {"none": true}
// and a NUMBER is {"int": 3}, {"bool": true} or {"float": "<C99 hex float, inf or nan>"}, so
// that NaN, infinities and -0.0 travel exactly. A result is
//   {"id": "...", "outputs": [{"dtype": "f32", "shape": [..], "data": "<hex, row-major>"}]}
// or {"id": "...", "error": "<message>", "code": "<ErrorCode>"}. A mutating op (copy_,
// fill_) returns its mutated argument. `bp_reference_eval --list-ops` prints the name of
// every op of the catalog, one per line, so the test can check that it covers them all.
#include <backplane/backplane.hpp>
#include <backplane/dispatch/dispatcher.hpp>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

namespace {

using nlohmann::json;

const bp::Device kRef{bp::device_types::Reference, 0};

std::vector<unsigned char> from_hex(const std::string& hex) {
  std::vector<unsigned char> bytes(hex.size() / 2);
  for (size_t i = 0; i < bytes.size(); ++i) {
    bytes[i] = static_cast<unsigned char>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
  }
  return bytes;
}

std::string to_hex(const std::vector<unsigned char>& bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(bytes.size() * 2);
  for (unsigned char b : bytes) {
    hex.push_back(kDigits[b >> 4]);
    hex.push_back(kDigits[b & 15]);
  }
  return hex;
}

bp::ScalarType dtype_from(const json& j) {
  const std::string name = j.get<std::string>();
  const std::optional<bp::ScalarType> t = bp::parse_dtype(name);
  if (!t) throw std::runtime_error("unknown dtype '" + name + "'");
  return *t;
}

double double_from(const json& j) {
  // strtod reads C99 hex floats, "inf", "-inf" and "nan" (Python's float.hex() output).
  const std::string text = j.get<std::string>();
  return std::strtod(text.c_str(), nullptr);
}

bp::Scalar scalar_from(const json& j) {
  if (j.contains("int")) return bp::Scalar(j["int"].get<int64_t>());
  if (j.contains("bool")) return bp::Scalar(j["bool"].get<bool>());
  return bp::Scalar(double_from(j["float"]));
}

// A view with the given sizes, strides and offset over a 1-D storage holding `storage`.
bp::Tensor tensor_from(const json& j) {
  const bp::ScalarType dtype = dtype_from(j["dtype"]);
  const std::vector<unsigned char> bytes = from_hex(j["storage"].get<std::string>());
  const int64_t numel = static_cast<int64_t>(bytes.size() / bp::element_size(dtype));
  const bp::Tensor storage = bp::from_data(bytes.data(), dtype, {&numel, 1}, kRef);
  const std::vector<int64_t> sizes = j["shape"].get<std::vector<int64_t>>();
  const std::vector<int64_t> strides = j["strides"].get<std::vector<int64_t>>();
  return storage.as_strided(sizes, strides, j["offset"].get<int64_t>());
}

bp::IValue arg_from(const json& j) {
  if (j.contains("tensor")) return bp::IValue(tensor_from(j["tensor"]));
  if (j.contains("tensors")) {
    bp::TensorList list;
    for (const json& t : j["tensors"])  // null: a Tensor?[] entry that is None
      list.push_back(t.is_null() ? bp::Tensor() : tensor_from(t));
    return bp::IValue(std::move(list));
  }
  if (j.contains("scalar")) return bp::IValue(scalar_from(j["scalar"]));
  if (j.contains("int")) return bp::IValue(j["int"].get<int64_t>());
  if (j.contains("float")) return bp::IValue(double_from(j["float"]));
  if (j.contains("bool")) return bp::IValue(j["bool"].get<bool>());
  if (j.contains("ints")) {
    const std::vector<int64_t> ints = j["ints"].get<std::vector<int64_t>>();
    return bp::IValue(bp::Shape(ints.begin(), ints.end()));
  }
  if (j.contains("str")) return bp::IValue(j["str"].get<std::string>());
  if (j.contains("dtype")) return bp::IValue(dtype_from(j["dtype"]));
  if (j.contains("device")) return bp::IValue(bp::Device::parse(j["device"].get<std::string>()));
  if (j.contains("none")) return bp::IValue();
  throw std::runtime_error("unknown argument kind: " + j.dump());
}

json output_json(const bp::Tensor& t) {
  std::vector<unsigned char> bytes(static_cast<size_t>(t.numel()) * bp::element_size(t.dtype()));
  bp::copy_to_host(t, bytes.data(), t.dtype());
  return json{{"dtype", std::string(bp::dtype_name(t.dtype()))},
              {"shape", std::vector<int64_t>(t.sizes().begin(), t.sizes().end())},
              {"data", to_hex(bytes)}};
}

json run_case(const json& c) {
  json result{{"id", c["id"]}};
  try {
    std::vector<bp::IValue> args;
    for (const json& a : c["args"]) args.push_back(arg_from(a));
    json outputs = json::array();
    for (const bp::Tensor& t : bp::call(c["op"].get<std::string>(), std::move(args))) {
      outputs.push_back(output_json(t));
    }
    result["outputs"] = std::move(outputs);
  } catch (const bp::Error& e) {
    result["error"] = e.what();
    result["code"] = std::string(bp::to_string(e.code()));
  } catch (const std::exception& e) {
    // A case this program cannot read: the test reports it as a harness bug, not a result.
    result["error"] = e.what();
    result["code"] = "harness";
  }
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "--list-ops") {
    for (const bp::OpDef& op : bp::Catalog::get().ops()) std::cout << op.name << "\n";
    return 0;
  }
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    json c;
    try {
      c = json::parse(line);
    } catch (const json::exception& e) {
      std::cerr << "bp_reference_eval: line is not JSON: " << e.what() << "\n";
      return 2;
    }
    std::cout << run_case(c).dump() << "\n";
  }
  return 0;
}
