// Tracing (trace.hpp, trace_impl.hpp): the event buffer, and writing it as a Chrome trace
// event file (JSON, written by hand: the runtime links no JSON library).
#include "backplane/dispatch/trace.hpp"

#include "dispatch_impl.hpp"
#include "layers_impl.hpp"
#include "trace_impl.hpp"

#include "backplane/core/error.hpp"
#include "backplane/dispatch/runtime.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <mutex>
#include <string>
#include <vector>

#include <unistd.h>

namespace bp {
namespace detail {

std::atomic<bool> g_tracing{false};

namespace {

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// A small number per thread, in the order threads first record an event.
uint32_t thread_number() {
  static std::atomic<uint32_t> next{1};
  thread_local const uint32_t tid = next.fetch_add(1, std::memory_order_relaxed);
  return tid;
}

struct Event {
  OpId op = kInvalidOp;
  uint32_t tid = 0;
  int64_t start_ns = 0;  // relative to the trace's start
  int64_t dur_ns = 0;
  CallRecord record;
  std::string inputs;
  std::string error;
};

struct TraceState {
  std::mutex mu;
  std::filesystem::path file;
  // Incremented (under mu) by every start and stop: an event begun in an earlier trace is
  // dropped. Read without the lock when a call begins.
  std::atomic<uint64_t> epoch{0};
  int64_t t0_ns = 0;
  std::string version;
  std::vector<Event> events;
};

TraceState& state() {
  static TraceState s;
  return s;
}

void append_escaped(std::string& out, std::string_view text) {
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20)
          fmt::format_to(std::back_inserter(out), "\\u{:04x}", static_cast<unsigned>(c));
        else
          out += c;
    }
  }
}

std::string_view path_name(CallPath path) {
  switch (path) {
    case CallPath::Kernel:
      return "kernel";
    case CallPath::Composite:
      return "composite";
    case CallPath::Fallback:
      return "fallback";
    case CallPath::Error:
      break;
  }
  return "error";
}

void append_shape(std::string& out, const Tensor& t) {
  if (!t.defined()) {
    out += "null";
    return;
  }
  out += '[';
  bool first = true;
  for (const int64_t size : t.sizes()) {
    if (!first) out += ',';
    first = false;
    char digits[24];
    const auto r = std::to_chars(digits, digits + sizeof digits, size);
    out.append(digits, r.ptr);
  }
  out += ']';
}

void append_dtype(std::string& out, const Tensor& t) {
  if (!t.defined()) {
    out += "null";
    return;
  }
  out += '"';
  out += dtype_name(t.dtype());
  out += '"';
}

// The trace file's text: events sorted by start time (a parent before the calls it makes).
std::string render(std::vector<Event>& events, const std::filesystem::path& file,
                   const std::string& version) {
  std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
    return a.dur_ns > b.dur_ns;
  });
  const Catalog& catalog = Catalog::get();
  const int pid = static_cast<int>(::getpid());
  std::string out = "{\"traceEvents\":[\n";
  auto it = std::back_inserter(out);
  for (size_t i = 0; i < events.size(); ++i) {
    const Event& e = events[i];
    out += "{\"name\":\"";
    append_escaped(out, catalog.at(e.op).name);
    fmt::format_to(it,
                   "\",\"cat\":\"op\",\"ph\":\"X\",\"ts\":{:.3f},\"dur\":{:.3f},\"pid\":{},"
                   "\"tid\":{},\"args\":{{",
                   static_cast<double>(e.start_ns) / 1000.0, static_cast<double>(e.dur_ns) / 1000.0,
                   pid, e.tid);
    if (e.record.has_device) {
      const std::string backend = device_type_name(e.record.device.type);
      out += "\"device\":\"";
      append_escaped(out, fmt::format("{}:{}", backend, e.record.device.index));
      out += "\",\"backend\":\"";
      append_escaped(out, backend);
      out += "\",";
    } else {
      out += "\"device\":null,\"backend\":null,";
    }
    fmt::format_to(it, "{},\"path\":\"{}\",\"fallback\":{}", e.inputs, path_name(e.record.path),
                   e.record.fallback);
    if (e.record.path == CallPath::Error) {
      out += ",\"error\":\"";
      append_escaped(out, e.error);
      out += '"';
    }
    out += i + 1 < events.size() ? "}},\n" : "}}\n";
  }
  out += "],\n\"displayTimeUnit\":\"ns\",\n\"metadata\":{\"backplane_version\":\"";
  append_escaped(out, version);
  out += "\",\"trace_file\":\"";
  append_escaped(out, file.string());
  fmt::format_to(it, "\",\"events\":{}}}\n}}\n", events.size());
  return out;
}

// Writes `text` to `file`; "" on success, else why not.
std::string write_file(const std::filesystem::path& file, const std::string& text) {
  std::FILE* f = std::fopen(file.c_str(), "wb");
  if (!f) return std::strerror(errno);
  const bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  const int saved = errno;
  const bool closed = std::fclose(f) == 0;
  if (!written) return std::strerror(saved);
  if (!closed) return std::strerror(errno);
  return {};
}

// Stops the trace and takes what it recorded (no events when none was on).
struct Taken {
  bool was_on = false;
  std::filesystem::path file;
  std::string version;
  std::vector<Event> events;
};

Taken take_trace() {
  TraceState& s = state();
  std::lock_guard lock(s.mu);
  Taken t;
  t.was_on = g_tracing.exchange(false);
  if (!t.was_on) return t;
  enable_layer(LayerKey::Tracing, false);
  ++s.epoch;  // calls still running belong to no trace now
  t.file = std::move(s.file);
  t.version = s.version;
  t.events = std::move(s.events);
  s.events = {};
  return t;
}

void write_at_exit() {
  try {
    Taken t = take_trace();
    if (!t.was_on) return;
    const std::string why = write_file(t.file, render(t.events, t.file, t.version));
    if (!why.empty())
      std::fprintf(stderr, "backplane: cannot write trace file '%s': %s\n", t.file.c_str(),
                   why.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "backplane: cannot write trace file: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "backplane: cannot write trace file\n");
  }
}

// The tracing layer's kernel (LayerKey::Tracing, for every op): times the call below it and
// records it, also when it throws. Tracing is the lowest layer, so the backend dispatch
// right below fills in `record` when the call leaves the kernel path.
std::vector<Tensor> trace_layer(LayerCall& call) {
  const OpDef& op = call.op();
  TraceStart start = trace_begin(op, call.args());
  CallRecord record;  // the kernel path unless the dispatch says otherwise
  try {
    // The device the dispatch will pick (computed again here so that the dispatch need not
    // report it); mixed devices are left to the dispatch to report.
    record.device = call_device(op, call.args());
    record.has_device = true;
  } catch (const Error&) {
  }
  LayerAccess::set_record(call, &record);
  std::vector<Tensor> results;
  try {
    results = call.call_below();
  } catch (const std::exception& e) {
    trace_end(op.id, start, record, e.what());
    throw;
  } catch (...) {
    trace_end(op.id, start, record, "unknown exception");
    throw;
  }
  trace_end(op.id, start, record, nullptr);
  return results;
}

}  // namespace

TraceStart trace_begin(const OpDef& op, const std::vector<IValue>& args) {
  TraceStart start;
  start.epoch = state().epoch.load(std::memory_order_acquire);
  // The tensor arguments in schema order (an omitted or None optional tensor: null).
  std::string shapes, dtypes;
  shapes.reserve(96);
  dtypes.reserve(64);
  shapes = "\"shapes\":[";
  dtypes = "],\"dtypes\":[";
  bool first = true;
  for (size_t i = 0; i < op.schema.arguments.size(); ++i) {
    if (op.schema.arguments[i].type.kind != TypeKind::Tensor) continue;
    if (!first) {
      shapes += ',';
      dtypes += ',';
    }
    first = false;
    const IValue none;
    const IValue& v = i < args.size() ? args[i] : none;
    if (v.is_tensor()) {
      append_shape(shapes, v.tensor());
      append_dtype(dtypes, v.tensor());
    } else if (v.is_tensor_list()) {
      shapes += '[';
      dtypes += '[';
      for (size_t j = 0; j < v.tensor_list().size(); ++j) {
        if (j) {
          shapes += ',';
          dtypes += ',';
        }
        append_shape(shapes, v.tensor_list()[j]);
        append_dtype(dtypes, v.tensor_list()[j]);
      }
      shapes += ']';
      dtypes += ']';
    } else {
      shapes += "null";
      dtypes += "null";
    }
  }
  start.inputs = std::move(shapes);
  start.inputs += dtypes;
  start.inputs += ']';
  start.start_ns = now_ns();
  return start;
}

void trace_end(OpId op, TraceStart& start, const CallRecord& record, const char* error) {
  const int64_t end_ns = now_ns();
  Event e;
  e.op = op;
  e.tid = thread_number();
  e.dur_ns = end_ns - start.start_ns;
  e.record = record;
  if (error) {
    e.record.path = CallPath::Error;
    e.error = error;
  }
  e.inputs = std::move(start.inputs);
  TraceState& s = state();
  std::lock_guard lock(s.mu);
  if (!g_tracing.load(std::memory_order_relaxed) || s.epoch.load() != start.epoch ||
      start.start_ns < s.t0_ns)
    return;
  e.start_ns = start.start_ns - s.t0_ns;
  s.events.push_back(std::move(e));
}

}  // namespace detail

void start_trace(const std::filesystem::path& file) {
  using detail::state;
  // What writing at exit uses must be constructed before the handler is registered, so that
  // it is destroyed after the handler runs.
  (void)Catalog::get();
  (void)device_type_name(device_types::Reference);
  detail::TraceState& s = state();
  static const bool registered = [] {
    std::atexit(detail::write_at_exit);
    set_layer_kernel(LayerKey::Tracing, detail::trace_layer);
    return true;
  }();
  (void)registered;
  std::lock_guard lock(s.mu);
  s.file = file;
  s.version = runtime_info().version;
  s.events.clear();
  s.t0_ns = detail::now_ns();
  s.epoch.fetch_add(1, std::memory_order_release);
  detail::g_tracing.store(true);
  enable_layer(LayerKey::Tracing, true);
}

size_t stop_trace() {
  detail::Taken t = detail::take_trace();
  if (!t.was_on) return 0;
  const std::string why = detail::write_file(t.file, detail::render(t.events, t.file, t.version));
  BP_CHECK(why.empty(), ErrorCode::InvalidArgument, "cannot write trace file '{}': {}",
           t.file.string(), why);
  return t.events.size();
}

bool tracing() {
  return detail::trace_on();
}

}  // namespace bp
