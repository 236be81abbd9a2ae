#include "train/checkpoint_files.h"

#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/atomic_file.h"
#include "io/mapped_file.h"
#include "io/safetensors_view.h"
#include "ywb/run_files.h"

namespace fs = std::filesystem;

namespace ywb {
namespace {

fs::path weightsDir(const std::string& run_dir) {
  return fs::path(run_dir) / run_files::kWeights;
}

std::string megabytes(uint64_t bytes) {
  std::ostringstream os;
  os.setf(std::ios::fixed);
  os.precision(1);
  os << double(bytes) / 1e6 << " MB";
  return os.str();
}

// A path as the user types it after `resume=`: quoted when it holds a space.
std::string shellWord(const std::string& path) {
  return path.find_first_of(" \t'\"") == std::string::npos ? path : "\"" + path + "\"";
}

// Temporary files of writes that never finished (a killed process): writeFileAtomic's "<name>.tmp-<pid>-<x>",
// linkAtomic's "<name>.tmp-link-<pid>", and the ".tmp-copy" of older versions.
bool noHardLinks(int code) {
  return code == EPERM || code == ENOTSUP || code == EOPNOTSUPP || code == EXDEV || code == EMLINK ||
         code == ENOSYS;
}

// Makes `to` the same file as `from`, replacing `to` atomically: a hard link under a temporary name renamed
// over it; a copy where the filesystem has no hard links. Throws FileWriteError.
void linkAtomic(const std::string& from, const std::string& to) {
  const std::string tmp = to + ".tmp-link-" + std::to_string(::getpid());
  ::unlink(tmp.c_str());
  if (::link(from.c_str(), tmp.c_str()) != 0) {
    const int code = errno;
    if (!noHardLinks(code))
      throw FileWriteError("cannot link '" + to + "' to '" + from + "': " + std::strerror(code), to, code);
    writeFileAtomic(to, [&](std::ostream& out) {
      std::ifstream in(from, std::ios::binary);
      out << in.rdbuf();
      if (!in.good() && !in.eof()) throw FileWriteError("cannot read '" + from + "'", to, EIO);
    });
    return;
  }
  if (::rename(tmp.c_str(), to.c_str()) != 0) {
    const int code = errno;
    ::unlink(tmp.c_str());
    throw FileWriteError("cannot move '" + tmp + "' over '" + to + "': " + std::strerror(code), to, code);
  }
  // rename() of two links to one file succeeds doing nothing (POSIX): `to` was that file already.
  ::unlink(tmp.c_str());
}

// What the user still has after a failed save: the last checkpoint, checked.
std::string intactNote(const std::string& run_dir) {
  const std::string last = CheckpointFiles::lastPath(run_dir);
  std::error_code ec;
  if (!fs::exists(last, ec)) return "No checkpoint of this run was saved before this one.";
  try {
    const CheckpointState st = CheckpointFiles::verify(last);
    return "weights/last.safetensors (saved after epoch " + std::to_string(st.epoch) + " of " +
           std::to_string(st.epochs) + ") is intact and loadable.";
  } catch (const std::exception& e) {
    return std::string("weights/last.safetensors cannot be read either: ") + e.what();
  }
}

}  // namespace

std::string CheckpointFiles::lastPath(const std::string& run_dir) {
  return run_files::lastCheckpoint(run_dir);
}
std::string CheckpointFiles::previousPath(const std::string& run_dir) {
  return (weightsDir(run_dir) / "previous.safetensors").string();
}
std::string CheckpointFiles::bestPath(const std::string& run_dir) {
  return (weightsDir(run_dir) / "best.safetensors").string();
}
std::string CheckpointFiles::epochPath(const std::string& run_dir, int epoch) {
  return (weightsDir(run_dir) / ("epoch" + std::to_string(epoch) + ".safetensors")).string();
}

CheckpointState CheckpointFiles::verify(const std::string& path) {
  const MappedFile map(path);
  const SafetensorsView view = safetensors::parse(map.data(), map.size(), path);  // header checksum
  safetensors::verifyDataChecksum(view, map.data(), path);
  requireCheckpointFormat(view.metadata, path);
  return CheckpointState::fromMetadata(view.metadata, path);
}

std::string CheckpointFiles::damagedMessage(const std::string& damaged, const std::string& what) {
  std::ostringstream os;
  std::string why = what;  // without the parser's advice to export or download the file again
  if (const size_t at = why.find(kSafetensorsDamageAdvice); at != std::string::npos)
    why.erase(at, std::strlen(kSafetensorsDamageAdvice));
  os << damaged << " is damaged: " << why;
  const fs::path dir = fs::path(damaged).parent_path();
  std::error_code ec;
  for (const char* name : {"previous.safetensors", "best.safetensors", "last.safetensors"}) {
    const fs::path candidate = dir / name;
    if (!fs::exists(candidate, ec) || fs::equivalent(candidate, damaged, ec)) continue;
    try {
      const CheckpointState st = verify(candidate.string());
      os << "\nThe checkpoint " << candidate.string() << " (saved after epoch " << st.epoch << " of "
         << st.epochs
         << ") is intact; continue from it with:\n  ywb train resume=" << shellWord(candidate.string())
         << "\n(the run goes on in " << st.run_dir << " and writes a new weights/last.safetensors)";
      return os.str();
    } catch (const std::exception& e) {
      os << "\n" << candidate.string() << " cannot be used either: " << e.what();
    }
  }
  os << "\nNo intact checkpoint was found beside it (previous.safetensors, best.safetensors): start a new "
        "run "
        "(pretrained= takes the weights of any readable checkpoint).";
  return os.str();
}

CheckpointFiles::CheckpointFiles(std::string run_dir, bool last_is_good)
    : run_dir_(std::move(run_dir)), last_is_good_(last_is_good) {}

void CheckpointFiles::save(const CheckpointContent& content, int epoch, bool is_best, int period_epoch) {
  const std::string last = lastPath(run_dir_);
  removeAtomicWriteLeftovers(weightsDir(run_dir_).string());
  try {
    std::error_code ec;
    // First: the checkpoint being replaced becomes previous (a link: no space needed). A failed write below
    // then leaves last and previous both naming it.
    if (last_is_good_ && fs::exists(last, ec)) linkAtomic(last, previousPath(run_dir_));
    // `last` comes last: when it appears, the files it implies (best, when it names this epoch best; the
    // periodic copy) are on disk already, so a kill between the files leaves the previous `last` and a
    // resume repeats the epoch. (Written first, a kill before the link left a `last` naming a best epoch that
    // best did not hold; found by test_kill_storm.)
    const std::string first = is_best            ? bestPath(run_dir_)
                              : period_epoch > 0 ? epochPath(run_dir_, period_epoch)
                                                 : last;
    saveCheckpoint(first, content);
    if (period_epoch > 0 && first != epochPath(run_dir_, period_epoch))
      linkAtomic(first, epochPath(run_dir_, period_epoch));
    if (first != last) linkAtomic(first, last);
    last_is_good_ = true;
  } catch (const FileWriteError& e) {
    const int code = e.code();
    const uint64_t need = checkpointFileSize(content);
    struct statvfs v {};
    const bool known = ::statvfs(weightsDir(run_dir_).c_str(), &v) == 0;
    const uint64_t free = known ? uint64_t(v.f_bavail) * uint64_t(v.f_frsize) : 0;
    // A full filesystem can also answer EIO or EFBIG (some network and FUSE filesystems): statvfs decides.
    const bool full =
        code == ENOSPC || code == EDQUOT || ((code == EIO || code == EFBIG) && known && free < need);
    std::ostringstream os;
    os << "cannot save the checkpoint after epoch " << epoch << " (" << e.path() << "): ";
    if (full) {
      os << (code == EDQUOT ? "the disk quota is exhausted" : "the disk is full") << " ("
         << std::strerror(code) << "): a checkpoint needs " << megabytes(need) << " and "
         << weightsDir(run_dir_).string() << " has "
         << (known ? megabytes(free) : std::string("an unknown amount")) << " free";
    } else {
      os << e.what();
    }
    os << ". " << intactNote(run_dir_);
    throw CheckpointSaveError(os.str(), full);
  }
}

}  // namespace ywb
