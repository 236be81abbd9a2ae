#include "core/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "core/error.h"

namespace fs = std::filesystem;

namespace ywb {
namespace {

std::string tempNameFor(const fs::path& target) {
  std::random_device rd;
  std::ostringstream os;
  os << target.filename().string() << ".tmp-" << ::getpid() << "-" << std::hex << rd();
  return (target.parent_path() / os.str()).string();
}

void fsyncPath(const std::string& path, bool directory) {
  int fd = ::open(path.c_str(), directory ? O_RDONLY | O_DIRECTORY : O_RDONLY);
  if (fd < 0) return;  // best effort: some filesystems do not allow opening directories
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

void writeFileAtomic(const std::string& path, const std::function<void(std::ostream&)>& writer) {
  fs::path target(path);
  if (target.has_parent_path()) {
    std::error_code ec;
    fs::create_directories(target.parent_path(), ec);
    if (ec) fail("cannot create folder '", target.parent_path().string(), "': ", ec.message());
  }
  const std::string tmp = tempNameFor(target);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) fail("cannot write '", tmp, "': ", std::strerror(errno));
    try {
      writer(out);
    } catch (...) {
      out.close();
      fs::remove(tmp);
      throw;
    }
    out.flush();
    if (!out) {
      out.close();
      fs::remove(tmp);
      fail("writing '", path, "' failed (disk full?)");
    }
  }
  fsyncPath(tmp, false);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    fs::remove(tmp);
    fail("cannot move '", tmp, "' over '", path, "': ", why);
  }
  fsyncPath(target.has_parent_path() ? target.parent_path().string() : ".", true);
}

void writeFileAtomic(const std::string& path, const std::string& bytes) {
  writeFileAtomic(path, [&](std::ostream& out) { out.write(bytes.data(), std::streamsize(bytes.size())); });
}

int removeAtomicWriteLeftovers(const std::string& dir) {
  int removed = 0;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    // tempNameFor's pattern; also the ".tmp-copy" of a checkpoint copy (train/train_epoch.cpp)
    if (it->is_regular_file(ec) && it->path().filename().string().find(".tmp-") != std::string::npos &&
        fs::remove(it->path(), ec))
      ++removed;
  }
  return removed;
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("cannot open '", path, "': ", std::strerror(errno));
  std::ostringstream os;
  os << in.rdbuf();
  if (in.bad()) fail("error while reading '", path, "'");
  return os.str();
}

}  // namespace ywb
