// What a PyTorch checkpoint holds for us, read from its unpickled data.pkl (torch-free): the model's
// state dict as tensor descriptors with PyTorch/Ultralytics names, and the metadata an Ultralytics
// checkpoint carries (class names, the model's YAML dict, training arguments, date, version, epoch).
// Thread rules: pure functions; call from any thread.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "io/mapped_file.h"
#include "io/pickle_value.h"
#include "io/pt_archive.h"

namespace ywb {

/// Value of the "format" metadata key for an Ultralytics checkpoint and for a plain state dict.
inline constexpr const char* kPtUltralyticsFormat = "ultralytics-pt";
inline constexpr const char* kPtStateDictFormat = "pytorch-state-dict";

struct PtCheckpoint {
  /// The state dict in PyTorch's order: each module's parameters, its persistent buffers, then children.
  std::vector<std::pair<std::string, pickle::TensorDesc>> tensors;
  /// weights_key names (format, names as a JSON list, nc, imgsz, yaml as JSON text of the model dict,
  /// args as JSON) plus date, ultralytics_version, epoch, best_fitness, train_metrics when present.
  std::map<std::string, std::string> metadata;
};

/// Reads the checkpoint out of an unpickled data.pkl. Ultralytics' dict: `ema` when not None, else `model`,
/// walked through _modules/_parameters/_buffers; a plain state dict (a dict of tensors, also under
/// `model`/`state_dict`) and a pickled module are accepted too. Throws ywb::Error naming `source` when the
/// pickle is not a checkpoint.
PtCheckpoint extractCheckpoint(const pickle::PickleData& data, const std::string& source);

/// A checkpoint file opened and checked: mapped bytes, the archive and what it holds. Every tensor's
/// storage was checked to exist and to be long enough for it.
struct PtFile {
  std::unique_ptr<MappedFile> map;
  std::unique_ptr<PtArchive> archive;
  PtCheckpoint checkpoint;
};

/// Opens the .pt file at `path`; errors name the path.
PtFile openPtFile(const std::string& path);

/// Checks every tensor of `ckpt` against the archive's storages (present, long enough, one dtype per key).
void checkStorages(const PtArchive& archive, const PtCheckpoint& ckpt);

/// The names of PyTorch checkpoint files: .pt and .pth (torch.save's conventions).
const std::vector<std::string>& ptFileSuffixes();

/// Whether `path` names a PyTorch checkpoint: a file starting like a zip archive (whatever its extension),
/// or one named .pt/.pth (so that a damaged or legacy .pt gets the .pt reader's message).
bool isPtFile(const std::string& path);

}  // namespace ywb
