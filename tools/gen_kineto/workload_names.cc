#include "tools/gen_kineto/workload_names.h"

#include <string>
#include <utility>

#include "fmt/format.h"

namespace tracelint::gen {
namespace {

KernelSpec Spec(std::string name, int64_t mean_dur_ns, int32_t regs,
                int32_t smem, int32_t grid_x, int32_t grid_y,
                int32_t block_x) {
  KernelSpec k;
  k.name = std::move(name);
  k.mean_dur_ns = mean_dur_ns;
  k.registers_per_thread = regs;
  k.shared_memory_bytes = smem;
  k.grid[0] = grid_x;
  k.grid[1] = grid_y;
  k.block[0] = block_x;
  return k;
}

constexpr const char* kXmmaTiles[] = {"128x128x16_stage4", "128x64x16_stage4",
                                      "64x64x32_stage5", "256x64x16_stage3"};

constexpr const char* kElementwiseFunctors[] = {
    "at::native::(anonymous namespace)::clamp_min_scalar_kernel_impl(at::"
    "TensorIteratorBase&, c10::Scalar)::{lambda()#1}::operator()() "
    "const::{lambda()#8}::operator()() const::{lambda(float)#1}",
    "at::native::CUDAFunctor_add<float>",
    "at::native::BinaryFunctor<float, float, float, "
    "at::native::binary_internal::MulFunctor<float> >",
    "at::native::AUnaryFunctor<float, float, float, "
    "at::native::binary_internal::MulFunctor<float> >",
    "at::native::FillFunctor<float>",
    "at::native::(anonymous namespace)::direct_copy_kernel_cuda(at::"
    "TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#8}::"
    "operator()() const::{lambda(float)#1}",
    "at::native::threshold_kernel_impl<float>(at::TensorIteratorBase&, float, "
    "float)::{lambda(float, float)#1}",
    "at::native::BUnaryFunctor<float, float, float, "
    "at::native::binary_internal::DivFunctor<float> >",
};

constexpr const char* kReduceOps[] = {
    "at::native::MeanOps<float, float, float, float>",
    // One name split over two lines (the parentheses tell clang so).
    ("at::native::func_wrapper_t<float, at::native::sum_functor<float, float, "
     "float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>"),
    "at::native::NormTwoOps<float, float, float>",
};

}  // namespace

KernelCatalog BuildKernelCatalog() {
  KernelCatalog c;
  for (int i = 0; i < 4; ++i) {
    const char* tile = kXmmaTiles[i];
    c.conv_fprop.push_back(Spec(
        fmt::format("sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_"
                    "nchw_tilesize{}_warpsize2x2x1_g1_tensor16x8x8_execute_"
                    "kernel__5x_cudnn",
                    tile),
        180000 + 40000 * i, 232, 81920, 196 >> i, 2, 128));
    c.conv_dgrad.push_back(Spec(
        fmt::format("sm80_xmma_dgrad_implicit_gemm_indexed_tf32f32_tf32f32_f32_"
                    "nhwckrsc_nchw_tilesize{}_warpsize2x2x1_g1_tensor16x8x8_"
                    "execute_kernel__5x_cudnn",
                    tile),
        210000 + 30000 * i, 236, 98304, 392 >> i, 1, 128));
    c.conv_wgrad.push_back(Spec(
        fmt::format("sm80_xmma_wgrad_implicit_gemm_indexed_tf32f32_tf32f32_f32_"
                    "nhwckrsc_nhwc_tilesize{}_warpsize2x2x1_g1_tensor16x8x8_"
                    "execute_kernel__5x_cudnn",
                    tile),
        260000 + 20000 * i, 168, 65536, 64 << (i % 2), 4, 256));
  }
  for (int filter : {3, 5}) {
    c.conv_fprop.push_back(Spec(
        fmt::format("void cudnn::cnn::implicit_convolve_sgemm<float, float, "
                    "128, 5, 5, {0}, {0}, 3, 1, false, false, true>(int, int, "
                    "int, float const*, int, float*, float const*, "
                    "kernel_conv_params, unsigned long long, int, float, "
                    "float, int, float const*, float const*, bool, int, int)",
                    filter),
        320000, 64, 8192, 784, 1, 128));
    c.conv_dgrad.push_back(Spec(
        fmt::format("void cudnn::detail::dgrad_engine<float, 128, 6, 7, {0}, "
                    "{0}, 5, false>(int, int, int, float const*, int, float "
                    "const*, int, float*, kernel_grad_params, unsigned long "
                    "long, int, unsigned long long, int, float, int, int, int)",
                    filter),
        350000, 80, 12544, 392, 2, 256));
    c.conv_wgrad.push_back(Spec(
        fmt::format("void cudnn::cnn::wgrad_alg0_engine<float, 128, 5, 5, {0}, "
                    "{0}, 3, false, 512>(int, int, int, float const*, int, "
                    "float*, float const*, kernel_grad_params, unsigned long "
                    "long, int, float, int, int, int, int)",
                    filter),
        410000, 56, 5120, 144, 4, 128));
  }
  for (int threads : {512, 256}) {
    for (int vec : {1, 2}) {
      c.bn_forward.push_back(Spec(
          fmt::format("void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, "
                      "int, {}, true, {}>(cudnnTensorStruct, float const*, "
                      "cudnnTensorStruct, float*, float const*, float const*, "
                      "float, float, float*, float*, float*, float*, float, "
                      "float)",
                      threads, vec),
          45000, 32, 4096, 512, 1, threads));
      c.bn_backward.push_back(Spec(
          fmt::format("void cudnn::bn_bw_1C11_kernel_new<float, float, "
                      "float2, {}, true, {}>(float, float, float, float, "
                      "cudnnTensorStruct, float const*, cudnnTensorStruct, "
                      "float const*, cudnnTensorStruct, float*, float const*, "
                      "float*, float*, float const*, float const*, float)",
                      threads / 16, vec),
          52000, 40, 400, 512, 1, threads));
    }
  }
  c.bn_backward.push_back(Spec(
      "void cudnn::bn_bw_1C11_singleread<float, 512, true, 1, 2, 0>(float, "
      "float, float, float, cudnnTensorStruct, float const*, cudnnTensorStruct, "
      "float const*, cudnnTensorStruct, float*, float const*, float*, float*, "
      "float const*, float const*, float, cudnn::reduced_divisor, int, "
      "cudnn::reduced_divisor, cudnn::bn_bw_1C11_singleread_specialized<float, "
      "512, true, 1, 2, 0>::SMem*, int)",
      38000, 48, 2048, 432, 1, 512));
  for (const char* f : kElementwiseFunctors) {
    for (int arity : {2, 3}) {
      c.elementwise.push_back(Spec(
          fmt::format("void at::native::vectorized_elementwise_kernel<4, {0}, "
                      "at::detail::Array<char*, {1}> >(int, {0}, "
                      "at::detail::Array<char*, {1}>)",
                      f, arity),
          9000 + 3000 * arity, 20 + 4 * arity, 0, 1176, 1, 128));
    }
    c.elementwise.push_back(Spec(
        fmt::format("void at::native::elementwise_kernel<128, 2, "
                    "at::native::gpu_kernel_impl_nocast<{0}>(at::"
                    "TensorIteratorBase&, {0} const&)::{{lambda(int)#1}}>(int, "
                    "at::native::gpu_kernel_impl_nocast<{0}>(at::"
                    "TensorIteratorBase&, {0} const&)::{{lambda(int)#1}})",
                    f),
        14000, 26, 0, 2352, 1, 128));
  }
  for (const char* op : kReduceOps) {
    for (int vt : {4, 2}) {
      c.reduce.push_back(Spec(
          fmt::format("void at::native::reduce_kernel<512, 1, "
                      "at::native::ReduceOp<float, {0}, unsigned int, float, "
                      "{1}> >(at::native::ReduceOp<float, {0}, unsigned int, "
                      "float, {1}>)",
                      op, vt),
          22000, 32, 16, 64, 1, 512));
    }
  }
  c.reduce.push_back(Spec(
      "void (anonymous namespace)::softmax_warp_forward<float, float, float, "
      "10, true, false>(float*, float const*, int, int, int, bool const*, int, "
      "bool)",
      8000, 40, 0, 64, 1, 128));
  c.reduce.push_back(Spec(
      "void (anonymous namespace)::softmax_warp_backward<float, float, float, "
      "10, true, false>(float*, float const*, float const*, int, int, int, "
      "bool const*)",
      9000, 40, 0, 64, 1, 128));
  c.reduce.push_back(Spec(
      "void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_"
      "kernel_2d<float, float, long>(float*, float*, float const*, long const*, "
      "float const*, bool, long, long, long, long)",
      6000, 24, 0, 1, 1, 32));
  c.reduce.push_back(Spec(
      "void at::native::(anonymous namespace)::nll_loss_backward_reduce_cuda_"
      "kernel_2d<float, long>(float*, float const*, long const*, float const*, "
      "float const*, bool, int, int, long, long)",
      5000, 24, 0, 1, 1, 32));
  c.reduce.push_back(Spec("ampere_sgemm_128x64_tn", 60000, 122, 33280, 16, 4, 128));
  c.reduce.push_back(
      Spec("ampere_sgemm_64x32_sliced1x4_nn", 42000, 90, 16384, 32, 2, 128));
  c.reduce.push_back(Spec(
      "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_16x3_nn_"
      "align4>(cutlass_80_tensorop_s1688gemm_128x128_16x3_nn_align4::Params)",
      75000, 254, 73728, 8, 8, 128));
  for (int depth : {1, 2, 3}) {
    c.optimizer.push_back(Spec(
        fmt::format("void at::native::(anonymous namespace)::multi_tensor_"
                    "apply_kernel<at::native::(anonymous namespace)::"
                    "TensorListMetadata<{0}>, at::native::(anonymous "
                    "namespace)::BinaryOpListAlphaFunctor<float, {0}, {0}, 0>, "
                    "std::plus<float>, float>(at::native::(anonymous "
                    "namespace)::TensorListMetadata<{0}>, at::native::"
                    "(anonymous namespace)::BinaryOpListAlphaFunctor<float, "
                    "{0}, {0}, 0>, std::plus<float>, float)",
                    depth + 1),
        30000 + 10000 * depth, 38, 0, 320, 1, 512));
  }
  for (const char* proto : {"LL", "LL128", "SIMPLE"}) {
    c.nccl_allreduce.push_back(Spec(
        fmt::format("ncclKernel_AllReduce_RING_{}_Sum_float(ncclDevComm*, "
                    "unsigned long, ncclWork*)",
                    proto),
        900000, 96, 0, 2, 1, 640));
  }
  c.nccl_broadcast.push_back(
      Spec("ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclDevComm*, unsigned "
           "long, ncclWork*)",
           40000, 96, 0, 1, 1, 640));
  return c;
}

const char* const kPythonSites[] = {
    "torch/nn/modules/module.py(1527): _call_impl",
    "torch/nn/modules/module.py(1518): _wrapped_call_impl",
    "torch/nn/modules/conv.py(460): forward",
    "torch/nn/modules/conv.py(456): _conv_forward",
    "torch/nn/modules/batchnorm.py(171): forward",
    "torch/nn/functional.py(2478): batch_norm",
    "torch/nn/modules/activation.py(101): forward",
    "torch/nn/functional.py(1469): relu",
    "torchvision/models/resnet.py(143): forward",
    "torch/nn/parallel/distributed.py(1414): _run_ddp_forward",
    "<built-in method conv2d of type object at 0x7f3e5c2b1ec0>",
    "<built-in method batch_norm of type object at 0x7f3e5c2b1ec0>",
    "<built-in method relu_ of type object at 0x7f3e5c2b1ec0>",
};
const int kPythonSiteCount = sizeof(kPythonSites) / sizeof(kPythonSites[0]);

const char* const kPythonModules[] = {"Conv2d", "BatchNorm2d", "ReLU",
                                      "Bottleneck", "Sequential"};
const int kPythonModuleCount =
    sizeof(kPythonModules) / sizeof(kPythonModules[0]);

}  // namespace tracelint::gen
