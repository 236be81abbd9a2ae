#include "core/remove_tree.h"

#include <ftw.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace ywb {
namespace {

// nftw's callback has no user argument: the first failure is kept per thread.
thread_local std::string t_failure;

int removeEntry(const char* path, const struct stat*, int type, struct FTW*) {
  if (type == FTW_NS || type == FTW_DNR) {  // cannot stat / cannot read the folder: cannot empty it
    t_failure = std::string("cannot read '") + path + "'";
    return 1;
  }
  if (std::remove(path) != 0 && errno != ENOENT) {
    t_failure = std::string("cannot remove '") + path + "': " + std::strerror(errno);
    return 1;
  }
  return 0;
}

}  // namespace

std::string removeTree(const std::string& path) {
  t_failure.clear();
  // FTW_DEPTH: a folder's contents before the folder; FTW_PHYS: links are entries, not followed.
  const int rc = ::nftw(path.c_str(), removeEntry, 16, FTW_DEPTH | FTW_PHYS);
  if (rc == -1) {
    if (errno == ENOENT) return {};
    return "cannot remove '" + path + "': " + std::strerror(errno);
  }
  return t_failure;
}

}  // namespace ywb
