#include "analyzer/engine/fingerprint.h"

#include "gtest/gtest.h"

namespace tracelint {
namespace {

Finding MakeFinding() {
  Finding f;
  f.rule_id = "host-side-ops";
  f.cause = "sync_call";
  f.recoverable_ns_per_step = 1000;
  f.location.rank = 3;
  f.location.start_ns = 5;
  f.location.top_items.push_back({"aten::item", 10, 1, ""});
  return f;
}

TEST(FingerprintTest, IgnoresTimesRanksAndLines) {
  Finding a = MakeFinding();
  Finding b = MakeFinding();
  b.recoverable_ns_per_step = 99999;
  b.location.rank = 0;
  b.location.start_ns = 123456;
  b.location.first_step = 7;
  EXPECT_EQ(FindingFingerprint(a), FindingFingerprint(b));
  EXPECT_EQ(FindingFingerprint(a).size(), 16u);

  a.location.python_stack = {"train.py(40): main", "train.py(12): step"};
  b.location.python_stack = {"train.py(41): main", "train.py(13): step"};
  EXPECT_EQ(FindingFingerprint(a), FindingFingerprint(b));
}

TEST(FingerprintTest, DependsOnRuleCauseAndLocation) {
  Finding a = MakeFinding();
  Finding b = MakeFinding();
  b.cause = "host_side_op";
  EXPECT_NE(FindingFingerprint(a), FindingFingerprint(b));
  b = MakeFinding();
  b.rule_id = "gpu-idle-gaps";
  EXPECT_NE(FindingFingerprint(a), FindingFingerprint(b));
  b = MakeFinding();
  b.location.top_items[0].name = "aten::nonzero";
  EXPECT_NE(FindingFingerprint(a), FindingFingerprint(b));
}

TEST(FingerprintTest, InnermostUserFrameSkipsLibraries) {
  std::vector<std::string> stack = {
      "train.py(88): <module>",
      "train.py(40): train_one_epoch",
      "torch/utils/data/dataloader.py(630): __next__",
      "/usr/lib/python3.10/site-packages/foo/bar.py(3): f",
      "<built-in method item of Tensor object at 0x7f>",
  };
  EXPECT_EQ(InnermostUserFrame(stack), "train.py(40): train_one_epoch");
  EXPECT_EQ(InnermostUserFrame({"torch/_ops.py(840): __call__"}), "");
  PythonFrame frame = ParsePythonFrame("/home/u/proj/model.py(12): forward");
  EXPECT_EQ(frame.path, "/home/u/proj/model.py");
  EXPECT_EQ(frame.line, 12);
  EXPECT_EQ(frame.function, "forward");
}

}  // namespace
}  // namespace tracelint
