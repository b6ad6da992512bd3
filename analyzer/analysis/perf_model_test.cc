// The op model against TraceLens's numbers for the same shapes (its perf
// model on the H100 Qwen and BERT traces: GFLOP per call and MiB moved per
// call), and the cases where nothing may be guessed.

#include "analyzer/analysis/perf_model.h"

#include <optional>
#include <string>

#include "gtest/gtest.h"

namespace tracelint {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

std::optional<OpModel> Model(std::string_view name, std::string_view dims,
                             std::string_view types, std::string_view concrete = {}) {
  OpInputs in;
  in.name = name;
  in.input_dims = dims;
  in.input_types = types;
  in.concrete_inputs = concrete;
  return ModelOp(in);
}

TEST(PerfModel, GemmsMatchTraceLens) {
  std::optional<OpModel> mm = Model("aten::mm", "[[8944, 1024], [1024, 2816]]",
                                    R"(["c10::BFloat16", "c10::BFloat16"])");
  ASSERT_TRUE(mm.has_value());
  EXPECT_EQ(mm->family, DeviceFamily::kGemm);
  EXPECT_EQ(mm->dtype, ComputeDtype::kBf16);
  EXPECT_DOUBLE_EQ(mm->flops, 51.581550592e9);
  EXPECT_DOUBLE_EQ(mm->bytes / kMiB, 71.0078125);
  EXPECT_EQ(mm->params, "M=8944 N=2816 K=1024");

  // addmm: 2*M*N*K plus M*N for the bias, and the bias read.
  std::optional<OpModel> addmm =
      Model("aten::addmm", "[[1024], [8944, 1024], [1024, 1024], [], []]",
            R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar"])");
  ASSERT_TRUE(addmm.has_value());
  EXPECT_DOUBLE_EQ(addmm->flops, 18.766086144e9);
  EXPECT_DOUBLE_EQ(addmm->bytes / kMiB, 36.939453125);
  std::optional<OpModel> small =
      Model("aten::addmm", "[[512], [141, 512], [512, 512], [], []]",
            R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar"])");
  ASSERT_TRUE(small.has_value());
  EXPECT_DOUBLE_EQ(small->flops, 0.0739968e9);
  EXPECT_DOUBLE_EQ(small->bytes / kMiB, 0.7763671875);
  std::optional<OpModel> vocab =
      Model("aten::addmm", "[[30522], [141, 512], [512, 30522], [], []]",
            R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar"])");
  ASSERT_TRUE(vocab.has_value());
  EXPECT_DOUBLE_EQ(vocab->flops, 4.41119205e9);
  EXPECT_NEAR(vocab->bytes / kMiB, 38.211021423339844, 1e-9);
}

TEST(PerfModel, BatchedAndBroadcastGemms) {
  std::optional<OpModel> bmm = Model("aten::bmm", "[[16, 128, 64], [16, 64, 256]]",
                                     R"(["c10::Half", "c10::Half"])");
  ASSERT_TRUE(bmm.has_value());
  EXPECT_DOUBLE_EQ(bmm->flops, 2.0 * 16 * 128 * 256 * 64);
  EXPECT_EQ(bmm->dtype, ComputeDtype::kFp16);
  std::optional<OpModel> baddbmm =
      Model("aten::baddbmm", "[[16, 128, 256], [16, 128, 64], [16, 64, 256], [], []]",
            R"(["float", "float", "float", "Scalar", "Scalar"])");
  ASSERT_TRUE(baddbmm.has_value());
  EXPECT_DOUBLE_EQ(baddbmm->flops, 2.0 * 16 * 128 * 256 * 64 + 16.0 * 128 * 256);
  // matmul broadcasts batch dimensions.
  std::optional<OpModel> matmul =
      Model("aten::matmul", "[[4, 1, 32, 16], [3, 16, 8]]", R"(["float", "float"])");
  ASSERT_TRUE(matmul.has_value());
  EXPECT_DOUBLE_EQ(matmul->flops, 2.0 * 12 * 32 * 8 * 16);
  // linear folds leading dims into M; the bias adds M*N.
  std::optional<OpModel> linear =
      Model("aten::linear", "[[16, 559, 1024], [1024, 1024], [1024]]",
            R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16"])");
  ASSERT_TRUE(linear.has_value());
  EXPECT_DOUBLE_EQ(linear->flops, 18.766086144e9);
  // fp8 scaled GEMM.
  std::optional<OpModel> scaled =
      Model("aten::_scaled_mm", "[[4096, 8192], [8192, 1024], [], [], [], [], [], []]",
            R"(["c10::Float8_e4m3fn", "c10::Float8_e4m3fn", "float", "float", "", "", "", ""])");
  ASSERT_TRUE(scaled.has_value());
  EXPECT_EQ(scaled->dtype, ComputeDtype::kFp8);
  EXPECT_DOUBLE_EQ(scaled->flops, 2.0 * 4096 * 1024 * 8192);
  // MoE: tokens [T, K] x experts [G, K, N].
  std::optional<OpModel> grouped =
      Model("aten::_grouped_mm", "[[8192, 2048], [64, 2048, 768], [64]]",
            R"(["c10::BFloat16", "c10::BFloat16", "int"])");
  ASSERT_TRUE(grouped.has_value());
  EXPECT_EQ(grouped->family, DeviceFamily::kGroupedGemm);
  EXPECT_DOUBLE_EQ(grouped->flops, 2.0 * 8192 * 2048 * 768);
  // Mismatched inner dimensions: not a GEMM the model can count.
  EXPECT_FALSE(Model("aten::mm", "[[8, 4], [5, 8]]", R"(["float", "float"])").has_value());
}

TEST(PerfModel, AttentionMatchesTraceLensAndNeedsIsCausal) {
  const std::string dims =
      "[[16, 16, 559, 64], [16, 16, 559, 64], [16, 16, 559, 64], [], [], [], []]";
  const std::string types =
      R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar", "Scalar", "Scalar"])";
  std::optional<OpModel> flash = Model("aten::_scaled_dot_product_flash_attention", dims, types,
                                       R"(["", "", "", "0.", "True", "False", "0.125"])");
  ASSERT_TRUE(flash.has_value());
  EXPECT_EQ(flash->family, DeviceFamily::kAttention);
  EXPECT_DOUBLE_EQ(flash->flops, 10.239377408e9);
  EXPECT_DOUBLE_EQ(flash->bytes / kMiB, 69.875);
  std::optional<OpModel> full = Model("aten::_scaled_dot_product_flash_attention", dims, types,
                                      R"(["", "", "", "0.", "False", "False", "0.125"])");
  ASSERT_TRUE(full.has_value());
  EXPECT_DOUBLE_EQ(full->flops, 2 * 10.239377408e9);
  // Without the scalar inputs the count is unknown by a factor of 2.
  EXPECT_FALSE(Model("aten::_scaled_dot_product_flash_attention", dims, types).has_value());
  // The backward is 2.5x the forward.
  std::optional<OpModel> bwd = Model(
      "aten::_scaled_dot_product_flash_attention_backward",
      "[[16, 16, 559, 64], [16, 16, 559, 64], [16, 16, 559, 64], [16, 16, 559, 64], "
      "[16, 16, 559, 64], [16, 16, 559], [], [], [], [], [], [], [], []]",
      R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "float"])",
      R"(["", "", "", "", "", "", "", "", "559", "559", "0.", "True", "", ""])");
  ASSERT_TRUE(bwd.has_value());
  EXPECT_DOUBLE_EQ(bwd->flops, 2.5 * 10.239377408e9);
}

TEST(PerfModel, Convolutions) {
  // 3x3, stride 1, padding 1: output 56x56.
  std::optional<OpModel> conv = Model(
      "aten::convolution", "[[32, 64, 56, 56], [128, 64, 3, 3], [], [], [], [], [], [], []]",
      R"(["c10::BFloat16", "c10::BFloat16", "", "ScalarList", "ScalarList", "ScalarList", "Scalar", "ScalarList", "Scalar"])",
      R"(["", "", "", "[1, 1]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1"])");
  ASSERT_TRUE(conv.has_value());
  EXPECT_EQ(conv->family, DeviceFamily::kConvFwd);
  EXPECT_DOUBLE_EQ(conv->flops, 2.0 * 32 * 128 * 56 * 56 * 64 * 9);
  // Stride 2 halves each output dimension; groups divide the channels.
  std::optional<OpModel> strided = Model(
      "aten::convolution", "[[8, 32, 64, 64], [32, 8, 3, 3], [32], [], [], [], [], [], []]",
      R"(["float", "float", "float"])",
      R"(["", "", "", "[2, 2]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "4"])");
  ASSERT_TRUE(strided.has_value());
  EXPECT_DOUBLE_EQ(strided->flops, 2.0 * 8 * 32 * 32 * 32 * 8 * 9 + 8.0 * 32 * 32 * 32);
  // The backward: one forward convolution per gradient asked for.
  std::optional<OpModel> bwd = Model(
      "aten::convolution_backward",
      "[[32, 128, 56, 56], [32, 64, 56, 56], [128, 64, 3, 3], [], [], [], [], [], [], [], []]",
      R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16"])",
      R"(["", "", "", "[128]", "[1, 1]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1", "[False, True, True]"])");
  ASSERT_TRUE(bwd.has_value());
  EXPECT_EQ(bwd->family, DeviceFamily::kConvBwd);
  EXPECT_DOUBLE_EQ(bwd->flops, 2.0 * 32 * 128 * 56 * 56 * 64 * 9);
  // No scalar inputs recorded (older PyTorch): the output size is unknown.
  EXPECT_FALSE(Model("aten::convolution",
                     "[[32, 64, 56, 56], [128, 64, 3, 3], [], [], [], [], [], [], []]",
                     R"(["float", "float"])")
                   .has_value());
}

TEST(PerfModel, MemoryBoundOpsMatchTraceLensBytes) {
  auto mib = [](std::string_view name, std::string_view dims, std::string_view types) {
    std::optional<OpModel> m = Model(name, dims, types);
    return m.has_value() ? m->bytes / kMiB : -1.0;
  };
  EXPECT_DOUBLE_EQ(mib("aten::copy_", "[[16, 16, 559, 64], [16, 16, 559, 64], []]",
                       R"(["c10::BFloat16", "c10::BFloat16", "Scalar"])"),
                   34.9375);
  EXPECT_DOUBLE_EQ(mib("aten::copy_", "[[16, 559, 1024], [16, 559, 1024], []]",
                       R"(["float", "c10::BFloat16", "Scalar"])"),
                   52.40625);
  EXPECT_DOUBLE_EQ(mib("aten::add", "[[16, 16, 559, 64], [16, 16, 559, 64], []]",
                       R"(["c10::BFloat16", "c10::BFloat16", "Scalar"])"),
                   52.40625);
  EXPECT_NEAR(mib("aten::mul", "[[16, 559, 1024], [16, 559, 1]]", R"(["float", "float"])"),
              69.90911865234375, 1e-9);
  EXPECT_NEAR(mib("aten::mul", "[[16, 16, 559, 64], [1, 1, 559, 64]]",
                  R"(["c10::BFloat16", "c10::BFloat16"])"),
              35.0057373046875, 1e-9);
  EXPECT_DOUBLE_EQ(mib("aten::pow", "[[16, 559, 1024], []]", R"(["float", "Scalar"])"), 69.875);
  std::optional<OpModel> mean =
      Model("aten::mean", "[[16, 559, 1024], [], [], []]", R"(["float", "ScalarList"])");
  ASSERT_TRUE(mean.has_value());
  EXPECT_EQ(mean->family, DeviceFamily::kReduction);
  EXPECT_DOUBLE_EQ(mean->bytes / kMiB, 34.9375);
  std::optional<OpModel> norm = Model("aten::native_layer_norm",
                                      "[[1, 141, 512], [], [512], [512], []]",
                                      R"(["c10::BFloat16", "ScalarList", "c10::BFloat16"])");
  ASSERT_TRUE(norm.has_value());
  EXPECT_EQ(norm->family, DeviceFamily::kNormalization);
  EXPECT_DOUBLE_EQ(norm->bytes, 2.0 * 141 * 512 * 2);
  std::optional<OpModel> softmax =
      Model("aten::_softmax", "[[8, 16, 128, 128], [], []]", R"(["float", "Scalar", "Scalar"])");
  ASSERT_TRUE(softmax.has_value());
  EXPECT_EQ(softmax->family, DeviceFamily::kSoftmax);
  EXPECT_DOUBLE_EQ(softmax->bytes, 2.0 * 8 * 16 * 128 * 128 * 4);
  std::optional<OpModel> emb =
      Model("aten::embedding", "[[151936, 1024], [16, 559], [], [], []]",
            R"(["c10::BFloat16", "long int", "Scalar", "Scalar", "Scalar"])");
  ASSERT_TRUE(emb.has_value());
  EXPECT_EQ(emb->family, DeviceFamily::kEmbedding);
  EXPECT_DOUBLE_EQ(emb->bytes, 2.0 * 16 * 559 * 1024 * 2 + 16 * 559 * 8);
}

TEST(PerfModel, NothingIsGuessed) {
  // Tensor lists carry no dtype; unknown ops and unknown dtypes stay out.
  EXPECT_FALSE(Model("aten::cat", "[[[16, 16, 559, 32], [16, 16, 559, 32]], []]",
                     R"(["TensorList", "Scalar"])")
                   .has_value());
  EXPECT_FALSE(Model("aten::mm", "[[8, 4], [4, 8]]", R"(["c10::ComplexHalf", "x"])").has_value());
  EXPECT_FALSE(Model("aten::mm", "", "").has_value());
  EXPECT_FALSE(Model("my_custom_op", "[[8, 4], [4, 8]]", R"(["float", "float"])").has_value());
  EXPECT_FALSE(Model("aten::add", "[[4, 5], [3]]", R"(["float", "float"])").has_value());
  // Kineto's own FLOP count is used only when shapes do not decide.
  OpInputs in;
  in.name = "aten::mm";
  in.kineto_flops = 1.5e9;
  std::optional<OpModel> k = ModelOp(in);
  ASSERT_TRUE(k.has_value());
  EXPECT_TRUE(k->from_kineto_flops);
  EXPECT_DOUBLE_EQ(k->flops, 1.5e9);
  EXPECT_LT(k->bytes, 0);
  EXPECT_EQ(k->family, DeviceFamily::kGemm);
}

TEST(PerfModel, NamesAndApplicability) {
  EXPECT_TRUE(IsModelledOpName("aten::addmm"));
  EXPECT_TRUE(IsModelledOpName("aten::_scaled_dot_product_flash_attention_backward"));
  EXPECT_TRUE(IsModelledOpName("aten::native_layer_norm_backward"));
  EXPECT_TRUE(IsModelledOpName("aten::add_"));
  EXPECT_FALSE(IsModelledOpName("aten::cat"));
  EXPECT_FALSE(IsModelledOpName("aten::_flash_attention_forward"));
  EXPECT_FALSE(IsModelledOpName("ProfilerStep#6"));
  EXPECT_TRUE(ModelAppliesTo(DeviceFamily::kGemm, DeviceFamily::kGemm));
  EXPECT_FALSE(ModelAppliesTo(DeviceFamily::kGemm, DeviceFamily::kMemset));
  EXPECT_FALSE(ModelAppliesTo(DeviceFamily::kGemm, DeviceFamily::kElementwise));
  EXPECT_TRUE(ModelAppliesTo(DeviceFamily::kElementwise, DeviceFamily::kOptimizer));
  EXPECT_FALSE(ModelAppliesTo(DeviceFamily::kElementwise, DeviceFamily::kGemm));
  EXPECT_EQ(BytesPerElement("c10::BFloat16"), 2);
  EXPECT_EQ(BytesPerElement("float"), 4);
  EXPECT_EQ(BytesPerElement("c10::Float8_e4m3fn"), 1);
  EXPECT_EQ(BytesPerElement("TensorList"), 0);
}

}  // namespace
}  // namespace tracelint
