// The typed functions of the random ops (backplane/random.hpp): each boxes its arguments
// with the position's seed and offset as the schema's `int seed, int offset` (their 64 bits
// as int64) and calls the dispatcher; the Generator forms take the next position first.
#include "typed_call.hpp"

#include "backplane/random.hpp"

namespace bp {
namespace {

IValue bits(uint64_t v) {
  return IValue(static_cast<int64_t>(v));
}

RandomPosition next_for(Generator& gen, const Tensor& t) {
  return gen.next(static_cast<uint64_t>(t.numel()));
}

}  // namespace

Tensor& uniform_(Tensor& self, double from, double to, RandomPosition at) {
  static const OpId kOp = op_id("uniform_");
  call(kOp, {self, from, to, bits(at.seed), bits(at.offset)});
  return self;
}
Tensor& uniform_(Tensor& self, double from, double to, Generator& gen) {
  return uniform_(self, from, to, next_for(gen, self));
}

Tensor& normal_(Tensor& self, double mean, double std, RandomPosition at) {
  static const OpId kOp = op_id("normal_");
  call(kOp, {self, mean, std, bits(at.seed), bits(at.offset)});
  return self;
}
Tensor& normal_(Tensor& self, double mean, double std, Generator& gen) {
  return normal_(self, mean, std, next_for(gen, self));
}

Tensor& random_(Tensor& self, int64_t from, std::optional<int64_t> to, RandomPosition at) {
  static const OpId kOp = op_id("random_.from");
  call(kOp, {self, from, to ? IValue(*to) : IValue(), bits(at.seed), bits(at.offset)});
  return self;
}
Tensor& random_(Tensor& self, int64_t from, std::optional<int64_t> to, Generator& gen) {
  return random_(self, from, to, next_for(gen, self));
}

Tensor& random_(Tensor& self, int64_t to, RandomPosition at) {
  static const OpId kOp = op_id("random_.to");
  call(kOp, {self, to, bits(at.seed), bits(at.offset)});
  return self;
}
Tensor& random_(Tensor& self, int64_t to, Generator& gen) {
  return random_(self, to, next_for(gen, self));
}
Tensor& random_(Tensor& self, RandomPosition at) {
  static const OpId kOp = op_id("random_");
  call(kOp, {self, bits(at.seed), bits(at.offset)});
  return self;
}
Tensor& random_(Tensor& self, Generator& gen) {
  return random_(self, next_for(gen, self));
}

Tensor& bernoulli_(Tensor& self, double p, RandomPosition at) {
  static const OpId kOp = op_id("bernoulli_.float");
  call(kOp, {self, p, bits(at.seed), bits(at.offset)});
  return self;
}
Tensor& bernoulli_(Tensor& self, double p, Generator& gen) {
  return bernoulli_(self, p, next_for(gen, self));
}
Tensor& bernoulli_(Tensor& self, const Tensor& p, RandomPosition at) {
  static const OpId kOp = op_id("bernoulli_.Tensor");
  call(kOp, {self, p, bits(at.seed), bits(at.offset)});
  return self;
}
Tensor& bernoulli_(Tensor& self, const Tensor& p, Generator& gen) {
  return bernoulli_(self, p, next_for(gen, self));
}

std::tuple<Tensor, Tensor> native_dropout(const Tensor& input, double p, std::optional<bool> train,
                                          RandomPosition at) {
  static const OpId kOp = op_id("native_dropout");
  std::vector<Tensor> r =
      call(kOp, {input, p, train ? IValue(*train) : IValue(), bits(at.seed), bits(at.offset)});
  return {std::move(r[0]), std::move(r[1])};
}
std::tuple<Tensor, Tensor> native_dropout(const Tensor& input, double p, std::optional<bool> train,
                                          Generator& gen) {
  return native_dropout(input, p, train, next_for(gen, input));
}
Tensor native_dropout_backward(const Tensor& grad_output, const Tensor& mask, double scale) {
  static const OpId kOp = op_id("native_dropout_backward");
  return typed_api::call1(kOp, {grad_output, mask, scale});
}

Tensor rand(IntArrayRef sizes, ScalarType dtype, std::optional<Device> device, Generator& gen) {
  Tensor t = empty(sizes, dtype, device);
  return uniform_(t, 0.0, 1.0, gen);
}
Tensor randn(IntArrayRef sizes, ScalarType dtype, std::optional<Device> device, Generator& gen) {
  Tensor t = empty(sizes, dtype, device);
  return normal_(t, 0.0, 1.0, gen);
}
Tensor randint(int64_t low, int64_t high, IntArrayRef sizes, ScalarType dtype,
               std::optional<Device> device, Generator& gen) {
  Tensor t = empty(sizes, dtype, device);
  return random_(t, low, high, gen);
}

}  // namespace bp
