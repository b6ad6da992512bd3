#include "capture/inject/cupti_records.h"

#include <cupti.h>

namespace tracelint::capture::inject {
namespace {

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
  if (cuptiGetCallbackName(static_cast<CUpti_CallbackDomain>(domain), cbid, &name) !=
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
  while (cuptiActivityGetNextRecord(buffer, valid_bytes, &record) == CUPTI_SUCCESS) {
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
