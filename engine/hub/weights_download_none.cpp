// downloadToFile for builds without libcurl (weights_download.h): every download reports that it cannot run.
#include "hub/weights_download.h"

namespace ywb::hub {

bool downloadsSupported() {
  return false;
}

DownloadResult downloadToFile(const DownloadRequest&) {
  DownloadResult r;
  r.status = DownloadStatus::Offline;
  r.detail = "this build of YOLO Workbench has no downloader (it was built without libcurl)";
  return r;
}

}  // namespace ywb::hub
