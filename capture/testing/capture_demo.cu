// A small CUDA program for the GPU check of `tracelint capture`
// (capture/testing/gpu_check.sh): each NVTX range "demo_step" runs
// kernels, a host-to-device copy from pageable memory, one from pinned
// memory, a memset, a CUDA graph replay, a mid-step read-back followed by
// host work (as `.item()` then Python does), a burst of tiny kernels, and a
// stream sync at the end of the step.
// Expected findings: the pageable copy (h2d-copy-dominance) and the mid-step
// sync (host-side-ops sync_call: the host waits for the queue to drain, then
// works while the GPU has nothing queued). The end-of-step sync costs almost
// nothing (the next step's pageable copy follows at once) and must not be
// charged much.
//
//   nvcc -O2 -o capture_demo capture_demo.cu && ./capture_demo [steps] [MiB] [host_us]
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                                   \
  do {                                                                             \
    cudaError_t e = (x);                                                           \
    if (e != cudaSuccess) {                                                        \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      std::exit(2);                                                                \
    }                                                                              \
  } while (0)

__global__ void Scale(float* x, size_t n, float a) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    x[i] = x[i] * a + 1.0f;
  }
}

__global__ void Tiny(float* x) { x[threadIdx.x] += 1.0f; }

// Host work of a fixed length (a stand-in for post-processing a read-back
// value): a busy loop, so the thread stays on the CPU as real work would.
void HostWork(int us) {
  auto end = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
  volatile double sink = 0;
  while (std::chrono::steady_clock::now() < end) sink = sink + 1.0;
}

__global__ void Spin(float* x, int iters) {
  float v = x[threadIdx.x];
  for (int i = 0; i < iters; ++i) v = v * 0.999f + 0.001f;
  x[threadIdx.x] = v;
}

int main(int argc, char** argv) {
  int steps = argc > 1 ? std::atoi(argv[1]) : 20;
  size_t mib = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 64;
  int host_us = argc > 3 ? std::atoi(argv[3]) : 1500;
  size_t n = mib * (1u << 20) / sizeof(float);
  std::vector<float> pageable(n, 1.0f);
  float* pinned = nullptr;
  float* dev = nullptr;
  float* dev2 = nullptr;
  float* readback = nullptr;
  CHECK(cudaMallocHost(&pinned, n * sizeof(float)));
  CHECK(cudaMallocHost(&readback, sizeof(float)));
  CHECK(cudaMalloc(&dev, n * sizeof(float)));
  CHECK(cudaMalloc(&dev2, n * sizeof(float)));
  for (size_t i = 0; i < n; ++i) pinned[i] = 2.0f;
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));

  // A graph of two kernels, replayed once per step.
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  Spin<<<1, 256, 0, stream>>>(dev2, 20000);
  Scale<<<264, 256, 0, stream>>>(dev2, n, 0.5f);
  CHECK(cudaStreamEndCapture(stream, &graph));
  CHECK(cudaGraphInstantiate(&exec, graph, 0));

  auto start = std::chrono::steady_clock::now();
  for (int step = 0; step < steps; ++step) {
    nvtxRangePushA("demo_step");
    nvtxRangePushA("copy_inputs");
    CHECK(cudaMemcpyAsync(dev, pageable.data(), n * sizeof(float), cudaMemcpyHostToDevice,
                          stream));  // pageable: staged by the host
    CHECK(cudaMemcpyAsync(dev2, pinned, n * sizeof(float), cudaMemcpyHostToDevice, stream));
    nvtxRangePop();
    CHECK(cudaMemsetAsync(dev2, 0, 4096, stream));
    for (int k = 0; k < 8; ++k) Scale<<<264, 256, 0, stream>>>(dev, n, 1.0001f);
    Spin<<<1, 256, 0, stream>>>(dev, 50000);
    CHECK(cudaGraphLaunch(exec, stream));
    // The mid-step sync: read one value back and decide on the host, as
    // `loss.item()` or a convergence check does. The queue drains, then the
    // GPU waits through the host work below.
    nvtxMarkA("before_sync");
    CHECK(cudaMemcpyAsync(readback, dev, sizeof(float), cudaMemcpyDeviceToHost, stream));
    CHECK(cudaStreamSynchronize(stream));
    nvtxRangePushA("host_postprocess");
    HostWork(host_us);
    nvtxRangePop();
    for (int k = 0; k < 64; ++k) Tiny<<<1, 32, 0, stream>>>(dev2);
    CHECK(cudaStreamSynchronize(stream));  // end of step: nearly free
    nvtxRangePop();
  }
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                  .count();
  std::printf("capture_demo: %d steps, %.3f ms per step\n", steps, ms / steps);
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaFree(dev));
  CHECK(cudaFree(dev2));
  CHECK(cudaFreeHost(pinned));
  CHECK(cudaFreeHost(readback));
  return 0;
}
