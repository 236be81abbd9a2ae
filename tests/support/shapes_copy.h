// A writable copy of the shared shapes dataset (../shared/fixtures/ultralytics/shapes, Ultralytics' layout):
// scans write their label cache beside the labels, and the shared folder may be read-only, so the copy is
// made writable throughout.
#pragma once
#include <filesystem>
#include <string>

/// Copies the shapes dataset to `dir`/`name` and returns that folder (its data.yaml is inside).
inline std::string copyShapesDataset(const std::string& dir, const std::string& name = "shapes") {
  namespace fs = std::filesystem;
  const fs::path dst = fs::path(dir) / name;
  fs::copy(fs::path(YW_SHARED_DIR) / "fixtures/ultralytics/shapes", dst, fs::copy_options::recursive);
  for (const auto& e : fs::recursive_directory_iterator(dst))
    fs::permissions(e.path(), fs::perms::owner_write, fs::perm_options::add);
  fs::permissions(dst, fs::perms::owner_write, fs::perm_options::add);
  return dst.string();
}
