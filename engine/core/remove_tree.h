// Removing a folder and everything in it, without std::filesystem::remove_all.
#pragma once
#include <string>

namespace ywb {

/// Removes `path` and, if it is a folder, everything under it; symbolic links are removed, never followed.
/// A path that does not exist is not an error. Returns an empty string on success, else what failed (the
/// path and the system's reason); what could be removed before the failure is gone.
///
/// Why not std::filesystem::remove_all: pip's LibTorch (the CUDA one on GPU machines) exports its own,
/// unversioned copies of 64 std::filesystem functions, a program linked against it can bind to them, and
/// LibTorch 2.11's remove_all called a null pointer (`ywb bench epoch` died in it on an H100, 2026-11-25).
/// This uses the C library's nftw(3) and remove(3), which no other library replaces.
std::string removeTree(const std::string& path);

}  // namespace ywb
