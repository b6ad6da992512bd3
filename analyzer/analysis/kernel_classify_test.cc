#include "analyzer/analysis/kernel_classify.h"

#include <string>

#include "gtest/gtest.h"

namespace tracelint {
namespace {

constexpr KernelFamily kGemm = KernelFamily::kGemm;
constexpr KernelFamily kConv = KernelFamily::kConv;
constexpr KernelFamily kAttn = KernelFamily::kAttention;
constexpr KernelFamily kColl = KernelFamily::kCollective;
constexpr KernelFamily kOther = KernelFamily::kElementwiseOther;
constexpr TensorCoreUse kYes = TensorCoreUse::kYes;
constexpr TensorCoreUse kNo = TensorCoreUse::kNo;
constexpr TensorCoreUse kUnk = TensorCoreUse::kUnknown;

struct Case {
  std::string name;
  std::string dtype;
  KernelClass want;
};

void ExpectAll(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    KernelClass got = ClassifyKernel(c.name, c.dtype);
    EXPECT_EQ(KernelFamilyName(got.family), KernelFamilyName(c.want.family))
        << c.name << " dtype=" << c.dtype;
    EXPECT_EQ(TensorCoreUseName(got.tc), TensorCoreUseName(c.want.tc))
        << c.name << " dtype=" << c.dtype;
  }
}

TEST(KernelClassify, Volta) {
  ExpectAll({
      {"volta_h884gemm_64x64_ldg8_nn", "", {kGemm, kYes}},
      {"volta_s884gemm_fp16_128x128_ldg8_f2f_nn", "", {kGemm, kYes}},
      {"volta_sgemm_128x64_nn", "", {kGemm, kNo}},
      {"volta_sgemm_128x64_nn", "float", {kGemm, kNo}},
      // fp32 cuDNN kernel without a token: the dtype alone cannot decide.
      {"volta_scudnn_128x64_relu_interior_nn_v1", "float", {kConv, kUnk}},
      {"volta_scudnn_128x64_relu_interior_nn_v1", "c10::Half", {kConv, kYes}},
      {"volta_gcgemm_32x32_nt", "", {kGemm, kUnk}},
  });
}

TEST(KernelClassify, Turing) {
  ExpectAll({
      {"turing_fp16_s1688gemm_fp16_128x128_ldg8_f2f_tn", "", {kGemm, kYes}},
      {"turing_h1688gemm_256x128_ldg8_tn", "", {kGemm, kYes}},
      {"turing_i8816gemm_int8_128x128_ldg16_nt", "", {kGemm, kYes}},
      {"void cutlass::Kernel2<cutlass_75_tensorop_bf16_s1688gemm_bf16_256x128_tn_align1>("
       "cutlass_75_tensorop_bf16_s1688gemm_bf16_256x128_tn_align1::Params)",
       "", {kGemm, kYes}},
      {"cudnn_turing_scudnn_128x64_stridedB_splitK_xregs_large_nn_v1", "", {kConv, kUnk}},
  });
}

TEST(KernelClassify, Ampere) {
  ExpectAll({
      {"ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_tn", "", {kGemm, kYes}},
      {"ampere_fp16_s16816gemm_fp16_64x64_sliced1x2_ldg8_f2f_tn", "", {kGemm, kYes}},
      {"ampere_sgemm_128x64_nn", "", {kGemm, kNo}},
      {"void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_16x6_nt_align4>("
       "cutlass_80_tensorop_s1688gemm_64x64_16x6_nt_align4::Params)",
       "float", {kGemm, kYes}},
      {"void cutlass::Kernel<cutlass_80_simt_sgemm_128x128_8x4_nn_align1>(Params)", "",
       {kGemm, kNo}},
      {"sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma",
       "", {kGemm, kNo}},
      {"sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize64x64x8_stage3", "", {kGemm, kNo}},
      {"sm80_xmma_gemm_tf32f32_tf32f32_f32_nn_n_tilesize64x64x8", "", {kGemm, kYes}},
      {"sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x128x16_"
       "stage4_warpsize2x2x1_g1_tensor16x8x8_execute_kernel_cudnn_infer",
       "", {kConv, kYes}},
      {"sm80_xmma_wgrad_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nhwc", "",
       {kConv, kYes}},
      {"void gemv2T_kernel_val<int, int, float, float, float, float, 128, 16, 4, 4, false>",
       "", {kGemm, kNo}},
      {"void gemmSN_TN_kernel<float, 128, 16, 2, 4, 4, 4, true>", "", {kGemm, kNo}},
      {"void splitKreduce_kernel<32, 16, int, float, float, float, float, true, false>", "",
       {kGemm, kNo}},
      {"void cutlass::Kernel2<cutlass_75_wmma_tensorop_bf16_s161616gemm_bf16_32x32_32x1_tn>",
       "", {kGemm, kYes}},
  });
}

TEST(KernelClassify, Hopper) {
  ExpectAll({
      {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_"
       "execute_segment_k_off_kernel__5x_cublas",
       "", {kGemm, kYes}},
      {"sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x64", "", {kGemm, kYes}},
      {"sm90_xmma_gemm_e4m3e4m3_e4m3f32_f32_tn_n_tilesize128x128x64", "", {kGemm, kYes}},
      {"sm90_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_simt", "", {kGemm, kNo}},
      {"nvjet_tst_128x256_64x4_1x2_h_bz_coopA_TNN", "", {kGemm, kYes}},
      {"nvjet_hsh_256x128_64x4_2x1_v_bz_coopA_NTN", "", {kGemm, kYes}},
      {"nvjet_qqtst_128x256_128x6_2x1_2cta_v_bz_TNT", "", {kGemm, kYes}},
      {"nvjet_sss_tf32_128x256_TNT", "", {kGemm, kYes}},
      {"nvjet_sss_128x64_64x8_2x1_v_bz_TNN", "", {kGemm, kNo}},
      // CUDA 13's cuBLAS names the architecture first (PyTorch 2.11, H200).
      {"nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT", "", {kGemm, kYes}},
      {"nvjet_sm100a_hsh_256x128_64x4_2x1_v_bz_coopA_NTN", "", {kGemm, kYes}},
      {"nvjet_sm90_sss_128x64_64x8_2x1_v_bz_TNN", "", {kGemm, kNo}},
      {"void cutlass::device_kernel<cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_bf16_bf16>",
       "", {kGemm, kYes}},
      {"sm90_gmma_gemm_kernel", "", {kGemm, kYes}},
  });
}

TEST(KernelClassify, Blackwell) {
  ExpectAll({
      {"sm100_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize256x128x64_cublas", "",
       {kGemm, kYes}},
      {"sm100_gemm_e4m3_e4m3_f32_tn_umma_tcgen05", "", {kGemm, kYes}},
      {"sm100_xmma_gemm_f32f32_f32f32_f32_nn_n", "", {kGemm, kNo}},
      {"cutlass3x_sm100_tensorop_gemm_f16_f16_f32_void_f16", "", {kGemm, kYes}},
  });
}

// Blackwell block-scaled (MX/NVFP4) and FP8 GEMMs from trtllm-gen and
// CUTLASS, and Hopper FP8: Tensor Core work whatever the op dtype says.
TEST(KernelClassify, BlackwellBlockScaledAndFp8) {
  ExpectAll({
      {"bmm_MxE4m3_MxE2m1MxE4m3_Fp32_t128x8x512u2_s3_et64x8_m64x8x64_cga1x1x1_16dp256b_TN_"
       "transOut_schedS_sm100a",
       "", {kGemm, kYes}},
      {"bmm_E2m1_E2m1E2m1_Fp32_t128x16x256u2_s4_et128x16_m128x16x64_cga1x1x1_16dp256b_TN_"
       "schedS_sm100f",
       "", {kGemm, kYes}},
      {"bmm_E4m3_E4m3E4m3_Fp32_t128x8x128_s6_et64x8_m64x8x32_cga1x1x1_16dp256b_TN_transOut_"
       "schedS_sm100a",
       "float", {kGemm, kYes}},
      {"void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cutlass::gemm::"
       "collective::CollectiveMma<cutlass::gemm::MainloopSm100TmaUmmaWarpSpecializedBlockScaled"
       "<cutlass::nv_float4_t<cutlass::float_e2m1_t>, cutlass::float_ue4m3_t>>>>(x)",
       "", {kGemm, kYes}},
      {"sm90_xmma_gemm_e4m3e4m3_e4m3f32_f32_tn_n_tilesize128x128x128_warpgroupsize1x1x1_"
       "execute_segment_k_off_kernel__5x_cublas",
       "", {kGemm, kYes}},
      {"void tensorrt_llm::kernels::fmhaSm100aKernel_QkvE4m3OBfloat16H128PagedKvCausalP64"
       "VarSeqQ128Kv128PersistentSwapsAbForGen(x)",
       "", {kAttn, kYes}},
      {"sm100_tcgen05_mma_f16_f16_kernel", "", {kOther, kYes}},
      // Quantize/cast kernels carry the format words but are pointwise.
      {"void scaled_fp8_quant_kernel<c10::Float8_e4m3fn>(x)", "", {kOther, kNo}},
      {"cvt_fp16_to_fp4_e2m1_kernel", "", {kOther, kNo}},
  });
}

TEST(KernelClassify, AttentionDependsOnDtype) {
  const std::string flash =
      "void flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 64, 4, false, false>, "
      "false, true>(Flash_fwd_params)";
  ExpectAll({
      {flash, "c10::BFloat16", {kAttn, kYes}},
      {flash, "c10::Half", {kAttn, kYes}},
      {flash, "float", {kAttn, kNo}},
      {flash, "", {kAttn, kUnk}},
      // The template argument names the element type.
      {"void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, "
       "128, 4, false, false, cutlass::bfloat16_t>>",
       "", {kAttn, kYes}},
      {"fmha_cutlassF_f32_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel)", "",
       {kAttn, kNo}},
      {"fmha_cutlassF_f16_aligned_64x128_rf_sm80", "", {kAttn, kYes}},
      {"attn_fwd", "", {kAttn, kUnk}},
      {"attn_fwd", "bf16", {kAttn, kYes}},
  });
}

TEST(KernelClassify, RocmAndOthers) {
  ExpectAll({
      {"Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT128x16x128_MI16x16x1_SN_LDSB1", "",
       {kGemm, kUnk}},
      {"Cijk_Ailk_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x16x32", "c10::BFloat16", {kGemm, kUnk}},
      {"igemm_fwd_gtcx3_nhwc_bf16_bx0_ex1_bt128x128x32_wt32x32x8", "", {kConv, kUnk}},
      {"_ZN2ck16tensor_operation6device12_GLOBAL__N_139kernel_grouped_conv_fwd_xdl_cshuffle_v3"
       "INS_34GridwiseGemmMultiD_xdl_cshuffle_v3",
       "", {kConv, kUnk}},
      {"ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", "",
       {kColl, kNo}},
      {"ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "", {kColl, kNo}},
      {"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>",
       "", {kOther, kNo}},
      {"triton_poi_fused__scaled_dot_product_flash_attention_cat_transpose_view_10", "",
       {kOther, kNo}},
      {"triton_red_fused__unsafe_view_add_addmm_clone_convolution_mul_native_layer_norm", "",
       {kOther, kNo}},
      {"void fbgemm_gpu::permute_2D_lengths_kernel<int>(int, int, int const*, int*)", "",
       {kOther, kNo}},
      {"reshape_and_cache_flash_kernel", "", {kOther, kNo}},
      {"void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int>", "",
       {kOther, kNo}},
      {"void cudnn::winograd_nonfused::winogradForwardData4x4<float, float>", "",
       {kConv, kUnk}},
      {"void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda>",
       "", {kOther, kNo}},
  });
}

TEST(KernelClassify, GenericGemmWithLowPrecisionDtype) {
  ExpectAll({
      {"triton_tem_fused_mm_0", "c10::BFloat16", {kGemm, kYes}},
      {"triton_tem_fused_mm_0", "float", {kGemm, kUnk}},
      {"gemm_kernel", "", {kGemm, kUnk}},
  });
}

TEST(KernelClassify, Dtypes) {
  EXPECT_EQ(ClassifyDtype("c10::BFloat16"), DtypeClass::k16Bit);
  EXPECT_EQ(ClassifyDtype("c10::Half"), DtypeClass::k16Bit);
  EXPECT_EQ(ClassifyDtype("torch.float16"), DtypeClass::k16Bit);
  EXPECT_EQ(ClassifyDtype("c10::Float8_e4m3fn"), DtypeClass::kFp8);
  EXPECT_EQ(ClassifyDtype("signed char"), DtypeClass::kInt8);
  EXPECT_EQ(ClassifyDtype("unsigned char"), DtypeClass::kUnknown);
  EXPECT_EQ(ClassifyDtype("float"), DtypeClass::kFp32);
  EXPECT_EQ(ClassifyDtype("double"), DtypeClass::kFp64);
  EXPECT_EQ(ClassifyDtype("long int"), DtypeClass::kUnknown);
  EXPECT_EQ(ClassifyDtype(""), DtypeClass::kUnknown);
}

}  // namespace
}  // namespace tracelint
