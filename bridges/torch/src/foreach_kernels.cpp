// The _foreach_* operators optimizers call with foreach=True (SGD, Adam, AdamW in PyTorch
// 1.13), for PrivateUse1: PyTorch's own per-tensor loops (at::native's *_slow kernels, its
// CPU implementation), registered for the Backplane devices. Each loop calls the per-tensor
// operator (add_, mul_, addcdiv_, sqrt, zero_, ...) on every tensor of the list, and those
// run on the device's Backplane kernels through the bridge's mapping. So a list op never
// leaves the device, and a plugin needs no list kernel; a fused multi-tensor op is a
// possible later addition (docs/training.md, "Optimizers").
#include <ATen/core/Tensor.h>
#include <ATen/ops/_foreach_add_native.h>
#include <ATen/ops/_foreach_addcdiv_native.h>
#include <ATen/ops/_foreach_addcmul_native.h>
#include <ATen/ops/_foreach_div_native.h>
#include <ATen/ops/_foreach_exp_native.h>
#include <ATen/ops/_foreach_maximum_native.h>
#include <ATen/ops/_foreach_minimum_native.h>
#include <ATen/ops/_foreach_mul_native.h>
#include <ATen/ops/_foreach_neg_native.h>
#include <ATen/ops/_foreach_sqrt_native.h>
#include <ATen/ops/_foreach_sub_native.h>
#include <ATen/ops/_foreach_zero_native.h>
#include <torch/library.h>

namespace {

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("_foreach_add.Scalar", TORCH_FN(at::native::foreach_tensor_add_scalar_kernel_slow));
  m.impl("_foreach_add_.Scalar", TORCH_FN(at::native::foreach_tensor_add_scalar_kernel_slow_));
  m.impl("_foreach_add.List", TORCH_FN(at::native::foreach_tensor_add_list_kernel_slow));
  m.impl("_foreach_add_.List", TORCH_FN(at::native::foreach_tensor_add_list_kernel_slow_));
  m.impl("_foreach_add.ScalarList",
         TORCH_FN(at::native::foreach_tensor_add_scalarlist_kernel_slow));
  m.impl("_foreach_add_.ScalarList",
         TORCH_FN(at::native::foreach_tensor_add_scalarlist_kernel_slow_));
  m.impl("_foreach_sub.Scalar", TORCH_FN(at::native::foreach_tensor_sub_scalar_kernel_slow));
  m.impl("_foreach_sub_.Scalar", TORCH_FN(at::native::foreach_tensor_sub_scalar_kernel_slow_));
  m.impl("_foreach_sub.List", TORCH_FN(at::native::foreach_tensor_sub_list_kernel_slow));
  m.impl("_foreach_sub_.List", TORCH_FN(at::native::foreach_tensor_sub_list_kernel_slow_));
  m.impl("_foreach_sub.ScalarList",
         TORCH_FN(at::native::foreach_tensor_sub_scalarlist_kernel_slow));
  m.impl("_foreach_sub_.ScalarList",
         TORCH_FN(at::native::foreach_tensor_sub_scalarlist_kernel_slow_));
  m.impl("_foreach_mul.Scalar", TORCH_FN(at::native::foreach_tensor_mul_scalar_kernel_slow));
  m.impl("_foreach_mul_.Scalar", TORCH_FN(at::native::foreach_tensor_mul_scalar_kernel_slow_));
  m.impl("_foreach_mul.List", TORCH_FN(at::native::foreach_tensor_mul_list_kernel_slow));
  m.impl("_foreach_mul_.List", TORCH_FN(at::native::foreach_tensor_mul_list_kernel_slow_));
  m.impl("_foreach_mul.ScalarList",
         TORCH_FN(at::native::foreach_tensor_mul_scalarlist_kernel_slow));
  m.impl("_foreach_mul_.ScalarList",
         TORCH_FN(at::native::foreach_tensor_mul_scalarlist_kernel_slow_));
  m.impl("_foreach_div.Scalar", TORCH_FN(at::native::foreach_tensor_div_scalar_kernel_slow));
  m.impl("_foreach_div_.Scalar", TORCH_FN(at::native::foreach_tensor_div_scalar_kernel_slow_));
  m.impl("_foreach_div.List", TORCH_FN(at::native::foreach_tensor_div_list_kernel_slow));
  m.impl("_foreach_div_.List", TORCH_FN(at::native::foreach_tensor_div_list_kernel_slow_));
  m.impl("_foreach_div.ScalarList",
         TORCH_FN(at::native::foreach_tensor_div_scalarlist_kernel_slow));
  m.impl("_foreach_div_.ScalarList",
         TORCH_FN(at::native::foreach_tensor_div_scalarlist_kernel_slow_));
  m.impl("_foreach_addcmul.Scalar", TORCH_FN(at::native::foreach_tensor_addcmul_scalar_slow));
  m.impl("_foreach_addcmul_.Scalar", TORCH_FN(at::native::foreach_tensor_addcmul_scalar_slow_));
  m.impl("_foreach_addcmul.ScalarList",
         TORCH_FN(at::native::foreach_tensor_addcmul_scalarlist_slow));
  m.impl("_foreach_addcmul_.ScalarList",
         TORCH_FN(at::native::foreach_tensor_addcmul_scalarlist_slow_));
  m.impl("_foreach_addcdiv.Scalar", TORCH_FN(at::native::foreach_tensor_addcdiv_scalar_slow));
  m.impl("_foreach_addcdiv_.Scalar", TORCH_FN(at::native::foreach_tensor_addcdiv_scalar_slow_));
  m.impl("_foreach_addcdiv.ScalarList",
         TORCH_FN(at::native::foreach_tensor_addcdiv_scalarlist_slow));
  m.impl("_foreach_addcdiv_.ScalarList",
         TORCH_FN(at::native::foreach_tensor_addcdiv_scalarlist_slow_));
  m.impl("_foreach_sqrt", TORCH_FN(at::native::foreach_tensor_sqrt_slow));
  m.impl("_foreach_sqrt_", TORCH_FN(at::native::foreach_tensor_sqrt_slow_));
  m.impl("_foreach_neg", TORCH_FN(at::native::foreach_tensor_neg_slow));
  m.impl("_foreach_neg_", TORCH_FN(at::native::foreach_tensor_neg_slow_));
  m.impl("_foreach_exp", TORCH_FN(at::native::foreach_tensor_exp_slow));
  m.impl("_foreach_exp_", TORCH_FN(at::native::foreach_tensor_exp_slow_));
  m.impl("_foreach_maximum.List", TORCH_FN(at::native::foreach_tensor_maximum_slow));
  m.impl("_foreach_maximum_.List", TORCH_FN(at::native::foreach_tensor_maximum_slow_));
  m.impl("_foreach_minimum.List", TORCH_FN(at::native::foreach_tensor_minimum_slow));
  m.impl("_foreach_minimum_.List", TORCH_FN(at::native::foreach_tensor_minimum_slow_));
  m.impl("_foreach_zero_", TORCH_FN(at::native::foreach_tensor_zero_slow_));
}

}  // namespace
