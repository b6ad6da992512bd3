#include "capture/inject/cupti_api.h"

#include <dlfcn.h>
#include <link.h>

#include <cstdlib>
#include <mutex>
#include <vector>

namespace tracelint::capture::inject {
namespace {

CuptiApi* g_api = nullptr;

// The directory of a library the process already loaded, or "".
std::string LoadedDir(const char* soname) {
  void* h = ::dlopen(soname, RTLD_NOW | RTLD_NOLOAD);
  if (h == nullptr) return "";
  link_map* map = nullptr;
  std::string dir;
  if (::dlinfo(h, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name != nullptr) {
    dir = map->l_name;
    size_t slash = dir.rfind('/');
    dir = slash == std::string::npos ? "" : dir.substr(0, slash);
  }
  ::dlclose(h);
  return dir;
}

template <typename Fn>
bool Bind(void* h, const char* name, Fn& fn, bool required) {
  fn = reinterpret_cast<Fn>(::dlsym(h, name));
  return fn != nullptr || !required;
}

bool Fill(void* h, CuptiApi& api) {
  return Bind(h, "cuptiGetResultString", api.GetResultString, true) &&
         Bind(h, "cuptiGetVersion", api.GetVersion, true) &&
         Bind(h, "cuptiGetTimestamp", api.GetTimestamp, true) &&
         Bind(h, "cuptiGetContextId", api.GetContextId, true) &&
         Bind(h, "cuptiGetCallbackName", api.GetCallbackName, true) &&
         Bind(h, "cuptiActivityEnable", api.ActivityEnable, true) &&
         Bind(h, "cuptiActivityDisable", api.ActivityDisable, true) &&
         Bind(h, "cuptiActivityEnableDriverApi", api.ActivityEnableDriverApi, false) &&
         Bind(h, "cuptiActivityFlushAll", api.ActivityFlushAll, true) &&
         Bind(h, "cuptiActivityFlushPeriod", api.ActivityFlushPeriod, true) &&
         Bind(h, "cuptiActivityRegisterCallbacks", api.ActivityRegisterCallbacks, true) &&
         Bind(h, "cuptiActivityGetNextRecord", api.ActivityGetNextRecord, true) &&
         Bind(h, "cuptiActivityGetNumDroppedRecords", api.ActivityGetNumDroppedRecords, true) &&
         Bind(h, "InitializeInjectionNvtx2", api.InitializeInjectionNvtx2, false);
}

std::vector<std::string> Candidates() {
  std::vector<std::string> out;
  if (const char* env = std::getenv("TRACELINT_CUPTI_LIBRARY"); env && *env) out.push_back(env);
  // The CUDA runtime the program uses decides the major version first.
  std::vector<const char*> majors = {"13", "12"};
  if (LoadedDir("libcudart.so.13").empty() && !LoadedDir("libcudart.so.12").empty()) {
    majors = {"12", "13"};
  }
  for (const char* major : majors) {
    std::string name = std::string("libcupti.so.") + major;
    std::string loaded = LoadedDir(name.c_str());
    if (!loaded.empty()) out.push_back(loaded + "/" + name);
  }
  for (const char* major : majors) {
    std::string name = std::string("libcupti.so.") + major;
    std::string cudart = LoadedDir((std::string("libcudart.so.") + major).c_str());
    if (!cudart.empty()) {
      out.push_back(cudart + "/" + name);                        // toolkit lib64, cu13 wheels
      out.push_back(cudart + "/../extras/CUPTI/lib64/" + name);  // toolkit
      out.push_back(cudart + "/../../cuda_cupti/lib/" + name);   // nvidia-cuda-cupti-cu12
    }
    out.push_back(name);  // LD_LIBRARY_PATH, the loader's cache
    for (const char* dir : {"/usr/local/cuda/extras/CUPTI/lib64", "/usr/local/cuda/lib64",
                            "/usr/local/cuda/lib"}) {
      out.push_back(std::string(dir) + "/" + name);
    }
  }
  return out;
}

}  // namespace

const CuptiApi* LoadCupti(std::string* why) {
  static std::once_flag once;
  static std::string tried;
  std::call_once(once, [] {
    for (const std::string& path : Candidates()) {
      void* h = ::dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
      if (h == nullptr) {
        const char* e = ::dlerror();
        tried += (tried.empty() ? "" : "; ") + std::string(e ? e : path);
        continue;
      }
      auto* api = new CuptiApi;
      if (!Fill(h, *api)) {
        tried += (tried.empty() ? "" : "; ") + path + ": not CUPTI 12 or 13";
        delete api;
        ::dlclose(h);
        continue;
      }
      api->handle = h;
      api->path = path;
      g_api = api;
      return;
    }
  });
  if (g_api == nullptr && why != nullptr) *why = tried;
  return g_api;
}

const CuptiApi& Cupti() { return *g_api; }

}  // namespace tracelint::capture::inject

// libstdc++.a of GCC 12, as Debian 12 builds it, refers to glibc 2.36's
// arc4random (std::random_device, which this library never calls). Linked
// statically into the library, it would raise the library's glibc floor
// from 2.34 to 2.36 (Ubuntu 22.04 has 2.35); this local, hidden definition
// satisfies the reference instead (docs/capture.md, "Floor").
#include <sys/random.h>
extern "C" __attribute__((visibility("hidden"))) uint32_t arc4random(void) {
  uint32_t value = 0;
  while (::getrandom(&value, sizeof(value), 0) != static_cast<ssize_t>(sizeof(value))) {
  }
  return value;
}
