#include "onednn_convolution.hpp"

#include "onednn.hpp"

#include <dlfcn.h>
#include <dnnl.h>
#include <dnnl_version.h>

#include <array>
#include <cstddef>
#include <map>
#include <memory>
#include <stdexcept>
#include <tuple>
#include <vector>

namespace bp::cpu {
namespace {

#define BP_DNNL_STR2(x) #x
#define BP_DNNL_STR(x) BP_DNNL_STR2(x)

// The C API functions a convolution call uses, looked up by name (the library is opened
// with dlopen, onednn.hpp says why). Each member has the header's declared type.
#define BP_DNNL_CONV_FUNCTIONS(X)                     \
  X(dnnl_engine_create)                               \
  X(dnnl_stream_create)                               \
  X(dnnl_stream_wait)                                 \
  X(dnnl_stream_destroy)                              \
  X(dnnl_memory_desc_init_by_tag)                     \
  X(dnnl_memory_desc_equal)                           \
  X(dnnl_memory_desc_get_size)                        \
  X(dnnl_memory_create)                               \
  X(dnnl_memory_destroy)                              \
  X(dnnl_primitive_desc_create)                       \
  X(dnnl_primitive_desc_destroy)                      \
  X(dnnl_primitive_desc_query_md)                     \
  X(dnnl_reorder_primitive_desc_create)               \
  X(dnnl_primitive_create)                            \
  X(dnnl_primitive_execute)                           \
  X(dnnl_primitive_destroy)                           \
  X(dnnl_dilated_convolution_forward_desc_init)       \
  X(dnnl_dilated_convolution_backward_data_desc_init) \
  X(dnnl_dilated_convolution_backward_weights_desc_init)

struct ConvApi {
#define BP_DNNL_MEMBER(name) decltype(&::name) name = nullptr;
  BP_DNNL_CONV_FUNCTIONS(BP_DNNL_MEMBER)
#undef BP_DNNL_MEMBER
  dnnl_engine_t engine = nullptr;  // one CPU engine for the process
  std::string problem;             // why the API is unusable; "" when it is not
};

ConvApi load_api() {
  ConvApi api;
  const OneDnn& library = onednn();  // opens it and applies the ISA cap before any JIT
  if (!library.sgemm) {
    api.problem = library.problem;
    return api;
  }
  const char* soname = "libdnnl.so." BP_DNNL_STR(DNNL_VERSION_MAJOR);
  void* handle = dlopen(soname, RTLD_NOW | RTLD_NOLOAD);
  if (!handle) {
    api.problem = std::string(soname) + " is not loaded: " + dlerror();
    return api;
  }
#define BP_DNNL_LOAD(name)                                              \
  api.name = reinterpret_cast<decltype(&::name)>(dlsym(handle, #name)); \
  if (!api.name) {                                                      \
    api.problem = std::string(soname) + " has no " #name;               \
    return api;                                                         \
  }
  BP_DNNL_CONV_FUNCTIONS(BP_DNNL_LOAD)
#undef BP_DNNL_LOAD
  if (api.dnnl_engine_create(&api.engine, dnnl_cpu, 0) != dnnl_success)
    api.problem = "oneDNN could not create a CPU engine";
  return api;
}

const ConvApi& conv_api() {
  static const ConvApi api = load_api();
  return api;
}

// Buffers for operands in oneDNN's layouts, kept per thread from call to call and grown as
// needed: allocating them afresh on every call cost their page faults, about a fifth of the
// time of a 64-channel 56x56 convolution (perf: the kernel's page-fault path).
class Workspace {
 public:
  static constexpr int kSlots = 3;  // the two operands and the result
  void* get(int slot, size_t bytes) {
    Buffer& b = buffers_[static_cast<size_t>(slot)];
    if (b.capacity < bytes) {
      b.data = std::make_unique<std::byte[]>(bytes + kAlignment);
      b.capacity = bytes;
    }
    const auto address = reinterpret_cast<uintptr_t>(b.data.get());
    return b.data.get() + (kAlignment - address % kAlignment) % kAlignment;
  }

 private:
  static constexpr size_t kAlignment = 64;
  struct Buffer {
    std::unique_ptr<std::byte[]> data;
    size_t capacity = 0;
  };
  std::array<Buffer, kSlots> buffers_;
};

Workspace& thread_workspace() {
  thread_local Workspace workspace;
  return workspace;
}

void check(dnnl_status_t status, const char* what) {
  if (status != dnnl_success)
    throw std::runtime_error(std::string("oneDNN failed to create or run the ") + what +
                             " (status " + std::to_string(static_cast<int>(status)) + ")");
}

// The memory descriptors of one geometry: PyTorch's layouts (user) and "any" (the
// convolution's choice).
struct ConvDescs {
  dnnl_memory_desc_t src, weights, dst, bias, src_any, weights_any, dst_any;
  dnnl_dims_t strides, dilates, padding;
};

void init_descs(const ConvApi& api, const sdk::ConvGeometry& g, ConvDescs& d) {
  const dnnl_dims_t src{g.batch, g.in_channels, g.in_h, g.in_w};
  const dnnl_dims_t dst{g.batch, g.out_channels, g.out_h, g.out_w};
  const dnnl_dims_t plain_weights{g.out_channels, g.in_per_group(), g.kernel_h, g.kernel_w};
  const dnnl_dims_t grouped_weights{g.groups, g.out_per_group(), g.in_per_group(), g.kernel_h,
                                    g.kernel_w};
  const dnnl_dims_t bias{g.out_channels};
  const bool grouped = g.groups > 1;
  const auto init = [&](dnnl_memory_desc_t& md, int ndims, const dnnl_dims_t dims,
                        dnnl_format_tag_t tag) {
    check(api.dnnl_memory_desc_init_by_tag(&md, ndims, dims, dnnl_f32, tag), "memory descriptor");
  };
  init(d.src, 4, src, dnnl_nchw);
  init(d.src_any, 4, src, dnnl_format_tag_any);
  init(d.dst, 4, dst, dnnl_nchw);
  init(d.dst_any, 4, dst, dnnl_format_tag_any);
  init(d.weights, grouped ? 5 : 4, grouped ? grouped_weights : plain_weights,
       grouped ? dnnl_goihw : dnnl_oihw);
  init(d.weights_any, grouped ? 5 : 4, grouped ? grouped_weights : plain_weights,
       dnnl_format_tag_any);
  init(d.bias, 1, bias, dnnl_x);
  // oneDNN counts dilation from 0; symmetric padding gives PyTorch's output size.
  d.strides[0] = g.stride_h, d.strides[1] = g.stride_w;
  d.dilates[0] = g.dilation_h - 1, d.dilates[1] = g.dilation_w - 1;
  d.padding[0] = g.pad_h, d.padding[1] = g.pad_w;
}

// The oneDNN objects of one convolution (direction, geometry, with a bias or not): its
// primitive descriptors, the primitive, and the reorders between PyTorch's layouts and the
// ones the primitive chose. Created on a thread's first call of that convolution and kept
// for its next ones (conv_cache()): creating them on every call cost a few percent of a
// 64-channel 56x56 convolution (oneDNN's primitive cache keeps the generated code, not
// these objects).
class PreparedConv {
 public:
  PreparedConv(const ConvApi& api, ConvDirection direction, const sdk::ConvGeometry& g, bool bias)
      : api_(api) {
    init_descs(api, g, descs_);
    try {
      prepare(direction, bias);
    } catch (...) {
      release();
      throw;
    }
  }
  ~PreparedConv() { release(); }
  PreparedConv(const PreparedConv&) = delete;
  PreparedConv& operator=(const PreparedConv&) = delete;

  // Runs it on `stream` over `b`, reordering through the calling thread's workspace.
  void run(const ConvBuffers& b, dnnl_stream_t stream) const;

 private:
  // One operand: which buffer, its layout in PyTorch's (user) and the primitive's (wanted)
  // form, and the reorder between them (user to wanted for an input, wanted to user for the
  // result), or null when they are the same layout.
  struct Operand {
    int arg = 0;
    const float* ConvBuffers::*input = nullptr;  // null for the result
    const dnnl_memory_desc_t* user = nullptr;
    const dnnl_memory_desc_t* wanted = nullptr;
    dnnl_primitive_t reorder = nullptr;
  };

  void prepare(ConvDirection direction, bool bias);
  dnnl_primitive_desc_t descriptor(const void* op_desc, dnnl_primitive_desc_t hint,
                                   const char* what) {
    dnnl_primitive_desc_t pd = nullptr;
    check(api_.dnnl_primitive_desc_create(&pd, op_desc, nullptr, api_.engine, hint), what);
    descs_created_.push_back(pd);
    return pd;
  }
  dnnl_primitive_t primitive(dnnl_primitive_desc_t pd, const char* what) {
    dnnl_primitive_t p = nullptr;
    check(api_.dnnl_primitive_create(&p, pd), what);
    primitives_.push_back(p);
    return p;
  }
  Operand operand(int arg, const float* ConvBuffers::*input, const dnnl_memory_desc_t& user,
                  dnnl_primitive_desc_t pd, dnnl_query_t query);
  void release() noexcept {
    for (dnnl_primitive_t p : primitives_) api_.dnnl_primitive_destroy(p);
    for (dnnl_primitive_desc_t pd : descs_created_) api_.dnnl_primitive_desc_destroy(pd);
    primitives_.clear();
    descs_created_.clear();
  }

  const ConvApi& api_;
  ConvDescs descs_;
  std::vector<dnnl_primitive_desc_t> descs_created_;
  std::vector<dnnl_primitive_t> primitives_;
  std::vector<Operand> inputs_;
  Operand result_;
  dnnl_primitive_t conv_ = nullptr;
};

PreparedConv::Operand PreparedConv::operand(int arg, const float* ConvBuffers::*input,
                                            const dnnl_memory_desc_t& user,
                                            dnnl_primitive_desc_t pd, dnnl_query_t query) {
  Operand op{arg, input, &user, api_.dnnl_primitive_desc_query_md(pd, query, 0), nullptr};
  if (api_.dnnl_memory_desc_equal(op.user, op.wanted)) return op;
  const dnnl_memory_desc_t* from = input ? op.user : op.wanted;
  const dnnl_memory_desc_t* to = input ? op.wanted : op.user;
  dnnl_primitive_desc_t reorder = nullptr;
  check(api_.dnnl_reorder_primitive_desc_create(&reorder, from, api_.engine, to, api_.engine,
                                                nullptr),
        "reorder");
  descs_created_.push_back(reorder);
  op.reorder = primitive(reorder, "reorder");
  return op;
}

void PreparedConv::prepare(ConvDirection direction, bool bias) {
  const ConvDescs& d = descs_;
  dnnl_convolution_desc_t forward_desc;
  check(
      api_.dnnl_dilated_convolution_forward_desc_init(
          &forward_desc, dnnl_forward_training, dnnl_convolution_direct, &d.src_any, &d.weights_any,
          bias ? &d.bias : nullptr, &d.dst_any, d.strides, d.dilates, d.padding, d.padding),
      "convolution descriptor");
  dnnl_primitive_desc_t pd = descriptor(&forward_desc, nullptr, "forward convolution");
  using B = ConvBuffers;
  if (direction == ConvDirection::kForward) {
    inputs_ = {operand(DNNL_ARG_SRC, &B::src, d.src, pd, dnnl_query_src_md),
               operand(DNNL_ARG_WEIGHTS, &B::weights, d.weights, pd, dnnl_query_weights_md)};
    if (bias) inputs_.push_back({DNNL_ARG_BIAS, &B::bias, &d.bias, &d.bias, nullptr});
    result_ = operand(DNNL_ARG_DST, nullptr, d.dst, pd, dnnl_query_dst_md);
  } else if (direction == ConvDirection::kBackwardData) {
    dnnl_convolution_desc_t desc;
    check(api_.dnnl_dilated_convolution_backward_data_desc_init(
              &desc, dnnl_convolution_direct, &d.src_any, &d.weights_any, &d.dst_any, d.strides,
              d.dilates, d.padding, d.padding),
          "backward data descriptor");
    pd = descriptor(&desc, pd, "backward data convolution");
    inputs_ = {operand(DNNL_ARG_DIFF_DST, &B::diff_dst, d.dst, pd, dnnl_query_diff_dst_md),
               operand(DNNL_ARG_WEIGHTS, &B::weights, d.weights, pd, dnnl_query_weights_md)};
    result_ = operand(DNNL_ARG_DIFF_SRC, nullptr, d.src, pd, dnnl_query_diff_src_md);
  } else {
    dnnl_convolution_desc_t desc;
    check(api_.dnnl_dilated_convolution_backward_weights_desc_init(
              &desc, dnnl_convolution_direct, &d.src_any, &d.weights_any, nullptr, &d.dst_any,
              d.strides, d.dilates, d.padding, d.padding),
          "backward weights descriptor");
    pd = descriptor(&desc, pd, "backward weights convolution");
    inputs_ = {operand(DNNL_ARG_SRC, &B::src, d.src, pd, dnnl_query_src_md),
               operand(DNNL_ARG_DIFF_DST, &B::diff_dst, d.dst, pd, dnnl_query_diff_dst_md)};
    result_ = operand(DNNL_ARG_DIFF_WEIGHTS, nullptr, d.weights, pd, dnnl_query_diff_weights_md);
  }
  conv_ = primitive(pd, "convolution primitive");
}

// The memory objects of one run, destroyed with it.
class RunMemories {
 public:
  explicit RunMemories(const ConvApi& api) : api_(api) {}
  ~RunMemories() {
    for (dnnl_memory_t m : memories_) api_.dnnl_memory_destroy(m);
  }
  RunMemories(const RunMemories&) = delete;
  RunMemories& operator=(const RunMemories&) = delete;
  dnnl_memory_t make(const dnnl_memory_desc_t* md, void* data) {
    dnnl_memory_t m = nullptr;
    check(api_.dnnl_memory_create(&m, md, api_.engine, data), "memory");
    memories_.push_back(m);
    return m;
  }
  // A memory of layout `md` in the next slot of the thread's workspace.
  dnnl_memory_t scratch(const dnnl_memory_desc_t* md) {
    if (next_slot_ == Workspace::kSlots) throw std::runtime_error("more than 3 reordered operands");
    return make(md, thread_workspace().get(next_slot_++, api_.dnnl_memory_desc_get_size(md)));
  }

 private:
  const ConvApi& api_;
  std::vector<dnnl_memory_t> memories_;
  int next_slot_ = 0;
};

void PreparedConv::run(const ConvBuffers& b, dnnl_stream_t stream) const {
  RunMemories memories(api_);
  auto execute = [&](dnnl_primitive_t p, const std::vector<dnnl_exec_arg_t>& args) {
    check(api_.dnnl_primitive_execute(p, stream, static_cast<int>(args.size()), args.data()),
          "convolution");
  };
  std::vector<dnnl_exec_arg_t> args;
  for (const Operand& op : inputs_) {
    dnnl_memory_t user = memories.make(op.user, const_cast<float*>(b.*op.input));
    if (!op.reorder) {
      args.push_back({op.arg, user});
      continue;
    }
    dnnl_memory_t inner = memories.scratch(op.wanted);
    execute(op.reorder, {{DNNL_ARG_FROM, user}, {DNNL_ARG_TO, inner}});
    args.push_back({op.arg, inner});
  }
  dnnl_memory_t user_result = memories.make(result_.user, b.result);
  dnnl_memory_t result = result_.reorder ? memories.scratch(result_.wanted) : user_result;
  args.push_back({result_.arg, result});
  execute(conv_, args);
  if (result_.reorder)
    execute(result_.reorder, {{DNNL_ARG_FROM, result}, {DNNL_ARG_TO, user_result}});
  check(api_.dnnl_stream_wait(stream), "stream wait");
}

// The calling thread's prepared convolutions by (direction, bias, geometry), and its
// stream. Bounded: a program of many shapes starts over rather than growing without end.
struct ConvCache {
  static constexpr size_t kMaxEntries = 64;
  using Key = std::tuple<ConvDirection, bool, sdk::ConvGeometry>;
  std::map<Key, std::unique_ptr<PreparedConv>> prepared;
  dnnl_stream_t stream = nullptr;
  const ConvApi* api = nullptr;
  ~ConvCache() {
    prepared.clear();
    if (stream) api->dnnl_stream_destroy(stream);
  }
};

ConvCache& conv_cache() {
  thread_local ConvCache cache;
  return cache;
}

const PreparedConv& prepared_conv(const ConvApi& api, ConvDirection direction,
                                  const sdk::ConvGeometry& g, bool bias) {
  ConvCache& cache = conv_cache();
  const ConvCache::Key key{direction, bias, g};
  if (auto it = cache.prepared.find(key); it != cache.prepared.end()) return *it->second;
  if (cache.prepared.size() >= ConvCache::kMaxEntries) cache.prepared.clear();
  auto prepared = std::make_unique<PreparedConv>(api, direction, g, bias);
  return *cache.prepared.emplace(key, std::move(prepared)).first->second;
}

dnnl_stream_t thread_stream(const ConvApi& api) {
  ConvCache& cache = conv_cache();
  if (!cache.stream) {
    check(api.dnnl_stream_create(&cache.stream, api.engine, dnnl_stream_default_flags), "stream");
    cache.api = &api;
  }
  return cache.stream;
}

}  // namespace

std::string onednn_convolution(ConvDirection direction, const sdk::ConvGeometry& g,
                               const ConvBuffers& buffers) {
  const ConvApi& api = conv_api();
  if (!api.problem.empty()) return api.problem;
  try {
    const bool bias = direction == ConvDirection::kForward && buffers.bias != nullptr;
    prepared_conv(api, direction, g, bias).run(buffers, thread_stream(api));
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace bp::cpu
