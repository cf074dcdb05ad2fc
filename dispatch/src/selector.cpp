// The device selector: a hand-written scanner for the grammar in selector.hpp (so errors
// can name the column), the priority order, and the "did you mean" text for unknown names.
#include "backplane/dispatch/selector.hpp"

#include "backplane/core/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace bp {
namespace {

constexpr std::string_view kDefaultPriority[] = {"cuda", "rocm", "level_zero", "opencl", "cpu"};
constexpr std::string_view kReference = "reference";

bool is_name_start(char c) {
  return (c >= 'a' && c <= 'z') || c == '_';
}
bool is_name_char(char c) {
  return is_name_start(c) || (c >= '0' && c <= '9');
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_space(char c) {
  return c == ' ' || c == '\t';
}

// What the scanner found at a position, for "expected X, found Y".
std::string describe(std::string_view text, size_t pos) {
  if (pos >= text.size()) return "the end";
  return fmt::format("'{}'", text[pos]);
}

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  // Parses the whole text; throws on the first error.
  void parse(std::vector<DeviceSelector::Item>& items, std::vector<std::string>& excluded) {
    std::vector<size_t> negation_columns;  // where each "!name" starts, for the check below
    while (true) {
      skip_space();
      const size_t start = pos_;
      if (peek() == '!') {
        ++pos_;
        skip_space();
        excluded.push_back(parse_name("a backend name after '!'"));
        negation_columns.push_back(start);
        skip_space();
        if (peek() == ':') {
          fail(pos_, fmt::format("a negation names a whole backend: expected ',' or the end "
                                 "after '!{}', found ':'",
                                 excluded.back()));
        }
      } else {
        items.push_back({parse_name("a backend name or '!'"), std::nullopt});
        skip_space();
        if (peek() == ':') {
          ++pos_;
          skip_space();
          if (peek() == '*') {
            ++pos_;
          } else if (is_digit(peek())) {
            items.back().index = parse_index();
          } else {
            fail(pos_, fmt::format("expected a device index or '*' after ':', found {}",
                                   describe(text_, pos_)));
          }
          skip_space();
        }
      }
      if (pos_ >= text_.size()) break;
      if (peek() != ',') {
        fail(pos_,
             fmt::format("expected ',' or the end after an item, found {}", describe(text_, pos_)));
      }
      ++pos_;
    }
    // "cuda,!cuda" says two opposite things; the error points at the negation.
    for (size_t k = 0; k < excluded.size(); ++k) {
      const std::string& name = excluded[k];
      if (std::any_of(items.begin(), items.end(), [&](const auto& i) { return i.backend == name; }))
        fail(negation_columns[k], fmt::format("backend '{}' is both listed and excluded", name));
    }
  }

 private:
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void skip_space() {
    while (pos_ < text_.size() && is_space(text_[pos_])) ++pos_;
  }

  [[noreturn]] void fail(size_t pos, std::string_view what) const {
    BP_FAIL(ErrorCode::Parse, "device selector '{}': column {}: {}", text_, pos + 1, what);
  }

  std::string parse_name(std::string_view expected) {
    if (!is_name_start(peek())) {
      // Says what names look like: the usual mistake is capitals ("CUDA").
      fail(pos_, fmt::format("expected {} ([a-z_][a-z0-9_]*), found {}", expected,
                             describe(text_, pos_)));
    }
    const size_t start = pos_;
    while (pos_ < text_.size() && is_name_char(text_[pos_])) ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }

  int parse_index() {
    const size_t start = pos_;
    long long value = 0;
    constexpr long long kMax = std::numeric_limits<int16_t>::max();
    bool overflow = false;
    while (pos_ < text_.size() && is_digit(text_[pos_])) {
      value = value * 10 + (text_[pos_] - '0');
      if (value > kMax) overflow = true, value = kMax + 1;
      ++pos_;
    }
    if (overflow) {
      fail(start, fmt::format("device index {} is out of range [0, {}]",
                              text_.substr(start, pos_ - start), kMax));
    }
    return static_cast<int>(value);
  }

  std::string_view text_;
  size_t pos_ = 0;
};

// Edit distance with adjacent transpositions (optimal string alignment), for "did you mean":
// "cdua" is one step from "cuda", not two.
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min(
          {d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

bool is_default_priority(std::string_view name) {
  return std::find(std::begin(kDefaultPriority), std::end(kDefaultPriority), name) !=
         std::end(kDefaultPriority);
}

std::string availability(std::span<const BackendInfo> available) {
  if (available.empty()) return "no backend is loaded";
  std::vector<std::string> parts;
  for (const BackendInfo& b : available) {
    std::string part =
        fmt::format("{} ({} device{}", b.name, b.device_count, b.device_count == 1 ? "" : "s");
    if (b.device_count == 0 && !b.no_device_reason.empty()) part += ": " + b.no_device_reason;
    parts.push_back(part + ")");
  }
  return fmt::format("available: {}", fmt::join(parts, ", "));
}

}  // namespace

DeviceSelector DeviceSelector::parse(std::string_view text) {
  DeviceSelector s;
  Parser(text).parse(s.items_, s.excluded_);
  return s;
}

std::span<const std::string_view> DeviceSelector::default_priority() {
  return kDefaultPriority;
}

bool DeviceSelector::excludes_backend(std::string_view backend) const {
  if (std::find(excluded_.begin(), excluded_.end(), backend) != excluded_.end()) return true;
  if (items_.empty()) return false;
  return std::none_of(items_.begin(), items_.end(),
                      [&](const Item& i) { return i.backend == backend; });
}

std::vector<Device> DeviceSelector::select(std::span<const BackendInfo> available) const {
  std::vector<Device> out;
  auto add = [&](const BackendInfo& b, int index) {
    const Device d(b.type, static_cast<int16_t>(index));
    if (std::find(out.begin(), out.end(), d) == out.end()) out.push_back(d);
  };
  auto add_all = [&](const BackendInfo& b) {
    for (int i = 0; i < b.device_count; ++i) add(b, i);
  };
  auto find = [&](std::string_view name) -> const BackendInfo* {
    for (const BackendInfo& b : available)
      if (b.name == name) return &b;
    return nullptr;
  };

  if (!items_.empty()) {
    for (const Item& item : items_) {
      const BackendInfo* b = find(item.backend);
      if (b == nullptr) continue;
      if (!item.index) {
        add_all(*b);
      } else if (*item.index < b->device_count) {
        add(*b, *item.index);
      }
    }
    return out;
  }
  // No list: the default priority, out-of-tree backends in the order given, reference last.
  for (std::string_view name : kDefaultPriority)
    if (const BackendInfo* b = find(name); b && !excludes_backend(name)) add_all(*b);
  for (const BackendInfo& b : available)
    if (!is_default_priority(b.name) && b.name != kReference && !excludes_backend(b.name))
      add_all(b);
  if (const BackendInfo* b = find(kReference); b && !excludes_backend(kReference)) add_all(*b);
  return out;
}

Device DeviceSelector::first_available(std::span<const BackendInfo> available) const {
  const std::vector<Device> devices = select(available);
  if (!devices.empty()) return devices.front();
  if (is_default())
    BP_FAIL(ErrorCode::Device, "no device is available ({})", availability(available));
  BP_FAIL(ErrorCode::Device, "no device matches device selector '{}' ({})", str(),
          availability(available));
}

std::vector<std::string> DeviceSelector::unknown_backends(
    std::span<const std::string> known) const {
  std::vector<std::string> out;
  auto check = [&](const std::string& name) {
    if (std::find(known.begin(), known.end(), name) == known.end() &&
        std::find(out.begin(), out.end(), name) == out.end())
      out.push_back(name);
  };
  for (const Item& i : items_) check(i.backend);
  for (const std::string& name : excluded_) check(name);
  return out;
}

void DeviceSelector::validate(std::span<const std::string> known) const {
  const std::vector<std::string> unknown = unknown_backends(known);
  if (unknown.empty()) return;
  BP_FAIL(
      ErrorCode::InvalidArgument, "{}",
      unknown_backend_message(fmt::format("device selector '{}'", str()), unknown.front(), known));
}

std::string DeviceSelector::str() const {
  std::vector<std::string> parts;
  for (const Item& i : items_) {
    parts.push_back(i.index ? fmt::format("{}:{}", i.backend, *i.index) : i.backend + ":*");
  }
  for (const std::string& name : excluded_) parts.push_back("!" + name);
  return fmt::format("{}", fmt::join(parts, ","));
}

std::string unknown_backend_message(std::string_view what, std::string_view name,
                                    std::span<const std::string> known) {
  std::vector<std::string> sorted(known.begin(), known.end());
  std::sort(sorted.begin(), sorted.end());
  std::string text = fmt::format(
      "{}: unknown backend '{}' (known: {})", what, name,
      sorted.empty() ? std::string("none") : fmt::format("{}", fmt::join(sorted, ", ")));
  // The closest names (all at the same distance, at most a third of the name's length
  // and at least 2 edits away), alphabetically.
  const size_t limit = std::max<size_t>(2, name.size() / 3);
  size_t best = limit + 1;
  std::vector<std::string> close;
  for (const std::string& k : sorted) {
    const size_t d = edit_distance(name, k);
    if (d < best) best = d, close.clear();
    if (d == best) close.push_back(k);
  }
  for (size_t i = 0; i < close.size(); ++i) {
    text += fmt::format("{}'{}'",
                        i == 0                  ? "; did you mean "
                        : i + 1 == close.size() ? " or "
                                                : ", ",
                        close[i]);
  }
  if (!close.empty()) text += "?";
  return text;
}

}  // namespace bp
