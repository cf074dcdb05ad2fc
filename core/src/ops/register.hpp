// Internal: the register functions of the op groups, called in this order by
// Catalog::get() (the order fixes the OpIds).
#pragma once

#include "backplane/core/catalog.hpp"

namespace bp::ops {

void register_data_movement_ops(Catalog& c);  // copy_, fill_, arange, cat, index_select,
                                              // gather, where, embedding
void register_unary_ops(Catalog& c);          // neg ... logical_not, gelu, silu
void register_binary_ops(Catalog& c);         // add ... logical_or, clamp (+ .Scalar forms)
void register_reduction_ops(Catalog& c);      // sum mean prod amax amin argmax argmin all any
void register_nn_ops(Catalog& c);             // softmax log_softmax layer_norm rms_norm
                                              // scaled_dot_product_attention
void register_linalg_ops(Catalog& c);         // matmul addmm linear baddbmm
// Training (docs/training.md):
void register_activation_backward_ops(Catalog& c);  // threshold_backward gelu_backward
                                                    // silu_backward sigmoid_backward
                                                    // tanh_backward
void register_nn_backward_ops(Catalog& c);          // _softmax_backward_data
                                                    // _log_softmax_backward_data
void register_loss_ops(Catalog& c);                 // mse_loss(_backward), nll_loss_forward,
                                                    // nll_loss_backward, nll_loss,
                                                    // cross_entropy_loss
void register_pointwise_ops(Catalog& c);            // addcmul addcdiv lerp.Scalar zero_
void register_indexed_write_ops(Catalog& c);        // index_add
// Op set v2 (issue 28):
void register_mask_ops(Catalog& c);         // masked_fill.Scalar masked_fill.Tensor tril triu
void register_statistics_ops(Catalog& c);   // var.correction std.correction logsumexp
void register_scan_ops(Catalog& c);         // cumsum cumprod
void register_extreme_dim_ops(Catalog& c);  // max.dim min.dim (reductions.cpp)
// convolution_forward convolution_backward_input convolution_backward_weight (convolution.cpp)
void register_convolution_primitives(Catalog& c);
void register_convolution_composites(Catalog& c);  // convolution convolution_backward
// max_pool2d_with_indices(_backward) avg_pool2d(_backward) _adaptive_avg_pool2d(_backward)
void register_pooling_ops(Catalog& c);
void register_batch_norm_ops(Catalog& c);  // native_batch_norm native_batch_norm_backward
void register_group_norm_ops(Catalog& c);  // native_group_norm native_group_norm_backward
void register_hardtanh_ops(Catalog& c);    // hardtanh hardtanh_backward
// uniform_ normal_ random_.from random_.to random_ bernoulli_.float bernoulli_.Tensor
// native_dropout native_dropout_backward
void register_random_ops(Catalog& c);
void register_sort_ops(Catalog& c);  // sort.stable sort argsort argsort.stable topk
// scatter.src scatter_reduce.two scatter.value scatter.reduce scatter.value_reduce scatter_add
void register_scatter_ops(Catalog& c);
void register_nonzero_ops(Catalog& c);            // nonzero_static nonzero masked_select
                                                  // masked_scatter one_hot
void register_advanced_indexing_ops(Catalog& c);  // index.Tensor index_put

}  // namespace bp::ops
