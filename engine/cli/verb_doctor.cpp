#include <iostream>

#include "cli/verb_registry.h"
#include "ywb/doctor.h"

namespace ywb::cli {
namespace {

int runDoctorVerb(const Args& a) {
  a.requireKnown({"project", "nvml", "probe"});
  DoctorOptions opt;
  opt.runs_dir = a.str("project", "runs");
  opt.nvml_library = a.str("nvml");
  opt.probe_cuda = a.boolean("probe", true);
  const DoctorReport r = runDoctor(opt);
  std::cout << (a.json ? doctorReportJson(r) + "\n" : doctorReportText(r));
  return r.ok() ? 0 : 1;
}

const RegisterVerb reg{
    {"doctor", "check LibTorch, CUDA, GPUs (NVML), CPU, RAM and disk",
     "[project=runs] [nvml=LIB] [probe=true] [--json]\n\n"
     "Reports the LibTorch build (CUDA, cuDNN, NCCL, MKL-DNN, OpenMP, BLAS, threads), OpenCV,\n"
     "Qt, the NVIDIA driver and every GPU (compute capability, memory, load, temperature,\n"
     "power, and whether this LibTorch has kernels for it), CPU, RAM and free disk.\n\n"
     "  project=DIR  runs folder whose free disk space is checked (default runs)\n"
     "  nvml=LIB     NVML library to load (default libnvidia-ml.so.1 or $YWB_NVML_LIB)\n"
     "  probe=BOOL   run a test kernel on each CUDA device (default true)\n"
     "  --json       print the report as JSON\n\n"
     "Exit status: 0 when nothing would stop training, 1 when a problem would.",
     runDoctorVerb}};

}  // namespace
}  // namespace ywb::cli
