#include "onednn_convolution.hpp"

#include "onednn.hpp"

#include <dlfcn.h>
#include <dnnl.h>
#include <dnnl_version.h>

#include <array>
#include <cstddef>
#include <memory>
#include <stdexcept>
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

// Everything one convolution call creates, destroyed with it. Operands in PyTorch's layout
// are reordered into the layouts the convolution chose (on the call's in-order stream,
// before the convolution) and the result back after it (finish()).
class ConvCall {
 public:
  explicit ConvCall(const ConvApi& api) : api_(api) {
    check(api_.dnnl_stream_create(&stream_, api_.engine, dnnl_stream_default_flags), "stream");
  }
  ~ConvCall() {
    for (dnnl_primitive_t p : primitives_) api_.dnnl_primitive_destroy(p);
    for (dnnl_primitive_desc_t pd : descs_) api_.dnnl_primitive_desc_destroy(pd);
    for (dnnl_memory_t m : memories_) api_.dnnl_memory_destroy(m);
    if (stream_) api_.dnnl_stream_destroy(stream_);
  }
  ConvCall(const ConvCall&) = delete;
  ConvCall& operator=(const ConvCall&) = delete;

  static void check(dnnl_status_t status, const char* what) {
    if (status != dnnl_success)
      throw std::runtime_error(std::string("oneDNN failed to create or run the ") + what +
                               " (status " + std::to_string(static_cast<int>(status)) + ")");
  }
  dnnl_primitive_desc_t descriptor(const void* op_desc, dnnl_primitive_desc_t hint,
                                   const char* what) {
    dnnl_primitive_desc_t pd = nullptr;
    check(api_.dnnl_primitive_desc_create(&pd, op_desc, nullptr, api_.engine, hint), what);
    descs_.push_back(pd);
    return pd;
  }
  const dnnl_memory_desc_t* query(dnnl_primitive_desc_t pd, dnnl_query_t what) const {
    return api_.dnnl_primitive_desc_query_md(pd, what, 0);
  }
  dnnl_memory_t memory(const dnnl_memory_desc_t* md, void* handle) {
    dnnl_memory_t m = nullptr;
    check(api_.dnnl_memory_create(&m, md, api_.engine, handle), "memory");
    memories_.push_back(m);
    return m;
  }
  // `data` (layout `user`) as a memory of layout `wanted`, reordered now when they differ.
  dnnl_memory_t operand(const dnnl_memory_desc_t& user, const float* data,
                        const dnnl_memory_desc_t* wanted) {
    dnnl_memory_t user_memory = memory(&user, const_cast<float*>(data));
    if (api_.dnnl_memory_desc_equal(&user, wanted)) return user_memory;
    dnnl_memory_t inner = memory(wanted, scratch(wanted));
    reorder(user_memory, &user, inner, wanted);
    return inner;
  }
  // A memory of layout `wanted` for a result that finish() reorders into `data` (`user`).
  dnnl_memory_t result(const dnnl_memory_desc_t& user, float* data,
                       const dnnl_memory_desc_t* wanted) {
    dnnl_memory_t user_memory = memory(&user, data);
    if (api_.dnnl_memory_desc_equal(&user, wanted)) return user_memory;
    dnnl_memory_t inner = memory(wanted, scratch(wanted));
    pending_ = {inner, wanted, user_memory, &user};
    return inner;
  }
  void execute(dnnl_primitive_desc_t pd, const std::vector<dnnl_exec_arg_t>& args) {
    dnnl_primitive_t p = nullptr;
    check(api_.dnnl_primitive_create(&p, pd), "convolution primitive");
    primitives_.push_back(p);
    check(api_.dnnl_primitive_execute(p, stream_, static_cast<int>(args.size()), args.data()),
          "convolution");
  }
  void finish() {
    if (pending_.from) reorder(pending_.from, pending_.from_md, pending_.to, pending_.to_md);
    check(api_.dnnl_stream_wait(stream_), "stream wait");
  }

 private:
  // The next free workspace slot, of the size of `md`.
  void* scratch(const dnnl_memory_desc_t* md) {
    if (next_slot_ == Workspace::kSlots) throw std::runtime_error("more than 3 reordered operands");
    return thread_workspace().get(next_slot_++, api_.dnnl_memory_desc_get_size(md));
  }

  void reorder(dnnl_memory_t from, const dnnl_memory_desc_t* from_md, dnnl_memory_t to,
               const dnnl_memory_desc_t* to_md) {
    dnnl_primitive_desc_t pd = nullptr;
    check(api_.dnnl_reorder_primitive_desc_create(&pd, from_md, api_.engine, to_md, api_.engine,
                                                  nullptr),
          "reorder");
    descs_.push_back(pd);
    dnnl_primitive_t p = nullptr;
    check(api_.dnnl_primitive_create(&p, pd), "reorder");
    primitives_.push_back(p);
    const dnnl_exec_arg_t args[] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
    check(api_.dnnl_primitive_execute(p, stream_, 2, args), "reorder");
  }

  struct Reorder {
    dnnl_memory_t from = nullptr;
    const dnnl_memory_desc_t* from_md = nullptr;
    dnnl_memory_t to = nullptr;
    const dnnl_memory_desc_t* to_md = nullptr;
  };
  const ConvApi& api_;
  dnnl_stream_t stream_ = nullptr;
  std::vector<dnnl_primitive_t> primitives_;
  std::vector<dnnl_primitive_desc_t> descs_;
  std::vector<dnnl_memory_t> memories_;
  Reorder pending_;
  int next_slot_ = 0;
};

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
    ConvCall::check(api.dnnl_memory_desc_init_by_tag(&md, ndims, dims, dnnl_f32, tag),
                    "memory descriptor");
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

void run(ConvCall& call, const ConvApi& api, ConvDirection direction, const ConvDescs& d,
         const ConvBuffers& b) {
  dnnl_convolution_desc_t forward_desc;
  ConvCall::check(
      api.dnnl_dilated_convolution_forward_desc_init(
          &forward_desc, dnnl_forward_training, dnnl_convolution_direct, &d.src_any, &d.weights_any,
          b.bias ? &d.bias : nullptr, &d.dst_any, d.strides, d.dilates, d.padding, d.padding),
      "convolution descriptor");
  dnnl_primitive_desc_t forward = call.descriptor(&forward_desc, nullptr, "forward convolution");
  if (direction == ConvDirection::kForward) {
    std::vector<dnnl_exec_arg_t> args{
        {DNNL_ARG_SRC, call.operand(d.src, b.src, call.query(forward, dnnl_query_src_md))},
        {DNNL_ARG_WEIGHTS,
         call.operand(d.weights, b.weights, call.query(forward, dnnl_query_weights_md))},
        {DNNL_ARG_DST, call.result(d.dst, b.result, call.query(forward, dnnl_query_dst_md))}};
    if (b.bias) args.push_back({DNNL_ARG_BIAS, call.memory(&d.bias, const_cast<float*>(b.bias))});
    call.execute(forward, args);
    return;
  }
  dnnl_convolution_desc_t desc;
  if (direction == ConvDirection::kBackwardData) {
    ConvCall::check(api.dnnl_dilated_convolution_backward_data_desc_init(
                        &desc, dnnl_convolution_direct, &d.src_any, &d.weights_any, &d.dst_any,
                        d.strides, d.dilates, d.padding, d.padding),
                    "backward data descriptor");
    dnnl_primitive_desc_t pd = call.descriptor(&desc, forward, "backward data convolution");
    call.execute(pd, {{DNNL_ARG_DIFF_DST,
                       call.operand(d.dst, b.diff_dst, call.query(pd, dnnl_query_diff_dst_md))},
                      {DNNL_ARG_WEIGHTS,
                       call.operand(d.weights, b.weights, call.query(pd, dnnl_query_weights_md))},
                      {DNNL_ARG_DIFF_SRC,
                       call.result(d.src, b.result, call.query(pd, dnnl_query_diff_src_md))}});
    return;
  }
  ConvCall::check(api.dnnl_dilated_convolution_backward_weights_desc_init(
                      &desc, dnnl_convolution_direct, &d.src_any, &d.weights_any, nullptr,
                      &d.dst_any, d.strides, d.dilates, d.padding, d.padding),
                  "backward weights descriptor");
  dnnl_primitive_desc_t pd = call.descriptor(&desc, forward, "backward weights convolution");
  call.execute(
      pd,
      {{DNNL_ARG_SRC, call.operand(d.src, b.src, call.query(pd, dnnl_query_src_md))},
       {DNNL_ARG_DIFF_DST, call.operand(d.dst, b.diff_dst, call.query(pd, dnnl_query_diff_dst_md))},
       {DNNL_ARG_DIFF_WEIGHTS,
        call.result(d.weights, b.result, call.query(pd, dnnl_query_diff_weights_md))}});
}

}  // namespace

std::string onednn_convolution(ConvDirection direction, const sdk::ConvGeometry& g,
                               const ConvBuffers& buffers) {
  const ConvApi& api = conv_api();
  if (!api.problem.empty()) return api.problem;
  try {
    ConvDescs descs;
    init_descs(api, g, descs);
    ConvCall call(api);
    run(call, api, direction, descs, buffers);
    call.finish();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace bp::cpu
