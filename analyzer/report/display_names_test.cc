#include "analyzer/report/display_names.h"

#include "gtest/gtest.h"

namespace tracelint {
namespace {

TEST(DisplayNames, CppSignaturesKeepTheNameAndTemplateHead) {
  EXPECT_EQ(ShortKernelName("void cudnn::cnn::wgrad_alg0_engine<float, 128, 6, 7, 3, 3, 5, false, "
                            "512>(int, int, int, float const*, int, float*, float const*)"),
            "cudnn::cnn::wgrad_alg0_engine<float, 128, 6, 7, 3, 3, 5, false, 512>");
  EXPECT_EQ(ShortKernelName("void at::native::(anonymous namespace)::multi_tensor_apply_kernel"),
            "void at::native::(anonymous namespace)::multi_tensor_apply_kernel");
  EXPECT_EQ(ShortKernelName(
                "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<"
                "float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, "
                "at::detail::Array<char*, 3>)"),
            "at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, ...>");
  // Not C++ signatures: unchanged.
  for (const char* name : {"aten::mm", "ampere_sgemm_128x64_nn",
                           "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
                           "Memcpy HtoD (Pageable -> Device)"}) {
    EXPECT_EQ(ShortKernelName(name), name);
  }
}

TEST(DisplayNames, ShapeListsDropEmptyShapes) {
  EXPECT_EQ(CompactDetail("float32 [[], [32, 1024, 14, 14], [], [], []], pageable source"),
            "float32 [32, 1024, 14, 14], pageable source");
  EXPECT_EQ(CompactDetail("bf16 [[8, 4096], [4096, 4096]]"), "bf16 [8, 4096], [4096, 4096]");
  EXPECT_EQ(CompactDetail("[[], []]"), "[]");
  EXPECT_EQ(CompactDetail("bf16 [[8, 8]]; kernel void cutlass::Kernel<cutlass_80_wmma>(Params) "
                          "(gemm)"),
            "bf16 [8, 8]; kernel cutlass::Kernel<cutlass_80_wmma> (gemm)");
  EXPECT_EQ(CompactDetail("12.0 ms per step"), "12.0 ms per step");
}

}  // namespace
}  // namespace tracelint
