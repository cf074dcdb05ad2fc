// bp_spirv_order_blocks IN.spv OUT.spv: rewrites a SPIR-V module with the blocks of every
// function in reverse post-order, a build-time step of the Level Zero plugin's kernels.
//
// Why: SPIR-V requires every block to come after the blocks that dominate it (spec 2.16.1),
// LLVM does not (its optimiser leaves a loop's exit block before the loop, for one), and
// llvm-spirv-14 writes the blocks in LLVM's order. Its output for our kernels at -O2 then
// fails spirv-val ("ID has not been defined"); later translators sort the blocks themselves.
// Reverse post-order of the control-flow graph puts every dominator first; unreachable
// blocks go last. Only the order changes: block contents and ids stay as they are, so the
// module means the same. spirv-val runs on the result, so a mistake here fails the build.
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace {

constexpr uint32_t kMagic = 0x07230203;
constexpr uint32_t kHeaderWords = 5;
enum Op : uint32_t {
  OpFunction = 54,
  OpFunctionEnd = 56,
  OpLabel = 248,
  OpBranch = 249,
  OpBranchConditional = 250,
  OpSwitch = 251,
};

struct Block {
  size_t begin = 0, end = 0;  // word range, from the OpLabel to the end of the terminator
  std::vector<uint32_t> successors;
};

uint32_t word_count(uint32_t word) {
  return word >> 16;
}
uint32_t opcode(uint32_t word) {
  return word & 0xffffu;
}

// The targets of the terminator at `at`. OpSwitch's case literals are one or two words
// wide (the selector's width); the width whose label positions all name blocks of the
// function is the one (spirv-val checks the result either way).
std::vector<uint32_t> successors(const std::vector<uint32_t>& w, size_t at,
                                 const std::unordered_set<uint32_t>& labels) {
  const uint32_t count = word_count(w[at]);
  switch (opcode(w[at])) {
    case OpBranch:
      return {w[at + 1]};
    case OpBranchConditional:
      return {w[at + 2], w[at + 3]};
    case OpSwitch: {
      for (uint32_t width : {1u, 2u}) {
        if ((count - 3) % (width + 1) != 0) continue;
        std::vector<uint32_t> targets{w[at + 2]};
        bool all_labels = true;
        for (uint32_t i = 3 + width; i < count; i += width + 1) {
          all_labels = all_labels && labels.count(w[at + i]) != 0;
          targets.push_back(w[at + i]);
        }
        if (all_labels) return targets;
      }
      return {w[at + 2]};
    }
    default:
      return {};  // OpReturn, OpReturnValue, OpUnreachable, OpKill
  }
}

// The blocks in reverse post-order of an iterative depth-first search from the entry block,
// then the unreachable ones; false for a branch to no block of this function.
bool block_order(const std::vector<Block>& blocks,
                 const std::unordered_map<uint32_t, size_t>& index_of, std::vector<size_t>& order) {
  std::vector<size_t> post;
  std::vector<char> seen(blocks.size(), 0);
  std::vector<std::pair<size_t, size_t>> stack{{0, 0}};  // (block, next successor)
  seen[0] = 1;
  while (!stack.empty()) {
    auto& [b, next] = stack.back();
    if (next < blocks[b].successors.size()) {
      const auto it = index_of.find(blocks[b].successors[next++]);
      if (it == index_of.end()) return false;  // a branch to no block of this function
      if (!seen[it->second]) {
        seen[it->second] = 1;
        stack.emplace_back(it->second, 0);
      }
    } else {
      post.push_back(b);
      stack.pop_back();
    }
  }
  order.assign(post.rbegin(), post.rend());
  for (size_t b = 0; b < blocks.size(); ++b)
    if (!seen[b]) order.push_back(b);  // unreachable: dominated by nothing, last
  return true;
}

// Appends the function whose words are [begin, end) (OpFunction .. OpFunctionEnd) to `out`
// with its blocks in reverse post-order.
bool order_function(const std::vector<uint32_t>& w, size_t begin, size_t end,
                    std::vector<uint32_t>& out) {
  std::vector<Block> blocks;
  size_t first_label = end;
  for (size_t at = begin; at < end; at += word_count(w[at])) {
    const uint32_t op = opcode(w[at]);
    if ((op == OpLabel || op == OpFunctionEnd) && !blocks.empty()) blocks.back().end = at;
    if (op == OpLabel) {
      if (first_label == end) first_label = at;
      blocks.push_back(Block{at, 0, {}});
    }
  }
  if (blocks.empty()) {  // a declaration
    out.insert(out.end(), w.begin() + static_cast<ptrdiff_t>(begin),
               w.begin() + static_cast<ptrdiff_t>(end));
    return true;
  }
  std::unordered_map<uint32_t, size_t> index_of;  // label id -> block
  std::unordered_set<uint32_t> labels;
  for (size_t b = 0; b < blocks.size(); ++b) {
    index_of[w[blocks[b].begin + 1]] = b;
    labels.insert(w[blocks[b].begin + 1]);
  }
  for (Block& block : blocks) {
    size_t terminator = block.begin;
    for (size_t at = block.begin; at < block.end; at += word_count(w[at])) terminator = at;
    block.successors = successors(w, terminator, labels);
  }

  std::vector<size_t> order;
  if (!block_order(blocks, index_of, order)) return false;

  out.insert(out.end(), w.begin() + static_cast<ptrdiff_t>(begin),
             w.begin() + static_cast<ptrdiff_t>(first_label));
  for (size_t b : order)
    out.insert(out.end(), w.begin() + static_cast<ptrdiff_t>(blocks[b].begin),
               w.begin() + static_cast<ptrdiff_t>(blocks[b].end));
  const size_t function_end = blocks.back().end;  // the OpFunctionEnd
  out.insert(out.end(), w.begin() + static_cast<ptrdiff_t>(function_end),
             w.begin() + static_cast<ptrdiff_t>(end));
  return true;
}

int fail(const std::string& message) {
  std::fprintf(stderr, "bp_spirv_order_blocks: %s\n", message.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return fail("usage: bp_spirv_order_blocks IN.spv OUT.spv");
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) return fail(std::string("cannot read ") + argv[1]);
  const std::vector<char> bytes{std::istreambuf_iterator<char>(in),
                                std::istreambuf_iterator<char>()};
  if (bytes.size() % 4 != 0 || bytes.size() < kHeaderWords * 4)
    return fail(std::string(argv[1]) + " is not a SPIR-V module");
  std::vector<uint32_t> w(bytes.size() / 4);
  for (size_t i = 0; i < w.size(); ++i)
    w[i] = static_cast<uint32_t>(static_cast<unsigned char>(bytes[4 * i])) |
           static_cast<uint32_t>(static_cast<unsigned char>(bytes[4 * i + 1])) << 8 |
           static_cast<uint32_t>(static_cast<unsigned char>(bytes[4 * i + 2])) << 16 |
           static_cast<uint32_t>(static_cast<unsigned char>(bytes[4 * i + 3])) << 24;
  if (w[0] != kMagic) return fail(std::string(argv[1]) + " is not a little-endian SPIR-V module");

  std::vector<uint32_t> out(w.begin(), w.begin() + kHeaderWords);
  out.reserve(w.size());
  size_t function_begin = 0;
  bool in_function = false;
  for (size_t at = kHeaderWords; at < w.size();) {
    const uint32_t count = word_count(w[at]);
    if (count == 0 || at + count > w.size())
      return fail(std::string(argv[1]) + ": malformed instruction at word " + std::to_string(at));
    if (opcode(w[at]) == OpFunction) {
      in_function = true;
      function_begin = at;
    }
    if (!in_function)
      out.insert(out.end(), w.begin() + static_cast<ptrdiff_t>(at),
                 w.begin() + static_cast<ptrdiff_t>(at + count));
    if (opcode(w[at]) == OpFunctionEnd) {
      if (!in_function) return fail(std::string(argv[1]) + ": OpFunctionEnd outside a function");
      if (!order_function(w, function_begin, at + count, out))
        return fail(std::string(argv[1]) + ": a branch to a label that is no block");
      in_function = false;
    }
    at += count;
  }
  if (in_function) return fail(std::string(argv[1]) + ": a function without OpFunctionEnd");

  std::ofstream file(argv[2], std::ios::binary | std::ios::trunc);
  for (uint32_t word : out) {
    const char le[4] = {static_cast<char>(word & 0xff), static_cast<char>((word >> 8) & 0xff),
                        static_cast<char>((word >> 16) & 0xff),
                        static_cast<char>((word >> 24) & 0xff)};
    file.write(le, 4);
  }
  if (!file) return fail(std::string("cannot write ") + argv[2]);
  return 0;
}
