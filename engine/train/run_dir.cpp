#include "train/run_dir.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/atomic_file.h"
#include "core/error.h"

namespace fs = std::filesystem;

namespace ywb {

std::string makeRunDir(const std::string& project, const std::string& name, bool exist_ok) {
  fs::path dir = fs::path(project) / name;
  if (!exist_ok) {
    for (int i = 2; fs::exists(dir); ++i) dir = fs::path(project) / (name + std::to_string(i));
  }
  std::error_code ec;
  fs::create_directories(dir / "weights", ec);
  if (ec) fail("cannot create run folder '", dir.string(), "': ", ec.message());
  return dir.string();
}

}  // namespace ywb
