// The loop structure shared by every CPU reduction (reductions.cpp). A reducer R supplies
// the fold (In/Out/Acc types, init, step, merge, finish, and `row`, its fold of one run of
// elements, SIMD where it has one); this engine walks the tensors:
//   - ReducePlan drops size-1 dims and merges dims that are contiguous with each other, into
//     "kept" dims (one output each) and "reduced" dims (folded), innermost last;
//   - when the innermost reduced dim is contiguous, each output folds whole rows (`row`);
//   - when instead the innermost kept dim is contiguous (a reduction over outer dims), a block
//     of neighbouring outputs is folded together, row by row, in unit-stride loops;
//   - otherwise each output folds strided runs.
// Threads (OpenMP) split the outputs when there are enough of them, and otherwise split the
// reduced elements of each output into ranges whose partial results are merged in order (so
// argmax keeps the first index). Float sums (R::kCascade) merge partials pairwise.
#pragma once

#include "cpu.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

namespace bp::cpu {

// Elements a thread should have at least before a reduction is split across threads.
inline constexpr int64_t kReduceGrain = 32768;

// Pairwise summation of a stream of partial sums: a binary counter of partial results, so
// the error grows with log2 of their number.
// `level` is left uninitialised and total() stops at count's highest bit: only the levels
// whose bit is set in count are ever read, and this runs once per output row, where zeroing
// 64 levels and scanning all of them cost as much as summing a short row.
template <typename Acc>
struct Pairwise {
  Acc level[64];
  uint64_t count = 0;
  void push(Acc x) {
    int k = 0;
    for (uint64_t c = count; c & 1u; c >>= 1, ++k) x = level[k] + x;
    level[k] = x;
    ++count;
  }
  Acc total() const {
    Acc t = 0;
    int k = 0;
    for (uint64_t c = count; c != 0; c >>= 1, ++k)
      if (c & 1u) t = level[k] + t;
    return t;
  }
};

// Folds n elements `stride` apart (the first has flat reduced index idx0) with R's step.
// Float sums go through blocks of 256 merged pairwise.
template <typename R>
typename R::Acc generic_row(const R& r, const typename R::In* p, int64_t n, int64_t stride,
                            int64_t idx0) {
  using Acc = typename R::Acc;
  if constexpr (R::kCascade) {
    if (n > 256) {
      Pairwise<Acc> sum;
      for (int64_t b = 0; b < n; b += 256) {
        Acc a = r.init();
        const int64_t m = std::min<int64_t>(256, n - b);
        for (int64_t i = 0; i < m; ++i) r.step(a, p[(b + i) * stride], idx0 + b + i);
        sum.push(a);
      }
      return sum.total();
    }
  }
  Acc a = r.init();
  for (int64_t i = 0; i < n; ++i) r.step(a, p[i * stride], idx0 + i);
  return a;
}

struct ReducePlan {
  struct Kept {
    int64_t size, in_stride, out_stride;
  };
  struct Reduced {
    int64_t size, stride;
  };
  std::vector<Kept> kept;        // outermost first; may be empty (one output)
  std::vector<Reduced> reduced;  // outermost first; never empty
  int64_t nout = 1;              // number of outputs
  int64_t nred = 1;              // elements folded into each output

  ReducePlan(const StridedView& in, const StridedView& out, const std::vector<bool>& is_reduced) {
    for (int32_t d = 0; d < in.ndim; ++d) {
      const int64_t size = in.shape[d];
      if (is_reduced[static_cast<size_t>(d)]) {
        nred *= size;
        if (size != 1) reduced.push_back({size, in.strides[d]});
      } else {
        nout *= size;
        if (size != 1) kept.push_back({size, in.strides[d], out.strides[d]});
      }
    }
    // Merge a dim into the next inner one when together they are one arithmetic run.
    std::vector<Kept> k;
    for (const Kept& e : kept) {
      if (!k.empty() && k.back().in_stride == e.in_stride * e.size &&
          k.back().out_stride == e.out_stride * e.size)
        k.back() = {k.back().size * e.size, e.in_stride, e.out_stride};
      else
        k.push_back(e);
    }
    kept.swap(k);
    std::vector<Reduced> r;
    for (const Reduced& e : reduced) {
      if (!r.empty() && r.back().stride == e.stride * e.size)
        r.back() = {r.back().size * e.size, e.stride};
      else
        r.push_back(e);
    }
    reduced.swap(r);
    if (reduced.empty()) reduced.push_back({1, 1});
  }
};

// Visits the element offsets (in + out) of the outputs [begin, end) in row-major order.
template <typename F>
void for_each_output(const ReducePlan& plan, int64_t begin, int64_t end, F&& f) {
  const auto& kept = plan.kept;
  const size_t nk = kept.size();
  std::vector<int64_t> idx(nk, 0);
  int64_t in_off = 0, out_off = 0, rest = begin;
  for (size_t d = nk; d-- > 0;) {
    idx[d] = rest % kept[d].size;
    rest /= kept[d].size;
    in_off += idx[d] * kept[d].in_stride;
    out_off += idx[d] * kept[d].out_stride;
  }
  for (int64_t o = begin; o < end; ++o) {
    f(in_off, out_off);
    for (size_t d = nk; d-- > 0;) {
      in_off += kept[d].in_stride;
      out_off += kept[d].out_stride;
      if (++idx[d] < kept[d].size) break;
      in_off -= kept[d].in_stride * kept[d].size;
      out_off -= kept[d].out_stride * kept[d].size;
      idx[d] = 0;
    }
  }
}

// Folds the flat reduced indices [begin, end) of the output whose first input element is `p`.
template <typename R>
typename R::Acc reduce_range(const R& r, const ReducePlan& plan, const typename R::In* p,
                             int64_t begin, int64_t end) {
  using Acc = typename R::Acc;
  const auto& red = plan.reduced;
  const size_t outer = red.size() - 1;  // dims above the innermost reduced one
  const int64_t len = red.back().size, stride = red.back().stride;
  std::vector<int64_t> idx(outer, 0);
  int64_t off = 0, row = begin / len, pos = begin % len;
  for (size_t d = outer; d-- > 0;) {
    idx[d] = row % red[d].size;
    row /= red[d].size;
    off += idx[d] * red[d].stride;
  }
  Acc acc = r.init();
  Pairwise<Acc> sum;
  for (int64_t cur = begin; cur < end;) {
    const int64_t n = std::min(len - pos, end - cur);
    const Acc part = r.row(p + off + pos * stride, n, stride, cur);
    if constexpr (R::kCascade)
      sum.push(part);
    else
      r.merge(acc, part);
    cur += n;
    pos = 0;
    for (size_t d = outer; d-- > 0;) {
      off += red[d].stride;
      if (++idx[d] < red[d].size) break;
      off -= red[d].stride * red[d].size;
      idx[d] = 0;
    }
  }
  if constexpr (R::kCascade) acc = sum.total();
  return acc;
}

// Reduction over outer dims: outputs [j0, j0 + w) of a contiguous kept run fold together,
// visiting the reduced elements in order; float sums flush every 256 rows into a pairwise
// total per output.
template <typename R>
void reduce_block(const R& r, const ReducePlan& plan, const typename R::In* p, typename R::Out* out,
                  int64_t out_stride, int64_t w) {
  using Acc = typename R::Acc;
  constexpr int64_t kFlush = 256;
  const auto& red = plan.reduced;
  const size_t nr = red.size();
  std::vector<int64_t> idx(nr, 0);
  // Arrays, not std::vector: vector<bool> packs bits (all/any accumulate bools).
  std::unique_ptr<Acc[]> acc(new Acc[static_cast<size_t>(w)]);
  std::fill(acc.get(), acc.get() + w, r.init());
  std::vector<Pairwise<Acc>> sums(R::kCascade ? static_cast<size_t>(w) : 0);
  int64_t off = 0;
  for (int64_t k = 0; k < plan.nred; ++k) {
    const typename R::In* q = p + off;
    for (int64_t j = 0; j < w; ++j) r.step(acc[static_cast<size_t>(j)], q[j], k);
    if constexpr (R::kCascade) {
      if ((k + 1) % kFlush == 0 || k + 1 == plan.nred)
        for (int64_t j = 0; j < w; ++j) {
          sums[static_cast<size_t>(j)].push(acc[static_cast<size_t>(j)]);
          acc[static_cast<size_t>(j)] = r.init();
        }
    }
    for (size_t d = nr; d-- > 0;) {
      off += red[d].stride;
      if (++idx[d] < red[d].size) break;
      off -= red[d].stride * red[d].size;
      idx[d] = 0;
    }
  }
  for (int64_t j = 0; j < w; ++j) {
    if constexpr (R::kCascade)
      out[j * out_stride] = r.finish(sums[static_cast<size_t>(j)].total());
    else
      out[j * out_stride] = r.finish(acc[static_cast<size_t>(j)]);
  }
}

// A reducer may fold many contiguous rows in one call (`rows`): the SIMD sums then pay one
// dynamic dispatch per thread instead of one per row, and skip reduce_range's bookkeeping.
template <typename R>
concept HasRows = requires(const R& r, const typename R::In* p, typename R::Out* o, int64_t n) {
  r.rows(p, n, n, n, o, n);
};

// True when every output folds one contiguous row and the rows are one arithmetic run of
// outputs (at most one kept dim after merging), the case `rows` handles.
inline bool plain_rows(const ReducePlan& plan) {
  return plan.reduced.size() == 1 && plan.reduced[0].stride == 1 && plan.kept.size() <= 1;
}

// Outputs [begin, end) through R::rows when R has it and the plan is plain_rows; false
// (nothing done) otherwise.
template <typename R>
bool reduce_rows(const R& r, const ReducePlan& plan, const typename R::In* in, typename R::Out* out,
                 int64_t begin, int64_t end) {
  if constexpr (HasRows<R>) {
    if (!plain_rows(plan)) return false;
    const int64_t in_stride = plan.kept.empty() ? 0 : plan.kept[0].in_stride;
    const int64_t out_stride = plan.kept.empty() ? 0 : plan.kept[0].out_stride;
    if (begin < end)
      r.rows(in + begin * in_stride, plan.nred, in_stride, end - begin, out + begin * out_stride,
             out_stride);
    return true;
  } else {
    return false;
  }
}

inline int reduce_threads(int64_t work) {
  const int64_t wanted = std::max<int64_t>(1, work / kReduceGrain);
  return static_cast<int>(std::min<int64_t>(omp_get_max_threads(), wanted));
}

// Outer-dim reduction: the innermost kept dim is contiguous in the input, the reduced dims
// are not. Blocks of kWidth outputs along that dim are folded together, in parallel.
inline bool is_outer_dim_reduction(const ReducePlan& plan) {
  return plan.reduced.back().stride != 1 && !plan.kept.empty() && plan.kept.back().in_stride == 1 &&
         plan.kept.back().size >= 4;
}

template <typename R>
void reduce_outer_dims(const R& r, const ReducePlan& plan, const typename R::In* in,
                       typename R::Out* out, int threads) {
  constexpr int64_t kWidth = 256;
  const auto& inner = plan.kept.back();
  const int64_t nblocks = (inner.size + kWidth - 1) / kWidth;
  const int64_t outer = plan.nout / inner.size;
  ReducePlan outer_plan = plan;  // the kept dims above the contiguous one
  outer_plan.kept.pop_back();
  outer_plan.nout = outer;
  const int64_t tasks = outer * nblocks;
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1 && tasks > 1)
  for (int64_t t = 0; t < tasks; ++t) {
    const int64_t o = t / nblocks, j0 = (t % nblocks) * kWidth;
    const int64_t w = std::min(kWidth, inner.size - j0);
    for_each_output(outer_plan, o, o + 1, [&](int64_t in_off, int64_t out_off) {
      reduce_block(r, plan, in + in_off + j0, out + out_off + j0 * inner.out_stride,
                   inner.out_stride, w);
    });
  }
}

// Enough outputs for every thread: each thread folds whole outputs.
template <typename R>
void reduce_whole_outputs(const R& r, const ReducePlan& plan, const typename R::In* in,
                          typename R::Out* out, int threads) {
#pragma omp parallel num_threads(threads) if (threads > 1)
  {
    const int nt = omp_get_num_threads(), t = omp_get_thread_num();
    const int64_t begin = plan.nout * t / nt, end = plan.nout * (t + 1) / nt;
    if (!reduce_rows(r, plan, in, out, begin, end))
      for_each_output(plan, begin, end, [&](int64_t in_off, int64_t out_off) {
        out[out_off] = r.finish(reduce_range(r, plan, in + in_off, 0, plan.nred));
      });
  }
}

// Few, large outputs: split each output's reduced elements across the threads and merge
// the partial results in index order.
template <typename R>
void reduce_split_outputs(const R& r, const ReducePlan& plan, const typename R::In* in,
                          typename R::Out* out, int threads) {
  using Acc = typename R::Acc;
  std::unique_ptr<Acc[]> parts(new Acc[static_cast<size_t>(threads)]);
  for_each_output(plan, 0, plan.nout, [&](int64_t in_off, int64_t out_off) {
#pragma omp parallel num_threads(threads)
    {
      const int nt = omp_get_num_threads(), t = omp_get_thread_num();
      const int64_t begin = plan.nred * t / nt, end = plan.nred * (t + 1) / nt;
      parts[static_cast<size_t>(t)] =
          begin < end ? reduce_range(r, plan, in + in_off, begin, end) : r.init();
      if (nt < threads && t == 0)
        for (int u = nt; u < threads; ++u) parts[static_cast<size_t>(u)] = r.init();
    }
    Acc acc = parts[0];
    for (int t = 1; t < threads; ++t) r.merge(acc, parts[static_cast<size_t>(t)]);
    out[out_off] = r.finish(acc);
  });
}

// Reduces `in` into `out` as planned.
template <typename R>
void reduce(const R& r, const ReducePlan& plan, const typename R::In* in, typename R::Out* out) {
  if (plan.nout == 0) return;
  if (plan.nred == 0) {  // empty reductions: the identity (sum 0, prod 1, all true, any false)
    for_each_output(plan, 0, plan.nout,
                    [&](int64_t, int64_t out_off) { out[out_off] = r.finish(r.init()); });
    return;
  }
  const int threads = reduce_threads(plan.nout * plan.nred);
  if (is_outer_dim_reduction(plan))
    reduce_outer_dims(r, plan, in, out, threads);
  else if (threads == 1 || plan.nout >= 4 * threads)
    reduce_whole_outputs(r, plan, in, out, threads);
  else
    reduce_split_outputs(r, plan, in, out, threads);
}

}  // namespace bp::cpu
