#include "core/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <streambuf>
#include <vector>

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

// An output buffer over a file descriptor that keeps the errno of the first failed write (std::ofstream
// forgets it, and a full disk must be told from other failures).
class FdOutBuf : public std::streambuf {
 public:
  explicit FdOutBuf(int fd) : fd_(fd), buf_(size_t(1) << 20) { setp(buf_.data(), buf_.data() + buf_.size()); }
  int error() const { return err_; }

 protected:
  int_type overflow(int_type ch) override {
    if (sync() != 0) return traits_type::eof();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(ch);
      pbump(1);
    }
    return traits_type::not_eof(ch);
  }
  int sync() override {
    if (err_ != 0) return -1;
    const char* p = pbase();
    while (p < pptr()) {
      const ssize_t n = ::write(fd_, p, size_t(pptr() - p));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        err_ = n < 0 ? errno : EIO;
        return -1;
      }
      p += n;
    }
    setp(buf_.data(), buf_.data() + buf_.size());
    return 0;
  }

 private:
  int fd_;
  int err_ = 0;
  std::vector<char> buf_;
};

[[noreturn]] void writeFailed(const std::string& path, const std::string& tmp, const char* what, int code) {
  ::unlink(tmp.c_str());
  throw FileWriteError("cannot " + std::string(what) + " '" + path + "': " + std::strerror(code), path, code);
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
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) {
    const int code = errno;
    throw FileWriteError("cannot create '" + tmp + "': " + std::strerror(code), path, code);
  }
  int code = 0;
  const char* what = "write";
  {
    FdOutBuf buf(fd);
    std::ostream out(&buf);
    try {
      writer(out);
    } catch (...) {
      ::close(fd);
      ::unlink(tmp.c_str());
      throw;
    }
    out.flush();
    code = buf.error();
    if (code == 0 && !out) code = EIO;  // the writer put the stream in a failed state without an OS error
  }
  // A full disk may only show when the data reaches it (delayed allocation, network filesystems).
  if (code == 0 && ::fsync(fd) != 0 && errno != EINVAL && errno != EROFS) {
    code = errno;
    what = "flush to disk";
  }
  if (::close(fd) != 0 && code == 0 && errno != EINTR) {
    code = errno;
    what = "close";
  }
  if (code != 0) writeFailed(path, tmp, what, code);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    code = errno;
    ::unlink(tmp.c_str());
    throw FileWriteError("cannot move '" + tmp + "' over '" + path + "': " + std::strerror(code), path, code);
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
    // tempNameFor's pattern; also the ".tmp-link-" of a checkpoint link (train/checkpoint_files.cpp)
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
