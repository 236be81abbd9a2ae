// libFuzzer entry for one user-file parser of fuzz_parsers.h, chosen at compile time by
// (YW_FUZZ_KIND 1 labels, 2 data_yaml, 3 args_yaml, 4 coco_json, 5 image). Rejections are ywb::Error;
// anything else escaping is a finding. Build and run: see tests/fuzz/README.md.
#include <unistd.h>

#include <cstdint>
#include <string>

#include "fuzz_parsers.h"
#include "ywb/error.h"

#define YW_STR2(x) #x
#define YW_STR(x) YW_STR2(x)

namespace {
const std::string& scratchDir() {
  static const std::string dir = [] {
    // tmpfs where there is one: a file per input on a busy disk stalled in open() for minutes.
    const std::string base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    const std::string d = base + "/ywb-fuzz-" YW_STR(YW_FUZZ_KIND) "-" + std::to_string(getpid());
    ywb::fuzz::prepareDataYamlDir(d);
    return d;
  }();
  return dir;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
#if YW_FUZZ_KIND == 1
    ywb::fuzz::labelRows(data, size);
#elif YW_FUZZ_KIND == 2
    ywb::fuzz::dataYaml(data, size, scratchDir());
#elif YW_FUZZ_KIND == 3
    ywb::fuzz::argsYaml(data, size);
#elif YW_FUZZ_KIND == 4
    ywb::fuzz::cocoJson(data, size);
#else
    ywb::fuzz::imageFile(data, size, scratchDir());
#endif
  } catch (const ywb::Error&) {
    // The parser refused the input with a message: the expected outcome for malformed input.
  }
  (void)scratchDir;
  return 0;
}
