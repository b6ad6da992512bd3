// The simulated training step: what a DDP ResNet iteration under
// torch.profiler looks like, phase by phase. Primitives are in
// step_simulator.cc.

#include <string>

#include "fmt/format.h"
#include "tools/gen_kineto/step_simulator.h"

namespace tracelint::gen {
namespace {

constexpr int64_t kDdpBucketBytes = int64_t{25} << 20;  // DDP bucket_cap_mb
constexpr int64_t kFlushBytes = int64_t{1} << 20;
constexpr int64_t kBatch = 32;

struct LayerShape {
  int64_t channels;
  int64_t activation_bytes;
  int64_t weight_bytes;
};

LayerShape ShapeOf(int layer, int layers) {
  int stage = layer * 4 / layers;  // ResNet's four stages
  int64_t channels = int64_t{64} << stage;
  int64_t side = 56 >> stage;
  return {channels, kBatch * channels * side * side * 4,
          channels * channels * 9 * 4};
}

}  // namespace

absl::Status StepSimulator::RunStep(int64_t step_number) {
  const std::string& step_name =
      step_names_.emplace_back(fmt::format("ProfilerStep#{}", step_number));
  {
    Scope step(this, kMain, RecKind::kUserAnnotation, step_name.c_str());
    size_t gpu_step = OpenGpuPhase(step.index(), kCompute);
    LoadBatch();
    { Scope zero(this, kMain, RecKind::kUserAnnotation,
                 "Optimizer.zero_grad#SGD.zero_grad"); }
    {
      Scope fwd(this, kMain, RecKind::kUserAnnotation, "## forward ##");
      Scope ddp(this, kMain, RecKind::kUserAnnotation,
                "DistributedDataParallel.forward");
      size_t gpu_ddp = OpenGpuPhase(ddp.index(), kCompute);
      {
        // DDP broadcasts module buffers from rank 0 before each forward.
        Scope bc(this, kMain, RecKind::kUserAnnotation, "nccl:broadcast");
        size_t gpu_bc = OpenGpuPhase(bc.index(), kNccl);
        const CollectiveArgs& args = collectives_.emplace_back(CollectiveArgs{
            "broadcast", 2049000, "Float", options_.world_size,
            group_ranks_.c_str()});
        Scope comms(this, kMain, RecKind::kCpuOp, "record_param_comms");
        recs_[comms.index()].collective = &args;
        Runtime(kMain, "cudaEventRecord", 135);
        Runtime(kMain, "cudaStreamWaitEvent", 147);
        Launch(kMain, catalog_.nccl_broadcast[0], kNccl, &args);
        CloseGpuPhase(gpu_bc);
      }
      Scope model(this, kMain, RecKind::kPythonFunction, "nn.Module: ResNet_0");
      recs_[model.index()].python_module_id = 0;
      for (int layer = 0; layer < options_.layers; ++layer) ForwardLayer(layer);
      ForwardHead();
      CloseGpuPhase(gpu_ddp);
    }
    Backward();
    OptimizerStep();
    {
      // loss.item(): a blocking device-to-host copy ends the step.
      Scope item(this, kMain, RecKind::kCpuOp, "aten::item");
      Scope dense(this, kMain, RecKind::kCpuOp, "aten::_local_scalar_dense");
      Copy(kMain, "Memcpy DtoH (Device -> Pageable)", 4, 1000, true);
    }
    while (!live_allocations_.empty()) Memory(kMain, 0);
    CloseGpuPhase(gpu_step);
  }
  return FlushStep();
}

void StepSimulator::LoadBatch() {
  {
    Scope next(this, kMain, RecKind::kUserAnnotation,
               "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__");
    Leaf(kMain, "aten::empty");
    Leaf(kMain, "aten::set_");
    Leaf(kMain, "aten::lift_fresh");
  }
  for (int64_t bytes : {kBatch * 3 * 224 * 224 * 4, kBatch * 8}) {
    Scope to(this, kMain, RecKind::kCpuOp, "aten::to");
    Scope to_copy(this, kMain, RecKind::kCpuOp, "aten::_to_copy");
    Leaf(kMain, "aten::empty_strided");
    Memory(kMain, bytes);
    Scope copy(this, kMain, RecKind::kCpuOp, "aten::copy_");
    Copy(kMain, "Memcpy HtoD (Pageable -> Device)", bytes, 11000, false);
  }
  // The previous step's timing events are polled once the batch is queued.
  Runtime(kMain, "cudaEventQuery", 138);
  Runtime(kMain, "cudaEventElapsedTime", 139);
}

void StepSimulator::ForwardLayer(int layer) {
  const LayerShape shape = ShapeOf(layer, options_.layers);
  const int v = layer;  // kernel variant: names vary with the layer
  {
    Scope py(this, kMain, RecKind::kPythonFunction,
             module_names_[3 * layer].c_str());
    recs_[py.index()].python_module_id = 3 * layer + 1;
    Scope op(this, kMain, RecKind::kCpuOp, "aten::conv2d");
    Node(op.index(), kConv, layer, shape.activation_bytes, 1,
         shape.weight_bytes);
    Scope conv(this, kMain, RecKind::kCpuOp, "aten::convolution");
    Scope conv2(this, kMain, RecKind::kCpuOp, "aten::_convolution");
    Scope cudnn(this, kMain, RecKind::kCpuOp, "aten::cudnn_convolution");
    Leaf(kMain, "aten::empty");
    Memory(kMain, shape.activation_bytes);
    Runtime(kMain, "cudaStreamIsCapturing", 317);
    Runtime(kMain, "cudaStreamGetPriority", 203);
    Runtime(kMain, "cudaDeviceGetStreamPriorityRange", 205);
    const KernelSpec& k = catalog_.conv_fprop[v % catalog_.conv_fprop.size()];
    bool xmma = k.name.rfind("sm80_xmma", 0) == 0;
    if (xmma) Runtime(kMain, "cudaFuncSetAttribute", 273);
    Launch(kMain, k, kCompute, nullptr,
           xmma ? kCbidLaunchKernelExC : kCbidLaunchKernel);
  }
  {
    Scope py(this, kMain, RecKind::kPythonFunction,
             module_names_[3 * layer + 1].c_str());
    recs_[py.index()].python_module_id = 3 * layer + 2;
    Scope op(this, kMain, RecKind::kCpuOp, "aten::batch_norm");
    Node(op.index(), kBn, layer, shape.activation_bytes, 2,
         shape.channels * 4);
    Scope impl(this, kMain, RecKind::kCpuOp, "aten::_batch_norm_impl_index");
    Scope cudnn(this, kMain, RecKind::kCpuOp, "aten::cudnn_batch_norm");
    {
      Scope like(this, kMain, RecKind::kCpuOp, "aten::empty_like");
      Leaf(kMain, "aten::empty");
    }
    Memory(kMain, shape.activation_bytes);
    Leaf(kMain, "aten::empty");
    Leaf(kMain, "aten::empty");
    Runtime(kMain, "cudaStreamGetPriority", 203);
    Runtime(kMain, "cudaDeviceGetStreamPriorityRange", 205);
    Launch(kMain, catalog_.bn_forward[v % catalog_.bn_forward.size()],
           kCompute);
  }
  {
    Scope py(this, kMain, RecKind::kPythonFunction,
             module_names_[3 * layer + 2].c_str());
    recs_[py.index()].python_module_id = 3 * layer + 3;
    Scope op(this, kMain, RecKind::kCpuOp, "aten::relu_");
    Node(op.index(), kRelu, layer, 0, 0, 0);
    Scope clamp(this, kMain, RecKind::kCpuOp, "aten::clamp_min_");
    Launch(kMain, Elementwise(kRelu_, v), kCompute);
  }
  if (layer % 3 == 2) {  // bottleneck residual
    Scope op(this, kMain, RecKind::kCpuOp, "aten::add_");
    Node(op.index(), kAdd, layer, 0, 0, 0);
    Leaf(kMain, "aten::result_type");
    Launch(kMain, Elementwise(kAdd_, v), kCompute);
  }
}

void StepSimulator::ForwardHead() {
  {
    Scope op(this, kMain, RecKind::kCpuOp, "aten::adaptive_avg_pool2d");
    Node(op.index(), kPool, 0, 0, 0, 0);
    Scope mean(this, kMain, RecKind::kCpuOp, "aten::mean");
    Launch(kMain, catalog_.reduce[0], kCompute);
  }
  {
    Scope flatten(this, kMain, RecKind::kCpuOp, "aten::flatten");
    Leaf(kMain, "aten::view");
  }
  {
    Scope op(this, kMain, RecKind::kCpuOp, "aten::linear");
    Node(op.index(), kLinear, 0, 0, 2, 2048 * 1000 * 4);
    {
      Scope t(this, kMain, RecKind::kCpuOp, "aten::t");
      Scope tr(this, kMain, RecKind::kCpuOp, "aten::transpose");
      Leaf(kMain, "aten::as_strided");
    }
    Scope addmm(this, kMain, RecKind::kCpuOp, "aten::addmm");
    Launch(kMain, catalog_.reduce[kGemmTn], kCompute);
  }
  Scope loss(this, kMain, RecKind::kCpuOp, "aten::cross_entropy_loss");
  {
    Scope op(this, kMain, RecKind::kCpuOp, "aten::log_softmax");
    Node(op.index(), kLogSoftmax, 0, 0, 0, 0);
    Scope impl(this, kMain, RecKind::kCpuOp, "aten::_log_softmax");
    Launch(kMain, catalog_.reduce[kSoftmaxFwd], kCompute);
  }
  Scope nd(this, kMain, RecKind::kCpuOp, "aten::nll_loss_nd");
  Scope op(this, kMain, RecKind::kCpuOp, "aten::nll_loss");
  Node(op.index(), kNll, 0, 0, 0, 0);
  Scope fwd(this, kMain, RecKind::kCpuOp, "aten::nll_loss_forward");
  Launch(kMain, catalog_.reduce[kNllFwd], kCompute);
}

void StepSimulator::Backward() {
  Scope bwd(this, kMain, RecKind::kUserAnnotation, "## backward ##");
  size_t gpu_bwd = OpenGpuPhase(bwd.index(), kCompute);
  {
    Scope ones(this, kMain, RecKind::kCpuOp, "aten::ones_like");
    {
      Scope like(this, kMain, RecKind::kCpuOp, "aten::empty_like");
      Leaf(kMain, "aten::empty");
    }
    Scope fill(this, kMain, RecKind::kCpuOp, "aten::fill_");
    Launch(kMain, Elementwise(kFill_, 0), kCompute);
  }
  // The autograd engine runs the graph on its own device thread while the
  // main thread blocks in backward().
  now_[kAutograd] = std::max(now_[kAutograd], now_[kMain]);
  int64_t bucket_bytes = 0;
  int bucket = 0;
  std::vector<int64_t> param_bytes;
  for (auto it = nodes_.rbegin(); it != nodes_.rend(); ++it) {
    BackwardNode(*it);
    for (int p = 0; p < it->params; ++p) {
      Scope eval(this, kAutograd, RecKind::kCpuOp,
                 "autograd::engine::evaluate_function: "
                 "torch::autograd::AccumulateGrad");
      {
        Scope acc(this, kAutograd, RecKind::kCpuOp,
                  "torch::autograd::AccumulateGrad");
        Scope detach(this, kAutograd, RecKind::kCpuOp, "aten::detach");
        Leaf(kAutograd, "detach");
      }
      // DDP's autograd hook scales the gradient into its bucket.
      Scope mul_out(this, kAutograd, RecKind::kCpuOp,
                    "torch::distributed::reducer::mul_out");
      Scope mul(this, kAutograd, RecKind::kCpuOp, "aten::mul");
      Runtime(kAutograd, "cudaStreamIsCapturing", 317);
      Launch(kAutograd, Elementwise(kMul_, p), kCompute);
      Runtime(kAutograd, "cudaEventRecord", 135);
      bucket_bytes += it->param_bytes;
      param_bytes.push_back(it->param_bytes);
    }
    if (bucket_bytes >= kDdpBucketBytes) {
      AllReduce(bucket_bytes, bucket++);
      bucket_bytes = 0;
    }
  }
  if (bucket_bytes > 0) AllReduce(bucket_bytes, bucket++);
  // DDP finalize: wait for the reductions, copy buckets back into .grad.
  Runtime(kAutograd, "cudaStreamWaitEvent", 147);
  stream_now_[kCompute] = std::max(stream_now_[kCompute], stream_now_[kNccl]);
  for (int64_t bytes : param_bytes) {
    Scope copy_back(this, kAutograd, RecKind::kCpuOp,
                    "torch.distributed.ddp.reducer::copy_bucket_to_grad");
    {
      Scope narrow(this, kAutograd, RecKind::kCpuOp, "aten::narrow");
      Scope slice(this, kAutograd, RecKind::kCpuOp, "aten::slice");
      Leaf(kAutograd, "aten::as_strided");
    }
    Leaf(kAutograd, "aten::view");
    Scope copy(this, kAutograd, RecKind::kCpuOp, "aten::copy_");
    Copy(kAutograd, "Memcpy DtoD (Device -> Device)", bytes, 600000, false);
  }
  now_[kMain] = std::max(now_[kMain], now_[kAutograd]);
  nodes_.clear();
  CloseGpuPhase(gpu_bwd);
}

void StepSimulator::BackwardNode(const AutogradNode& node) {
  const BackwardNames& names = kBackward[node.kind];
  const int v = node.layer;
  Scope eval(this, kAutograd, RecKind::kCpuOp, names.evaluate);
  {
    Scope fn(this, kAutograd, RecKind::kCpuOp, names.function);
    recs_[fn.index()].sequence = node.sequence;
    recs_[fn.index()].fwd_thread = 1;
    Flow(RecKind::kFlowEnd, true, node.flow_id, pid_, tid_[kAutograd],
         recs_[fn.index()].ts_ns);
    switch (node.kind) {
      case kConv: {
        Scope cb(this, kAutograd, RecKind::kCpuOp, "aten::convolution_backward");
        Leaf(kAutograd, "aten::empty");
        Leaf(kAutograd, "aten::empty");
        Memory(kAutograd, node.param_bytes);
        Runtime(kAutograd, "cudaStreamGetPriority", 203);
        Runtime(kAutograd, "cudaDeviceGetStreamPriorityRange", 205);
        if (node.layer % 3 == 0) Memset(kAutograd, 6291456);  // workspace
        Launch(kAutograd, catalog_.conv_dgrad[v % catalog_.conv_dgrad.size()],
               kCompute);
        Runtime(kAutograd, "cudaFuncSetAttribute", 273);
        Launch(kAutograd, catalog_.conv_wgrad[v % catalog_.conv_wgrad.size()],
               kCompute);
        break;
      }
      case kBn: {
        Scope bb(this, kAutograd, RecKind::kCpuOp,
                 "aten::cudnn_batch_norm_backward");
        {
          Scope like(this, kAutograd, RecKind::kCpuOp, "aten::empty_like");
          Leaf(kAutograd, "aten::empty");
        }
        Runtime(kAutograd, "cudaStreamGetPriority", 203);
        Runtime(kAutograd, "cudaDeviceGetStreamPriorityRange", 205);
        Launch(kAutograd, catalog_.bn_backward[v % catalog_.bn_backward.size()],
               kCompute);
        break;
      }
      case kRelu: {
        Scope tb(this, kAutograd, RecKind::kCpuOp, "aten::threshold_backward");
        Launch(kAutograd, Elementwise(kThreshold_, v), kCompute);
        break;
      }
      case kAdd:
        break;  // gradients pass through
      case kPool: {
        {
          Scope ex(this, kAutograd, RecKind::kCpuOp, "aten::expand");
          Leaf(kAutograd, "aten::as_strided");
        }
        Scope div(this, kAutograd, RecKind::kCpuOp, "aten::div");
        Launch(kAutograd, Elementwise(kDiv_, 0), kCompute);
        break;
      }
      case kLinear: {
        {
          Scope t(this, kAutograd, RecKind::kCpuOp, "aten::t");
          Scope tr(this, kAutograd, RecKind::kCpuOp, "aten::transpose");
          Leaf(kAutograd, "aten::as_strided");
        }
        {
          Scope mm(this, kAutograd, RecKind::kCpuOp, "aten::mm");
          Launch(kAutograd, catalog_.reduce[kGemmNn], kCompute);
        }
        {
          Scope mm(this, kAutograd, RecKind::kCpuOp, "aten::mm");
          Launch(kAutograd, catalog_.reduce[kCutlass], kCompute);
        }
        Scope sum(this, kAutograd, RecKind::kCpuOp, "aten::sum");
        Launch(kAutograd, catalog_.reduce[2], kCompute);
        break;
      }
      case kLogSoftmax: {
        Scope sb(this, kAutograd, RecKind::kCpuOp,
                 "aten::_log_softmax_backward_data");
        Launch(kAutograd, catalog_.reduce[kSoftmaxBwd], kCompute);
        break;
      }
      case kNll: {
        Scope nb(this, kAutograd, RecKind::kCpuOp, "aten::nll_loss_backward");
        {
          Scope zero(this, kAutograd, RecKind::kCpuOp, "aten::zero_");
          Scope fill(this, kAutograd, RecKind::kCpuOp, "aten::fill_");
          Launch(kAutograd, Elementwise(kFill_, 1), kCompute);
        }
        Launch(kAutograd, catalog_.reduce[kNllBwd], kCompute);
        break;
      }
    }
  }
  if (node.activation_bytes > 0) Memory(kAutograd, 0);
}

void StepSimulator::AllReduce(int64_t bucket_bytes, int bucket) {
  Scope ann(this, kAutograd, RecKind::kUserAnnotation, "nccl:all_reduce");
  size_t gpu = OpenGpuPhase(ann.index(), kNccl);
  const CollectiveArgs& args = collectives_.emplace_back(
      CollectiveArgs{"allreduce", bucket_bytes / 4, "Float",
                     options_.world_size, group_ranks_.c_str()});
  {
    Scope comms(this, kAutograd, RecKind::kCpuOp, "record_param_comms");
    recs_[comms.index()].collective = &args;
    Runtime(kAutograd, "cudaEventRecord", 135);
    Runtime(kAutograd, "cudaStreamWaitEvent", 147);
    const KernelSpec& k =
        catalog_.nccl_allreduce[bucket % catalog_.nccl_allreduce.size()];
    Launch(kAutograd, k, kNccl, &args);
    Runtime(kAutograd, "cudaEventRecord", 135);
  }
  // Ring all-reduce time grows with the bucket; override the table mean.
  for (auto it = recs_.rbegin(); it != recs_.rend(); ++it) {
    if (it->kind != RecKind::kKernel) continue;
    int64_t extra = bucket_bytes / 100;  // ~100 GB/s bus bandwidth
    it->dur_ns += extra;
    stream_now_[kNccl] += extra;
    phases_[gpu].last_end_ns = std::max(phases_[gpu].last_end_ns,
                                        it->ts_ns + it->dur_ns);
    break;
  }
  CloseGpuPhase(gpu);
}

void StepSimulator::OptimizerStep() {
  Scope opt(this, kMain, RecKind::kUserAnnotation, "## optimizer ##");
  Scope step(this, kMain, RecKind::kUserAnnotation, "Optimizer.step#SGD.step");
  size_t gpu = OpenGpuPhase(step.index(), kCompute);
  for (int layer = 0; layer < options_.layers; ++layer) {
    {
      Scope mul(this, kMain, RecKind::kCpuOp, "aten::_foreach_mul_");
      Launch(kMain, Elementwise(kScale_, layer), kCompute);
    }
    Scope add(this, kMain, RecKind::kCpuOp, "aten::_foreach_add_");
    for (int p = 0; p < 3; ++p) Leaf(kMain, "aten::result_type");
    Runtime(kMain, "cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
            251);    Launch(kMain, catalog_.optimizer[layer % catalog_.optimizer.size()],
           kCompute);
  }
  CloseGpuPhase(gpu);
}

absl::Status StepSimulator::FlushStep() {
  for (const Rec& r : recs_) writer_->Write(r);
  recs_.clear();
  phases_.clear();
  open_phases_.clear();
  step_names_.clear();
  collectives_.clear();
  return writer_->Flush(kFlushBytes);
}

void StepSimulator::WriteMetadata() {
  writer_->WriteProcessMetadata(pid_, "CPU", pid_);
  writer_->WriteProcessMetadata(device_, fmt::format("GPU {}", device_).c_str(),
                                16777216 + device_);
  writer_->WriteThreadName(pid_, tid_[kMain],
                           fmt::format("thread {} (python3)", tid_[kMain]));
  writer_->WriteThreadName(
      pid_, tid_[kAutograd],
      fmt::format("thread {} (pt_autograd_{})", tid_[kAutograd], device_));
  for (int id : stream_id_) {
    writer_->WriteThreadName(device_, id, fmt::format("stream {} ", id));
  }
}

}  // namespace tracelint::gen
