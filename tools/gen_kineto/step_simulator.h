#ifndef TRACELINT_TOOLS_GEN_KINETO_STEP_SIMULATOR_H_
#define TRACELINT_TOOLS_GEN_KINETO_STEP_SIMULATOR_H_

// Internal to gen_kineto: simulates one rank of DDP ResNet training and
// records its host and device events, one training step at a time.

#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "tools/gen_kineto/kineto_generator.h"
#include "tools/gen_kineto/trace_writer.h"
#include "tools/gen_kineto/workload_names.h"

namespace tracelint::gen {

// Clock origin of the reference trace (its first process_name event), in ns.
inline constexpr int64_t kBaseTsNs = 4458676416431397;
inline constexpr int kComputeStreamId = 7;
inline constexpr int kNcclStreamId = 40;
inline constexpr int kCbidLaunchKernel = 211;
inline constexpr int kCbidLaunchKernelExC = 430;

// splitmix64: tiny, fast, and fully determined by the seed.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed * 0x9e3779b97f4a7c15ULL + 1) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  int64_t Uniform(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(Next() % static_cast<uint64_t>(hi - lo + 1));
  }
  // Scales a mean duration by 0.8 .. 1.2.
  int64_t Jitter(int64_t mean_ns) {
    return mean_ns * Uniform(800, 1200) / 1000;
  }

 private:
  uint64_t state_;
};

enum Thread { kMain = 0, kAutograd = 1, kThreadCount };
enum Stream { kCompute = 0, kNccl = 1, kStreamCount };

// Autograd node kinds and how their backward shows up in the trace.
enum NodeKind { kConv, kBn, kRelu, kAdd, kPool, kLinear, kLogSoftmax, kNll };
struct BackwardNames {
  const char* evaluate;
  const char* function;
};
inline constexpr BackwardNames kBackward[] = {
    {"autograd::engine::evaluate_function: ConvolutionBackward0",
     "ConvolutionBackward0"},
    {"autograd::engine::evaluate_function: CudnnBatchNormBackward0",
     "CudnnBatchNormBackward0"},
    {"autograd::engine::evaluate_function: ReluBackward0", "ReluBackward0"},
    {"autograd::engine::evaluate_function: AddBackward0", "AddBackward0"},
    {"autograd::engine::evaluate_function: MeanBackward1", "MeanBackward1"},
    {"autograd::engine::evaluate_function: AddmmBackward0", "AddmmBackward0"},
    {"autograd::engine::evaluate_function: LogSoftmaxBackward0",
     "LogSoftmaxBackward0"},
    {"autograd::engine::evaluate_function: NllLossBackward0",
     "NllLossBackward0"},
};

struct AutogradNode {
  NodeKind kind;
  int layer;
  int64_t sequence;
  int64_t flow_id;
  int64_t activation_bytes;  // freed once the node's backward ran
  int params;                // parameters whose gradient this node yields
  int64_t param_bytes;
};

// Elementwise kernel families in KernelCatalog::elementwise: three variants
// per functor, in the order of kElementwiseFunctors.
enum Functor { kRelu_, kAdd_, kMul_, kScale_, kFill_, kCopy_, kThreshold_, kDiv_ };
// Indices into KernelCatalog::reduce.
enum ReduceKernel {
  kSoftmaxFwd = 6, kSoftmaxBwd, kNllFwd, kNllBwd, kGemmTn, kGemmNn, kCutlass
};

class StepSimulator {
 public:
  StepSimulator(const GeneratorOptions& options, TraceWriter* writer);

  absl::Status RunStep(int64_t step_number);
  void WriteMetadata();
  int64_t start_ns() const { return kBaseTsNs; }
  int64_t end_ns() const {
    return std::max({now_[kMain], now_[kAutograd], stream_now_[kCompute],
                     stream_now_[kNccl]});
  }
  int64_t nccl_kernels() const { return nccl_kernels_; }

 private:
  // RAII host range: an op, annotation or Python frame on one thread.
  class Scope {
   public:
    Scope(StepSimulator* sim, Thread t, RecKind kind, const char* name)
        : sim_(sim), t_(t), index_(sim->Open(t, kind, name)) {}
    ~Scope() { sim_->Close(t_); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
    size_t index() const { return index_; }

   private:
    StepSimulator* sim_;
    Thread t_;
    size_t index_;
  };
  // A GPU-side annotation spanning the device work of one host range.
  struct GpuPhase {
    size_t rec;
    Stream stream;
    int64_t first_ns = INT64_MAX;
    int64_t last_end_ns = 0;
  };

  size_t Open(Thread t, RecKind kind, const char* name);
  void Close(Thread t);
  void Leaf(Thread t, const char* name) { Scope s(this, t, RecKind::kCpuOp, name); }
  void Advance(Thread t, int64_t lo_ns, int64_t hi_ns) {
    now_[t] += rng_.Uniform(lo_ns, hi_ns);
  }
  int64_t InnermostExternalId(Thread t) const;
  Rec& HostRec(Thread t, RecKind kind, const char* name, int64_t dur_ns);
  void Flow(RecKind kind, bool fwdbwd, int64_t id, int64_t pid, int64_t tid,
            int64_t ts_ns);
  void Runtime(Thread t, const char* name, int cbid);
  void DeviceActivity(Rec& launch, RecKind kind, const char* name,
                      Stream s, int64_t dur_ns);
  void Launch(Thread t, const KernelSpec& k, Stream s,
              const CollectiveArgs* collective = nullptr,
              int cbid = kCbidLaunchKernel);
  void Copy(Thread t, const char* name, int64_t bytes, int64_t bytes_per_us,
            bool blocking);
  void Memset(Thread t, int64_t bytes);
  // [memory] instant: allocates `bytes` > 0, or frees the latest live
  // block when `bytes` <= 0.
  void Memory(Thread t, int64_t bytes);
  size_t OpenGpuPhase(size_t host_rec, Stream s);
  void CloseGpuPhase(size_t phase);
  void Node(size_t op_rec, NodeKind kind, int layer, int64_t activation_bytes,
            int params, int64_t param_bytes);
  const KernelSpec& Elementwise(Functor f, int variant) const {
    return catalog_.elementwise[f * 3 + variant % 3];
  }

  void LoadBatch();
  void ForwardLayer(int layer);
  void ForwardHead();
  void Backward();
  void BackwardNode(const AutogradNode& node);
  void AllReduce(int64_t bucket_bytes, int bucket);
  void OptimizerStep();
  absl::Status FlushStep();

  const GeneratorOptions options_;
  TraceWriter* writer_;
  Rng rng_;
  KernelCatalog catalog_;
  int64_t pid_;
  int64_t tid_[kThreadCount];
  int device_;
  int stream_id_[kStreamCount] = {kComputeStreamId, kNcclStreamId};
  std::string group_ranks_;
  std::vector<std::string> module_names_;  // 3 per layer: conv, bn, relu

  int64_t now_[kThreadCount];
  int64_t stream_now_[kStreamCount];
  int64_t next_external_id_ = 2049;
  int64_t next_record_function_id_ = 1909;
  int64_t next_ev_idx_ = 0;
  int64_t next_correlation_ = 57532;
  int64_t next_sequence_ = 900;
  int64_t next_fwdbwd_id_ = 1;
  int64_t next_python_id_ = 1;
  int64_t next_addr_ = 139637976727552;  // 0x7f0000000000
  int64_t total_allocated_ = 0;
  int64_t total_reserved_ = 0;
  int64_t nccl_kernels_ = 0;

  std::vector<Rec> recs_;                 // this step's events
  std::vector<size_t> stack_[kThreadCount];
  std::vector<int64_t> python_stack_;
  std::vector<GpuPhase> phases_;
  std::vector<size_t> open_phases_;
  std::vector<AutogradNode> nodes_;
  std::vector<std::pair<int64_t, int64_t>> live_allocations_;  // addr, bytes
  std::deque<std::string> step_names_;        // stable storage for names
  std::deque<CollectiveArgs> collectives_;    // stable storage for args
};

}  // namespace tracelint::gen

#endif  // TRACELINT_TOOLS_GEN_KINETO_STEP_SIMULATOR_H_
