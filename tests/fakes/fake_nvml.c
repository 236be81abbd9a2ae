/* Fake NVML for tests: two GPUs with fixed, recognisable readings. Mirrors NVIDIA's C ABI for the
 * functions the doctor uses. Readings are documented here because the tests assert them. */
#include <stdio.h>
#include <string.h>

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st* nvmlDevice_t;
typedef struct {
  unsigned long long total, free, used;
} nvmlMemory_t;
typedef struct {
  unsigned int gpu, memory;
} nvmlUtilization_t;

static int initialised = 0;
static struct nvmlDevice_st { int index; } devices[2] = {{0}, {1}};

nvmlReturn_t nvmlInit_v2(void) {
  initialised = 1;
  return 0;
}
nvmlReturn_t nvmlShutdown(void) {
  initialised = 0;
  return 0;
}
const char* nvmlErrorString(nvmlReturn_t r) {
  return r ? "fake error" : "success";
}
nvmlReturn_t nvmlSystemGetDriverVersion(char* v, unsigned n) {
  snprintf(v, n, "550.54.15");
  return 0;
}
/* 12040 = CUDA 12.4 */
nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int* v) {
  *v = 12040;
  return 0;
}
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned* n) {
  *n = initialised ? 2 : 0;
  return initialised ? 0 : 1;
}
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned i, nvmlDevice_t* d) {
  if (i > 1) return 2;
  *d = &devices[i];
  return 0;
}
nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char* name, unsigned n) {
  snprintf(name, n, d->index == 0 ? "Fake H100 80GB HBM3" : "Fake GeForce GTX 1080");
  return 0;
}
/* GPU 0: 80 GiB total, 20 GiB used; GPU 1: 8 GiB total, 1 GiB used */
nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t* m) {
  const unsigned long long gib = 1ull << 30;
  m->total = (d->index == 0 ? 80 : 8) * gib;
  m->used = (d->index == 0 ? 20 : 1) * gib;
  m->free = m->total - m->used;
  return 0;
}
nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t d, nvmlUtilization_t* u) {
  u->gpu = d->index == 0 ? 87 : 3;
  u->memory = 40;
  return 0;
}
nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t d, int sensor, unsigned* t) {
  (void)sensor;
  *t = d->index == 0 ? 65 : 40;
  return 0;
}
/* milliwatts: 350.5 W of 700 W, 30 W of 180 W */
nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t d, unsigned* p) {
  *p = d->index == 0 ? 350500 : 30000;
  return 0;
}
nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t d, unsigned* p) {
  *p = d->index == 0 ? 700000 : 180000;
  return 0;
}
/* H100: 9.0; GTX 1080: 6.1 */
nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t d, int* major, int* minor) {
  *major = d->index == 0 ? 9 : 6;
  *minor = d->index == 0 ? 0 : 1;
  return 0;
}
