#include "train/run_dir.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/atomic_file.h"
#include "core/error.h"
#include "ywb/run_files.h"

namespace fs = std::filesystem;

namespace ywb {

std::string makeRunDir(const std::string& project, const std::string& name, bool exist_ok,
                       bool weights_folder) {
  fs::path dir = fs::path(project) / name;
  if (!exist_ok) {
    for (int i = 2; fs::exists(dir); ++i) dir = fs::path(project) / (name + std::to_string(i));
  }
  std::error_code ec;
  fs::create_directories(weights_folder ? dir / run_files::kWeights : dir, ec);
  if (ec) fail("cannot create run folder '", dir.string(), "': ", ec.message());
  return dir.string();
}

}  // namespace ywb
