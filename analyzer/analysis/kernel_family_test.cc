// The report's kernel families and compute dtypes (kernel_family.cc), on
// kernel names of the vendor libraries, compilers and serving stacks.

#include <string>
#include <string_view>
#include <vector>

#include "analyzer/analysis/kernel_classify.h"
#include "gtest/gtest.h"

namespace tracelint {
namespace {

using F = DeviceFamily;
using D = ComputeDtype;

struct Case {
  std::string name;
  F family;
  D dtype = D::kUnknown;
  std::string op = {};
  std::string op_dtype = {};
};

void ExpectAll(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    LaunchHints h;
    h.op_name = c.op;
    h.op_dtype = c.op_dtype;
    KernelClass got = ClassifyDeviceActivity(EventKind::kKernel, c.name, h);
    EXPECT_EQ(DeviceFamilyName(got.device_family), DeviceFamilyName(c.family))
        << c.name << " op=" << c.op;
    EXPECT_EQ(ComputeDtypeName(got.dtype), ComputeDtypeName(c.dtype)) << c.name << " op=" << c.op;
  }
}

TEST(KernelFamily, NvidiaGemmsAndTheirDtypes) {
  ExpectAll({
      {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_"
       "execute_segment_k_off_kernel__5x_cublas",
       F::kGemm, D::kBf16},
      {"sm90_xmma_gemm_e4m3e4m3_e4m3f32_f32_tn_n_tilesize128x128x128", F::kGemm, D::kFp8},
      {"sm80_xmma_gemm_tf32f32_tf32f32_f32_nn_n_tilesize64x64x8", F::kGemm, D::kTf32},
      {"sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize64x64x8_stage3", F::kGemm, D::kFp32},
      {"ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_tn", F::kGemm, D::kBf16},
      {"ampere_fp16_s16816gemm_fp16_64x64_sliced1x2_ldg8_f2f_tn", F::kGemm, D::kFp16},
      {"ampere_sgemm_128x64_nn", F::kGemm, D::kFp32},
      {"volta_h884gemm_64x64_ldg8_nn", F::kGemm, D::kFp16},
      {"turing_i8816gemm_int8_128x128_ldg16_nt", F::kGemm, D::kInt8},
      {"void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x64_32x6_nt_align1>(x)", F::kGemm,
       D::kTf32},
      {"void cutlass::Kernel2<cutlass_75_tensorop_bf16_s1688gemm_bf16_256x128_tn_align1>(x)",
       F::kGemm, D::kBf16},
      {"nvjet_tst_128x256_64x4_1x2_h_bz_coopA_TNN", F::kGemm, D::kBf16},
      {"nvjet_hsh_256x128_64x4_2x1_v_bz_coopA_NTN", F::kGemm, D::kFp16},
      {"nvjet_qqtst_128x256_128x6_2x1_2cta_v_bz_TNT", F::kGemm, D::kFp8},
      {"nvjet_sss_tf32_128x256_TNT", F::kGemm, D::kTf32},
      // CUDA 13's cuBLAS: the architecture before the code, which read as a
      // code ("sm90") said fp32 and put bf16 GEMMs at 11x the fp32 peak.
      {"nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT", F::kGemm, D::kBf16, "aten::mm",
       "float"},
      {"nvjet_sm100a_hsh_128x256_64x4_2x1_v_bz_coopA_NTN", F::kGemm, D::kFp16},
      {"nvjet_sm90_sss_128x64_64x8_2x1_v_bz_TNN", F::kGemm, D::kFp32},
      {"void gemv2T_kernel_val<int, int, __nv_bfloat16, __nv_bfloat16, __nv_bfloat16, float>",
       F::kGemm, D::kBf16},
      {"void cublasLt::splitKreduce_kernel<32, 16, int, __nv_bfloat16, __nv_bfloat16, float>",
       F::kGemm, D::kBf16},
      // The name says nothing: the op's dtype.
      {"triton_tem_fused_mm_0", F::kGemm, D::kBf16, "aten::mm", "c10::BFloat16"},
  });
}

TEST(KernelFamily, ConvolutionsRunAsGemmsAndCudnnNamesTheOpRefines) {
  ExpectAll({
      // cuDNN runs some convolution gradients as plain GEMMs: the
      // convolution's work, in its direction.
      {"void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_128x128_32x3_tn_align4>(x)",
       F::kConvBwd, D::kTf32, "aten::convolution_backward", "float"},
      {"sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize64x64x8", F::kConvFwd, D::kFp32,
       "aten::cudnn_convolution", "float"},
      // The same GEMM under a matmul stays a GEMM.
      {"void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_128x128_32x3_tn_align4>(x)",
       F::kGemm, D::kTf32, "aten::mm", "float"},
      // CUTLASS's mangled element type: TF32 under an fp32 op.
      {"_ZN17cutlass__5x_cudnn6KernelINS_4conv6kernel23ImplicitGemmConvolutionINS1_11"
       "threadblock22ImplicitGemmMultistageINS_10tfloat32_tENS_9transform",
       F::kConvBwd, D::kTf32, "aten::convolution_backward", "float"},
      // cuDNN says "f16" of both 16-bit formats; the op knows which.
      {"cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x128_4x1x1_"
       "kernel0_0",
       F::kAttention, D::kBf16, "aten::_scaled_dot_product_cudnn_attention", "c10::BFloat16"},
      {"cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x128_4x1x1_"
       "kernel0_0",
       F::kAttention, D::kFp16, "aten::_scaled_dot_product_cudnn_attention", "c10::Half"},
  });
}

TEST(KernelFamily, BlockScaledFormats) {
  ExpectAll({
      {"bmm_MxE4m3_MxE2m1MxE4m3_Fp32_t128x8x512u2_s3_et64x8_m64x8x64_cga1x1x1_16dp256b_TN_"
       "transOut_schedS_sm100a",
       F::kGemm, D::kMxfp4},
      {"bmm_E4m3_E4m3E4m3_Fp32_t128x8x128_s6_et64x8_m64x8x32_cga1x1x1_16dp256b_TN_sm100a",
       F::kGemm, D::kFp8},
      {"void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<MainloopSm100Tma"
       "UmmaWarpSpecializedBlockScaled<cutlass::nv_float4_t<cutlass::float_e2m1_t>, "
       "cutlass::float_ue4m3_t>>>(x)",
       F::kGemm, D::kNvfp4},
      {"sm100_gemm_mxfp8_e4m3_ue8m0_tn_tcgen05", F::kGemm, D::kMxfp8},
  });
}

TEST(KernelFamily, GroupedAndMoeGemms) {
  ExpectAll({
      {"fused_moe_kernel", F::kGroupedGemm, D::kBf16, "vllm::fused_moe", "c10::BFloat16"},
      {"void tensorrt_llm::kernels::cutlass_kernels::moe_gemm_kernel<__nv_bfloat16>(x)",
       F::kGroupedGemm, D::kBf16},
      {"void cutlass::device_kernel<cutlass3x_sm90_grouped_gemm_e4m3_e4m3_f32>(x)",
       F::kGroupedGemm, D::kFp8},
      {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", F::kGroupedGemm, D::kBf16, "aten::_grouped_mm",
       "c10::BFloat16"},
      {"_ZN5aiter30fmoe_bf16_g1u1_silu_kernelEv", F::kGroupedGemm, D::kBf16},
  });
}

TEST(KernelFamily, AttentionKinds) {
  const auto kind = [](std::string_view name, std::string_view op = {}) {
    LaunchHints h;
    h.op_name = op;
    return AttentionKindName(ClassifyDeviceActivity(EventKind::kKernel, name, h).attention);
  };
  EXPECT_EQ(kind("void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits"
                 "<64, 128, 128, 4, false, false, cutlass::bfloat16_t>>"),
            "flash");
  EXPECT_EQ(kind("void flash::flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128>>"),
            "decode");
  EXPECT_EQ(kind("void vllm::paged_attention_v2_kernel<__nv_bfloat16, 128>(x)"), "paged");
  EXPECT_EQ(kind("fmha_cutlassF_f16_aligned_64x128_rf_sm80(PyTorchMemEffAttention)"), "sdpa");
  EXPECT_EQ(kind("cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_3"), "sdpa");
  EXPECT_EQ(kind("attn_fwd", "aten::_scaled_dot_product_flash_attention"), "flash");
  ExpectAll({
      {"void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, "
       "128, 4, false, false, cutlass::bfloat16_t>>",
       F::kAttention, D::kBf16},
      {"attn_fwd", F::kAttention, D::kBf16, "aten::_scaled_dot_product_flash_attention",
       "c10::BFloat16"},
  });
}

TEST(KernelFamily, Convolutions) {
  ExpectAll({
      {"sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nchw", F::kConvFwd, D::kTf32},
      {"sm80_xmma_wgrad_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nhwc", F::kConvBwd,
       D::kTf32},
      {"void cudnn::detail::dgrad_engine<float, 512, 6, 5, 3, 3, 3, false>(int)", F::kConvBwd,
       D::kFp32},
      {"void cudnn::cnn::wgrad_alg0_engine<float, 128, 6, 7, 3, 3, 5, false, 512>(int)",
       F::kConvBwd, D::kFp32},
      {"void implicit_convolve_sgemm<float, float, 1024, 6, 7, 3, 3, 5, 1, false>(int)",
       F::kConvFwd, D::kFp32},
      {"igemm_fwd_gtcx3_nhwc_bf16_bx0_ex1_bt128x256x32_wt32x32x8", F::kConvFwd, D::kBf16},
      {"igemm_wrw_gtcx3_nhwc_fp16_bx0_ex1_bt128x128x32", F::kConvBwd, D::kFp16},
      {"_ZN2ck16tensor_operation6device12_GLOBAL__N_139kernel_grouped_conv_fwd_xdl_cshuffle_v3",
       F::kConvFwd, D::kBf16, "aten::convolution", "c10::BFloat16"},
      {"volta_scudnn_128x64_relu_interior_nn_v1", F::kConvFwd, D::kFp32},
  });
}

TEST(KernelFamily, AmdGemmDtypesFromTensileNames) {
  ExpectAll({
      {"Cijk_Ailk_Bljk_B_BS_BH_Bias_HA_S_SAV_UserArgs_MT64x288x64_MI16x16x1_SN_LDSB1",
       F::kGemm, D::kBf16},
      {"Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT128x16x128_MI16x16x1_SN_LDSB1", F::kGemm,
       D::kBf16},
      {"Cijk_Ailk_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1_SN_1LDSB0", F::kGemm, D::kFp16},
      {"Cijk_Ailk_Bljk_SB_MT64x64x16_SN_1LDSB0_APM1", F::kGemm, D::kFp32},
      {"Cijk_Ailk_Bljk_F8F8S_BH_MT256x256x128_MI32x32x16x1", F::kGemm, D::kFp8},
      {"Cijk_Alik_Bljk_I8II_BH_MT128x128x64_MI32x32x16x1", F::kGemm, D::kInt8},
      {"Cijk_Ailk_Bljk_XS_BH_MT128x128x32", F::kGemm, D::kTf32},
      {"Cijk_Ailk_Bljk_DB_MT64x64x16", F::kGemm, D::kFp64},
      // Composable Kernel names are mangled: the op's dtype decides, even
      // where a substitution reads like a type ("ES8_S8_").
      {"_ZN2ck16tensor_operation6device12_GLOBAL__N_149kernel_grouped_conv_fwd_multiple_abd_"
       "xdl_cshuffleINS_34GridwiseGemmMultipleD_xdl_cshuffleItttftNS_5TupleIJEEEtNS0_12element_"
       "wise11PassThroughES8_S8_Li1ELi256",
       F::kConvFwd, D::kBf16, "aten::convolution", "c10::BFloat16"},
      {"_ZN2ck27kernel_gemm_xdl_cshuffle_v3INS_28GridwiseGemm_xdl_cshuffle_v3IttfEE", F::kGemm,
       D::kFp16, "aten::mm", "c10::Half"},
  });
}

TEST(KernelFamily, MemoryBoundFamiliesByNameAndByOp) {
  ExpectAll({
      {"void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, "
       "float>(int)",
       F::kNormalization, D::kBf16, "aten::native_layer_norm", "c10::BFloat16"},
      {"void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, 512, true, 1>(x)",
       F::kNormalization},
      {"void (anonymous namespace)::softmax_warp_forward<c10::BFloat16, c10::BFloat16, float>",
       F::kSoftmax},
      {"void at::native::(anonymous namespace)::cunn_SoftMaxForward<8, c10::BFloat16>(x)",
       F::kSoftmax},
      {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>",
       F::kElementwise, D::kFp32, "aten::add", "float"},
      {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, MeanOps<float>>>",
       F::kReduction},
      {"void at::native::(anonymous namespace)::indexSelectLargeIndex<c10::BFloat16, long>",
       F::kEmbedding},
      {"void split_embedding_backward_codegen_rowwise_adagrad_unweighted_kernel<c10::Half>",
       F::kEmbedding},
      {"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<FusedAdamMathFunctor>",
       F::kOptimizer},
      // A generic kernel under an op of another family.
      {"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>",
       F::kNormalization, D::kFp32, "aten::native_layer_norm", "float"},
      {"void at::native::reduce_kernel<512, 1>", F::kSoftmax, D::kUnknown, "aten::_softmax"},
      {"void at::native::vectorized_elementwise_kernel<4, AddFunctor<float>>", F::kOptimizer,
       D::kFp32, "aten::_foreach_add_", "float"},
      // Inductor: the fused ops' words.
      {"triton_per_fused__to_copy_add_addmm_mean_mul_pow_rsqrt_transpose_view_8",
       F::kNormalization},
      {"triton_red_fused_add_addmm_mul_native_layer_norm_split_unsqueeze_view_16",
       F::kNormalization},
      {"triton_per_fused__softmax_amax_exp_sub_sum_3", F::kSoftmax},
      {"triton_poi_fused_addmm_gelu_view_15", F::kElementwise},
      {"triton_red_fused_sum_4", F::kReduction},
      {"loop_add_fusion", F::kElementwise},
      {"input_reduce_fusion_1", F::kReduction},
      {"void at::native::(anonymous namespace)::CatArrayBatchedCopy<OpaqueType<2u>, 4>(x)",
       F::kElementwise},
      {"some_custom_kernel", F::kOther},
  });
}

TEST(KernelFamily, UnnamedKernelsTakeTheirOpsMatrixFamily) {
  ExpectAll({
      {"Kernel", F::kGemm, D::kBf16, "aten::mm", "c10::BFloat16"},
      {"custom_kernel_v2", F::kConvBwd, D::kFp32, "aten::convolution_backward", "float"},
      {"custom_kernel_v2", F::kAttention, D::kFp16, "aten::_efficient_attention_forward",
       "c10::Half"},
  });
  // The coarse view follows, and so does Tensor Core use by dtype.
  LaunchHints h;
  h.op_name = "aten::mm";
  h.op_dtype = "c10::BFloat16";
  KernelClass k = ClassifyDeviceActivity(EventKind::kKernel, "Kernel", h);
  EXPECT_EQ(k.family, KernelFamily::kGemm);
  EXPECT_EQ(k.tc, TensorCoreUse::kYes);
}

TEST(KernelFamily, CommunicationCopiesAndMemsets) {
  LaunchHints none;
  EXPECT_EQ(ClassifyDeviceActivity(EventKind::kMemcpy, "Memcpy HtoD (Pageable -> Device)", none)
                .device_family,
            F::kCopy);
  EXPECT_EQ(ClassifyDeviceActivity(EventKind::kMemset, "Memset (Device)", none).device_family,
            F::kMemset);
  EXPECT_EQ(ClassifyDeviceActivity(EventKind::kKernel,
                                   "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage)",
                                   none)
                .device_family,
            F::kCommunication);
  EXPECT_EQ(ClassifyDeviceActivity(EventKind::kKernel, "void deep_ep::intranode::combine<8>(x)",
                                   none)
                .device_family,
            F::kCommunication);
  // XSpace collectives carry the flag, whatever the XLA op is called.
  LaunchHints flagged;
  flagged.collective = true;
  EXPECT_EQ(ClassifyDeviceActivity(EventKind::kKernel, "all-reduce.3", flagged).device_family,
            F::kCommunication);
  LaunchHints hlo;
  hlo.hlo_category = "convolution fusion";
  EXPECT_EQ(ClassifyDeviceActivity(EventKind::kKernel, "fusion.12", hlo).device_family,
            F::kConvFwd);
  EXPECT_FALSE(IsComputeFamily(F::kCommunication));
  EXPECT_FALSE(IsComputeFamily(F::kCopy));
  EXPECT_FALSE(IsComputeFamily(F::kMemset));
  EXPECT_TRUE(IsComputeFamily(F::kElementwise));
}

TEST(KernelFamily, ComputeDtypeOfOpTypes) {
  EXPECT_EQ(ComputeDtypeOf("c10::BFloat16"), D::kBf16);
  EXPECT_EQ(ComputeDtypeOf("c10::Half"), D::kFp16);
  EXPECT_EQ(ComputeDtypeOf("float"), D::kFp32);
  EXPECT_EQ(ComputeDtypeOf("double"), D::kFp64);
  EXPECT_EQ(ComputeDtypeOf("c10::Float8_e4m3fn"), D::kFp8);
  EXPECT_EQ(ComputeDtypeOf("signed char"), D::kInt8);
  EXPECT_EQ(ComputeDtypeOf("long int"), D::kUnknown);
  EXPECT_EQ(ComputeDtypeOf("unsigned char"), D::kUnknown);
  EXPECT_EQ(ComputeDtypeOf(""), D::kUnknown);
}

TEST(KernelFamily, ArchitectureFromKernelNames) {
  struct ArchCase {
    std::string_view name;
    int major, minor;
    bool exact;
  };
  for (const ArchCase& c : std::vector<ArchCase>{
           {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", 9, 0, true},
           {"sm100_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", 10, 0, true},
           {"bmm_E4m3_E4m3E4m3_Fp32_t128x8x128_TN_transOut_schedS_sm100a", 10, 0, true},
           {"void cutlass::device_kernel<cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32>", 9, 0, true},
           {"sm80_xmma_gemm_f32f32_f32f32_f32_nn_n", 8, 0, false},
           {"sm86_xmma_fprop_implicit_gemm_f16f16_f16f32", 8, 6, false},
           {"ampere_sgemm_128x64_nn", 8, 0, false},
           {"volta_sgemm_128x64_nn", 7, 0, false},
           {"turing_fp16_s1688gemm_fp16_128x128", 7, 5, false},
           {"fmha_cutlassF_f16_aligned_64x128_rf_sm80", 8, 0, false},
           {"ncclKernel_AllReduce_RING_LL_Sum_float", -1, -1, false},
           {"void at::native::elementwise_kernel<128, 4>", -1, -1, false},
           {"smem_transpose_kernel", -1, -1, false},
       }) {
    ArchitectureHint h = ArchitectureFromKernelName(c.name);
    EXPECT_EQ(h.compute_major, c.major) << c.name;
    EXPECT_EQ(h.compute_minor, c.minor) << c.name;
    EXPECT_EQ(h.exact, c.exact) << c.name;
  }
  // Ampere cuBLAS kernels run on Hopper too: the highest prefix wins.
  ArchitectureHint both = HigherArchitecture(ArchitectureFromKernelName("ampere_sgemm_128x64_nn"),
                                             ArchitectureFromKernelName("sm90_xmma_gemm_x"));
  EXPECT_EQ(both.compute_major, 9);
  EXPECT_TRUE(both.exact);
}

}  // namespace
}  // namespace tracelint
