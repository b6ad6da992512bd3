#include "capture/inject/cupti_records.h"

#include <cupti.h>

#include <cstddef>

#include "capture/inject/cupti_api.h"

namespace tracelint::capture::inject {
namespace {

// CUPTI writes each activity kind in the newest record version its own
// header declares: CUPTI 13 the types read below, CUPTI 12 (12.0-12.9) one
// of their predecessors, all still declared in CUDA 13's
// cupti_activity_deprecated.h. Every field read here sits at the same
// offset with the same size in those older versions, so one reader serves
// both; a field that moved, or is missing in a version CUPTI 12 writes,
// fails the build here (docs/capture.md, "CUPTI 12 and 13").
#define TL_SAME(New, Old, field)                                        \
  static_assert(offsetof(New, field) == offsetof(Old, field) &&         \
                    sizeof(New::field) == sizeof(Old::field),           \
                #Old "." #field " is not where " #New " has it")
#define TL_KERNEL(Old)                                                                      \
  TL_SAME(CUpti_ActivityKernel10, Old, kind); TL_SAME(CUpti_ActivityKernel10, Old, start);  \
  TL_SAME(CUpti_ActivityKernel10, Old, end); TL_SAME(CUpti_ActivityKernel10, Old, queued);  \
  TL_SAME(CUpti_ActivityKernel10, Old, deviceId);                                           \
  TL_SAME(CUpti_ActivityKernel10, Old, contextId);                                          \
  TL_SAME(CUpti_ActivityKernel10, Old, streamId);                                           \
  TL_SAME(CUpti_ActivityKernel10, Old, correlationId);                                      \
  TL_SAME(CUpti_ActivityKernel10, Old, gridX); TL_SAME(CUpti_ActivityKernel10, Old, gridY); \
  TL_SAME(CUpti_ActivityKernel10, Old, gridZ); TL_SAME(CUpti_ActivityKernel10, Old, blockX);\
  TL_SAME(CUpti_ActivityKernel10, Old, blockY);                                             \
  TL_SAME(CUpti_ActivityKernel10, Old, blockZ);                                             \
  TL_SAME(CUpti_ActivityKernel10, Old, registersPerThread);                                 \
  TL_SAME(CUpti_ActivityKernel10, Old, staticSharedMemory);                                 \
  TL_SAME(CUpti_ActivityKernel10, Old, dynamicSharedMemory);                                \
  TL_SAME(CUpti_ActivityKernel10, Old, graphId);                                            \
  TL_SAME(CUpti_ActivityKernel10, Old, graphNodeId); TL_SAME(CUpti_ActivityKernel10, Old, name)
TL_KERNEL(CUpti_ActivityKernel8);
TL_KERNEL(CUpti_ActivityKernel9);
#define TL_COPY(New, Old)                                                                   \
  TL_SAME(New, Old, start); TL_SAME(New, Old, end); TL_SAME(New, Old, bytes);               \
  TL_SAME(New, Old, deviceId); TL_SAME(New, Old, contextId); TL_SAME(New, Old, streamId);   \
  TL_SAME(New, Old, correlationId); TL_SAME(New, Old, copyKind); TL_SAME(New, Old, srcKind);\
  TL_SAME(New, Old, dstKind); TL_SAME(New, Old, flags); TL_SAME(New, Old, graphId)
TL_COPY(CUpti_ActivityMemcpy6, CUpti_ActivityMemcpy5);
TL_COPY(CUpti_ActivityMemcpyPtoP4, CUpti_ActivityMemcpyPtoP3);
TL_SAME(CUpti_ActivityMemcpyPtoP4, CUpti_ActivityMemcpyPtoP3, srcDeviceId);
TL_SAME(CUpti_ActivityMemcpyPtoP4, CUpti_ActivityMemcpyPtoP3, dstDeviceId);
#define TL_MEMSET(Old)                                                                      \
  TL_SAME(CUpti_ActivityMemset4, Old, start); TL_SAME(CUpti_ActivityMemset4, Old, end);     \
  TL_SAME(CUpti_ActivityMemset4, Old, bytes); TL_SAME(CUpti_ActivityMemset4, Old, deviceId);\
  TL_SAME(CUpti_ActivityMemset4, Old, contextId);                                           \
  TL_SAME(CUpti_ActivityMemset4, Old, streamId);                                            \
  TL_SAME(CUpti_ActivityMemset4, Old, correlationId);                                       \
  TL_SAME(CUpti_ActivityMemset4, Old, value); TL_SAME(CUpti_ActivityMemset4, Old, memoryKind);\
  TL_SAME(CUpti_ActivityMemset4, Old, graphId)
TL_MEMSET(CUpti_ActivityMemset3);
#define TL_SYNC(Old)                                                                        \
  TL_SAME(CUpti_ActivitySynchronization2, Old, start);                                      \
  TL_SAME(CUpti_ActivitySynchronization2, Old, end);                                        \
  TL_SAME(CUpti_ActivitySynchronization2, Old, correlationId);                              \
  TL_SAME(CUpti_ActivitySynchronization2, Old, contextId);                                  \
  TL_SAME(CUpti_ActivitySynchronization2, Old, streamId);                                   \
  TL_SAME(CUpti_ActivitySynchronization2, Old, cudaEventId);                                \
  TL_SAME(CUpti_ActivitySynchronization2, Old, type)
TL_SYNC(CUpti_ActivitySynchronization);
#define TL_GRAPH(Old)                                                                       \
  TL_SAME(CUpti_ActivityGraphTrace2, Old, start); TL_SAME(CUpti_ActivityGraphTrace2, Old, end); \
  TL_SAME(CUpti_ActivityGraphTrace2, Old, deviceId);                                        \
  TL_SAME(CUpti_ActivityGraphTrace2, Old, contextId);                                       \
  TL_SAME(CUpti_ActivityGraphTrace2, Old, streamId);                                        \
  TL_SAME(CUpti_ActivityGraphTrace2, Old, correlationId);                                   \
  TL_SAME(CUpti_ActivityGraphTrace2, Old, graphId)
TL_GRAPH(CUpti_ActivityGraphTrace);
#define TL_OVERHEAD(Old)                                                                    \
  TL_SAME(CUpti_ActivityOverhead3, Old, start); TL_SAME(CUpti_ActivityOverhead3, Old, end); \
  TL_SAME(CUpti_ActivityOverhead3, Old, overheadKind);                                      \
  TL_SAME(CUpti_ActivityOverhead3, Old, objectKind);                                        \
  TL_SAME(CUpti_ActivityOverhead3, Old, objectId)
TL_OVERHEAD(CUpti_ActivityOverhead2);
#define TL_DEVICE(Old)                                                                      \
  TL_SAME(CUpti_ActivityDevice5, Old, id); TL_SAME(CUpti_ActivityDevice5, Old, name);       \
  TL_SAME(CUpti_ActivityDevice5, Old, globalMemorySize);                                    \
  TL_SAME(CUpti_ActivityDevice5, Old, numMultiprocessors);                                  \
  TL_SAME(CUpti_ActivityDevice5, Old, computeCapabilityMajor);                              \
  TL_SAME(CUpti_ActivityDevice5, Old, computeCapabilityMinor);                              \
  TL_SAME(CUpti_ActivityDevice5, Old, maxThreadsPerBlock);                                  \
  TL_SAME(CUpti_ActivityDevice5, Old, maxWarpsPerMultiprocessor);                           \
  TL_SAME(CUpti_ActivityDevice5, Old, maxRegistersPerBlock);                                \
  TL_SAME(CUpti_ActivityDevice5, Old, maxRegistersPerMultiprocessor);                       \
  TL_SAME(CUpti_ActivityDevice5, Old, numThreadsPerWarp);                                   \
  TL_SAME(CUpti_ActivityDevice5, Old, maxSharedMemoryPerBlock);                             \
  TL_SAME(CUpti_ActivityDevice5, Old, maxSharedMemoryPerMultiprocessor)
TL_DEVICE(CUpti_ActivityDevice4);
TL_SAME(CUpti_ActivityContext3, CUpti_ActivityContext2, contextId);
TL_SAME(CUpti_ActivityContext3, CUpti_ActivityContext2, deviceId);
#undef TL_KERNEL
#undef TL_COPY
#undef TL_MEMSET
#undef TL_SYNC
#undef TL_GRAPH
#undef TL_OVERHEAD
#undef TL_DEVICE
#undef TL_SAME

// The thread a marker or overhead record belongs to, when CUPTI names one.
void ThreadOf(CUpti_ActivityObjectKind kind, const CUpti_ActivityObjectKindId& id,
              uint32_t* pid, uint32_t* tid) {
  if (kind == CUPTI_ACTIVITY_OBJECT_THREAD || kind == CUPTI_ACTIVITY_OBJECT_PROCESS) {
    *pid = id.pt.processId;
    *tid = id.pt.threadId;
  }
}

}  // namespace

StrId RecordTranslator::ApiName(uint32_t domain, uint32_t cbid) {
  uint64_t key = (uint64_t{domain} << 32) | cbid;
  auto it = api_names_.find(key);
  if (it != api_names_.end()) return it->second;
  const char* name = nullptr;
  if (Cupti().GetCallbackName(static_cast<CUpti_CallbackDomain>(domain), cbid, &name) !=
          CUPTI_SUCCESS ||
      name == nullptr) {
    name = "";
  }
  StrId id = w_.Intern(name);
  api_names_.emplace(key, id);
  return id;
}

size_t RecordTranslator::Translate(uint8_t* buffer, size_t valid_bytes) {
  size_t kept = 0;
  CUpti_Activity* record = nullptr;
  while (Cupti().ActivityGetNextRecord(buffer, valid_bytes, &record) == CUPTI_SUCCESS) {
    ++kept;
    switch (record->kind) {
      case CUPTI_ACTIVITY_KIND_KERNEL:
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
        KernelRecord r;
        r.start_ns = k->start;
        r.end_ns = k->end;
        r.queued_ns = k->queued == CUPTI_TIMESTAMP_UNKNOWN ? 0 : k->queued;
        r.device_id = k->deviceId;
        r.context_id = k->contextId;
        r.stream_id = k->streamId;
        r.correlation_id = k->correlationId;
        r.grid[0] = k->gridX;
        r.grid[1] = k->gridY;
        r.grid[2] = k->gridZ;
        r.block[0] = k->blockX;
        r.block[1] = k->blockY;
        r.block[2] = k->blockZ;
        r.registers_per_thread = k->registersPerThread;
        r.static_shared_bytes = k->staticSharedMemory;
        r.dynamic_shared_bytes = k->dynamicSharedMemory;
        r.graph_id = k->graphId;
        r.graph_node_id = k->graphNodeId;
        r.name = w_.Intern(k->name ? k->name : "");
        w_.Add(r);
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
        MemcpyRecord r;
        r.start_ns = m->start;
        r.end_ns = m->end;
        r.bytes = m->bytes;
        r.device_id = m->deviceId;
        r.context_id = m->contextId;
        r.stream_id = m->streamId;
        r.correlation_id = m->correlationId;
        r.copy_kind = static_cast<CopyKind>(m->copyKind);
        r.src_kind = static_cast<MemoryKind>(m->srcKind);
        r.dst_kind = static_cast<MemoryKind>(m->dstKind);
        r.async = (m->flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) != 0;
        r.graph_id = m->graphId;
        w_.Add(r);
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY2: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemcpyPtoP4*>(record);
        MemcpyRecord r;
        r.start_ns = m->start;
        r.end_ns = m->end;
        r.bytes = m->bytes;
        r.device_id = m->deviceId;
        r.context_id = m->contextId;
        r.stream_id = m->streamId;
        r.correlation_id = m->correlationId;
        r.copy_kind = static_cast<CopyKind>(m->copyKind);
        r.src_kind = static_cast<MemoryKind>(m->srcKind);
        r.dst_kind = static_cast<MemoryKind>(m->dstKind);
        r.async = (m->flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) != 0;
        r.graph_id = m->graphId;
        r.src_device = static_cast<int32_t>(m->srcDeviceId);
        r.dst_device = static_cast<int32_t>(m->dstDeviceId);
        w_.Add(r);
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMSET: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
        MemsetRecord r;
        r.start_ns = m->start;
        r.end_ns = m->end;
        r.bytes = m->bytes;
        r.device_id = m->deviceId;
        r.context_id = m->contextId;
        r.stream_id = m->streamId;
        r.correlation_id = m->correlationId;
        r.value = m->value;
        r.memory_kind = static_cast<MemoryKind>(m->memoryKind);
        r.graph_id = m->graphId;
        w_.Add(r);
        break;
      }
      case CUPTI_ACTIVITY_KIND_RUNTIME:
      case CUPTI_ACTIVITY_KIND_DRIVER: {
        const auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(record);
        bool driver = record->kind == CUPTI_ACTIVITY_KIND_DRIVER;
        ApiRecord r;
        r.start_ns = a->start;
        r.end_ns = a->end;
        r.pid = a->processId;
        r.tid = a->threadId;
        r.correlation_id = a->correlationId;
        r.cbid = a->cbid;
        r.return_value = a->returnValue;
        r.domain = driver ? ApiDomain::kDriver : ApiDomain::kRuntime;
        r.name = ApiName(driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API,
                         a->cbid);
        w_.Add(r);
        break;
      }
      case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
        const auto* s = reinterpret_cast<const CUpti_ActivitySynchronization2*>(record);
        SyncRecord r;
        r.start_ns = s->start;
        r.end_ns = s->end;
        r.correlation_id = s->correlationId;
        r.context_id = s->contextId;
        r.stream_id = s->streamId;
        r.event_id = s->cudaEventId;
        r.kind = static_cast<SyncKind>(s->type);
        w_.Add(r);
        break;
      }
      case CUPTI_ACTIVITY_KIND_MARKER: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMarker2*>(record);
        MarkerRecord r;
        r.ts_ns = m->timestamp;
        r.id = m->id;
        r.flags = static_cast<uint32_t>(m->flags);
        ThreadOf(m->objectKind, m->objectId, &r.pid, &r.tid);
        r.name = w_.Intern(m->name ? m->name : "");
        r.domain = w_.Intern(m->domain ? m->domain : "");
        w_.Add(r);
        break;
      }
      case CUPTI_ACTIVITY_KIND_GRAPH_TRACE: {
        const auto* g = reinterpret_cast<const CUpti_ActivityGraphTrace2*>(record);
        GraphTraceRecord r;
        r.start_ns = g->start;
        r.end_ns = g->end;
        r.device_id = g->deviceId;
        r.context_id = g->contextId;
        r.stream_id = g->streamId;
        r.correlation_id = g->correlationId;
        r.graph_id = g->graphId;
        w_.Add(r);
        break;
      }
      case CUPTI_ACTIVITY_KIND_OVERHEAD: {
        const auto* o = reinterpret_cast<const CUpti_ActivityOverhead3*>(record);
        OverheadRecord r;
        r.start_ns = o->start;
        r.end_ns = o->end;
        r.kind = static_cast<uint32_t>(o->overheadKind);
        ThreadOf(o->objectKind, o->objectId, &r.pid, &r.tid);
        w_.Add(r);
        break;
      }
      case CUPTI_ACTIVITY_KIND_DEVICE: {
        const auto* d = reinterpret_cast<const CUpti_ActivityDevice5*>(record);
        DeviceRecord r;
        r.id = d->id;
        r.name = w_.Intern(d->name ? d->name : "");
        r.global_memory_bytes = d->globalMemorySize;
        r.sm_count = d->numMultiprocessors;
        r.compute_major = d->computeCapabilityMajor;
        r.compute_minor = d->computeCapabilityMinor;
        r.max_threads_per_block = d->maxThreadsPerBlock;
        r.max_warps_per_sm = d->maxWarpsPerMultiprocessor;
        r.max_registers_per_block = d->maxRegistersPerBlock;
        r.max_registers_per_sm = d->maxRegistersPerMultiprocessor;
        r.threads_per_warp = d->numThreadsPerWarp;
        r.max_shared_memory_per_block = d->maxSharedMemoryPerBlock;
        r.max_shared_memory_per_sm = d->maxSharedMemoryPerMultiprocessor;
        w_.Add(r);
        break;
      }
      case CUPTI_ACTIVITY_KIND_CONTEXT: {
        const auto* c = reinterpret_cast<const CUpti_ActivityContext3*>(record);
        w_.Add(ContextRecord{c->contextId, c->deviceId});
        break;
      }
      default:
        --kept;
        break;
    }
  }
  return kept;
}

}  // namespace tracelint::capture::inject
