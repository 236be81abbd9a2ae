#include "io/pt_archive.h"

#include <cstring>

#include "core/error.h"
#include "io/unpickler.h"

namespace ywb {
namespace {

ZipArchive openZip(const uint8_t* data, size_t size, const std::string& source) {
  // PyTorch before 1.6 (and _use_new_zipfile_serialization=False) wrote a bare pickle starting with a
  // magic number: protocol 2, then LONG1 of 10 bytes.
  if (size >= 4 && data[0] == 0x80 && data[1] == 0x02 && data[2] == 0x8a && data[3] == 0x0a)
    fail(source,
         ": PyTorch's legacy (pre-1.6) file format, which is not read; load it in PyTorch and save it"
         " again with torch.save (PyTorch >= 1.6 writes the zip format)");
  if (!looksLikeZip(data, size))
    fail(source,
         ": not a PyTorch checkpoint (a .pt file is a zip archive; this file does not start with 'PK')");
  return ZipArchive(data, size, source);
}

std::string text(const ZipArchive& zip, const ZipEntry& e) {
  if (e.size > 64) return "?";
  const uint8_t* p = zip.bytes(e);
  std::string s(reinterpret_cast<const char*>(p), size_t(e.size));
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

PtArchive::PtArchive(const uint8_t* data, size_t size, const std::string& source)
    : zip_(openZip(data, size, source)) {
  const ZipEntry* pkl = nullptr;
  for (const auto& [name, e] : zip_.entries()) {
    const size_t slash = name.find('/');
    if (slash != std::string::npos && name.compare(slash, std::string::npos, "/data.pkl") == 0) {
      pkl = &e;
      prefix_ = name.substr(0, slash + 1);
      break;
    }
  }
  if (!pkl) {
    fail(source, ": zip archive without <name>/data.pkl: not a PyTorch checkpoint (", zip_.entries().size(),
         " entries", zip_.entries().empty() ? "" : ", e.g. '" + zip_.entries().begin()->first + "'", ")");
  }
  bool code = false;
  for (const auto& kv : zip_.entries()) code = code || kv.first.rfind(prefix_ + "code/", 0) == 0;
  if (code || zip_.find(prefix_ + "constants.pkl"))
    fail(source,
         ": a TorchScript archive (torch.jit.save, or Ultralytics' export format=torchscript): it holds"
         " compiled code, not a checkpoint (`ywb val` and `ywb predict` run it as an exported model). Give"
         " the training checkpoint instead (Ultralytics' weights/best.pt or a torch.save file)");
  if (const ZipEntry* bo = zip_.find(prefix_ + "byteorder")) {
    const std::string order = text(zip_, *bo);
    if (order != "little")
      fail(source, ": tensors stored in '", order, "' byte order; only little-endian is read");
  }
  if (const ZipEntry* v = zip_.find(prefix_ + "version")) version_ = text(zip_, *v);
  const uint8_t* bytes = zip_.bytes(*pkl);
  pickle_ = pickle::unpickle(bytes, size_t(pkl->size), source + ": " + pkl->name);
}

const ZipEntry& PtArchive::storageEntry(const std::string& key) const {
  const ZipEntry* e = zip_.find(prefix_ + "data/" + key);
  if (!e)
    fail(source(), ": storage '", key, "' (", prefix_, "data/", key,
         ") is missing from the archive: the file is incomplete");
  return *e;
}

uint64_t PtArchive::storageSize(const std::string& key) const {
  return storageEntry(key).size;
}

const uint8_t* PtArchive::storage(const std::string& key, uint64_t bytes) const {
  const ZipEntry& e = storageEntry(key);
  if (e.size < bytes)
    fail(source(), ": storage '", key, "' holds ", e.size, " bytes but its tensors need ", bytes,
         ": the file is damaged");
  return zip_.bytes(e);
}

}  // namespace ywb
