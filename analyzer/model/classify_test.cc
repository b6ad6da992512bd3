#include "analyzer/model/classify.h"

#include "gtest/gtest.h"

namespace tracelint {
namespace {

TEST(Classify, Steps) {
  EXPECT_TRUE(ClassifyFlags(EventKind::kUserAnnotation, "ProfilerStep#12") & kFlagStepMarker);
  EXPECT_TRUE(ClassifyFlags(EventKind::kCpuOp, "ProfilerStep#1") & kFlagStepMarker);
  EXPECT_TRUE(ClassifyFlags(EventKind::kGpuUserAnnotation, "ProfilerStep#1") & kFlagGpuStepMarker);
  EXPECT_FALSE(ClassifyFlags(EventKind::kKernel, "ProfilerStep#1") & kFlagStepMarker);
}

TEST(Classify, CollectivesBothNcclGenerationsAndRccl) {
  EXPECT_TRUE(ClassifyFlags(EventKind::kKernel, "ncclKernel_AllReduce_RING_LL_Sum_float(x)") & kFlagCollective);
  EXPECT_TRUE(ClassifyFlags(EventKind::kKernel, "ncclDevKernel_AllGather_RING_LL(x)") & kFlagCollective);
  EXPECT_TRUE(ClassifyFlags(EventKind::kKernel, "rcclGenericKernel") & kFlagCollective);
  EXPECT_TRUE(ClassifyFlags(EventKind::kCpuOp, "record_param_comms") & kFlagCollective);
  EXPECT_TRUE(ClassifyFlags(EventKind::kUserAnnotation, "nccl:all_reduce") & kFlagCollective);
  EXPECT_FALSE(ClassifyFlags(EventKind::kKernel, "volta_sgemm_128x64_nn") & kFlagCollective);
}

// Symmetric-memory and custom all-reduce kernels (PyTorch SymmetricMemory,
// vLLM, TensorRT-LLM) and MTIA's hccl:* ops are communication too.
TEST(Classify, CollectivesNotNcclNamed) {
  for (std::string_view name :
       {"void c10d::symmetric_memory::multimem_all_reduce_kernel<c10::BFloat16, 16>(x)",
        "void vllm::cross_device_reduce_1stage<__nv_bfloat16, 8>(x)",
        "void vllm::cross_device_reduce_2stage<half, 8>(x)",
        "void c10d::symmetric_memory::one_shot_all_reduce_kernel<float>(x)",
        "void c10d::symmetric_memory::two_shot_all_reduce_kernel<float>(x)",
        "void tensorrt_llm::kernels::oneShotAllReduceKernel<half>(x)",
        "twoShotAllReduceKernel", "multimem_all_gather_kernel"}) {
    EXPECT_TRUE(ClassifyFlags(EventKind::kKernel, name) & kFlagCollective) << name;
  }
  EXPECT_TRUE(ClassifyFlags(EventKind::kUserAnnotation, "hccl:all_reduce") & kFlagCollective);
  EXPECT_TRUE(ClassifyFlags(EventKind::kCpuOp, "hccl:all_to_all") & kFlagCollective);
  // Reductions that only share a word stay compute.
  EXPECT_FALSE(ClassifyFlags(EventKind::kKernel, "reduce_kernel<512, 1>") & kFlagCollective);
  EXPECT_FALSE(ClassifyFlags(EventKind::kKernel, "cross_entropy_loss_kernel") & kFlagCollective);
}

// Expert-parallel and one-sided communication libraries move data between
// devices as NCCL does: DeepEP (dispatch/combine/notify), NVSHMEM, MSCCL++,
// symmetric-memory kernels.
TEST(Classify, CollectivesOfOtherLibraries) {
  for (std::string_view name :
       {"void deep_ep::intranode::dispatch<8, 768, 8192>(int4*, float*, int*)",
        "void deep_ep::internode::combine<__nv_bfloat16, 8>(x)",
        "void deep_ep::intranode::notify_dispatch<8>(int const*, int*, int)",
        "void deep_ep::internode_ll::dispatch<false, 7168>(void*, float*)",
        "void dpsk::ep::intranode::cached_notify_combine<8>(x)",
        "nvshmemi_transfer_rma_kernel<(nvshmemi_op_t)0>(x)",
        "void nvshmemx_barrier_all_block_kernel(int)",
        "void mscclpp::allreduce_allpairs<__nv_bfloat16>(x)",
        "void c10d::symmetric_memory::barrier_kernel(unsigned int**, int, int)",
        "void tensorrt_llm::kernels::ar_fusion::allreduce_fusion_kernel<true, 8>(x)"}) {
    EXPECT_TRUE(ClassifyFlags(EventKind::kKernel, name) & kFlagCollective) << name;
  }
  // Words that only look alike stay compute.
  for (std::string_view name :
       {"void at::native::index_elementwise_kernel<128, 4>(x)",
        "void vllm::moe::topkGatingSoftmax<8>(x)", "dispatch_kernel_helper",
        "void at::native::(anonymous namespace)::combine_kernel(x)"}) {
    EXPECT_FALSE(ClassifyFlags(EventKind::kKernel, name) & kFlagCollective) << name;
  }
}

TEST(Classify, DataLoaderSyncLaunch) {
  EXPECT_TRUE(ClassifyFlags(EventKind::kCpuOp,
                            "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__") &
              kFlagDataLoader);
  EXPECT_TRUE(ClassifyFlags(EventKind::kUserAnnotation, "enumerate(DataPipe)#x") & kFlagDataLoader);
  EXPECT_TRUE(ClassifyFlags(EventKind::kRuntime, "cudaStreamSynchronize") & kFlagSyncCall);
  EXPECT_TRUE(ClassifyFlags(EventKind::kRuntime, "cudaMemcpy") & kFlagSyncCall);
  EXPECT_FALSE(ClassifyFlags(EventKind::kRuntime, "cudaMemcpyAsync") & kFlagSyncCall);
  // Blocking calls on every vendor (hipMemcpyWithStream blocks though it takes a stream).
  for (std::string_view name : {"hipMemcpyWithStream", "hipMemcpy", "hipStreamSynchronize",
                                "hipDeviceSynchronize", "hipEventSynchronize", "cuMemcpyDtoH_v2"}) {
    EXPECT_TRUE(ClassifyFlags(EventKind::kRuntime, name) & kFlagSyncCall) << name;
  }
  EXPECT_TRUE(ClassifyFlags(EventKind::kRuntime, "hipMemcpyWithStream") & kFlagLaunch);
  EXPECT_FALSE(ClassifyFlags(EventKind::kRuntime, "hipMemcpyAsync") & kFlagSyncCall);
  EXPECT_TRUE(ClassifyFlags(EventKind::kRuntime, "cudaMemcpyAsync") & kFlagLaunch);
  EXPECT_TRUE(ClassifyFlags(EventKind::kDriver, "cuLaunchKernelEx") & kFlagLaunch);
  EXPECT_TRUE(ClassifyFlags(EventKind::kRuntime, "hipGraphLaunch") & kFlagGraphLaunch);
  EXPECT_TRUE(ClassifyFlags(EventKind::kCpuOp, "aten::item") & kFlagImplicitSync);
  EXPECT_TRUE(ClassifyFlags(EventKind::kPythonFunction,
                            "torch/autograd/profiler.py(776): __exit__") & kFlagProfilerCode);
  EXPECT_TRUE(ClassifyFlags(EventKind::kCpuOp, "profiler::_record_function_exit._RecordFunction") &
              kFlagProfilerCode);
  EXPECT_FALSE(ClassifyFlags(EventKind::kPythonFunction, "train.py(52): log_metrics") &
               kFlagProfilerCode);
}

TEST(Classify, MemcpyNames) {
  CopyKind k = ParseMemcpyName("Memcpy HtoD (Pageable -> Device)");
  EXPECT_EQ(k.direction, CopyDirection::kHtoD);
  EXPECT_EQ(k.src, MemorySpace::kPageable);
  EXPECT_EQ(k.dst, MemorySpace::kDevice);
  k = ParseMemcpyName("Memcpy DtoH (Device -> Pinned)");
  EXPECT_EQ(k.direction, CopyDirection::kDtoH);
  EXPECT_EQ(k.dst, MemorySpace::kPinned);
  EXPECT_EQ(ParseMemcpyName("MemcpyH2D").direction, CopyDirection::kHtoD);
  EXPECT_EQ(ParseMemcpyName("Memcpy PtoP (Device -> Device)").direction, CopyDirection::kPtoP);
}

}  // namespace
}  // namespace tracelint
