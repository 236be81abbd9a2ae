// libcurl transfer for downloadToFile (weights_download.h).
#include "hub/weights_download.h"

#include <curl/curl.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>

namespace ywb::hub {
namespace {

struct Transfer {
  const DownloadRequest* req = nullptr;
  CURL* curl = nullptr;
  std::FILE* out = nullptr;
  uint64_t offset = 0;   ///< bytes on disk before this transfer (kept only if the server answers 206)
  uint64_t written = 0;  ///< bytes written by this transfer
  bool restarted = false;
  bool write_failed = false;
};

size_t onWrite(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t n = size * count;
  if (!t->out) {
    long code = 0;
    curl_easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, &code);
    // 206: the rest of the file after our bytes; anything else is the whole body from its first byte.
    const bool append = code == 206 && t->offset > 0;
    if (!append) {
      t->restarted = t->offset > 0;
      t->offset = 0;
    }
    t->out = std::fopen(t->req->part_path.c_str(), append ? "ab" : "wb");
    if (!t->out) {
      t->write_failed = true;
      return 0;
    }
  }
  if (std::fwrite(data, 1, n, t->out) != n) {
    t->write_failed = true;
    return 0;
  }
  t->written += n;
  return n;
}

int onProgress(void* user, curl_off_t total, curl_off_t now, curl_off_t, curl_off_t) {
  auto* t = static_cast<Transfer*>(user);
  if (!t->req->progress) return 0;
  const uint64_t base = t->restarted ? 0 : t->offset;
  const uint64_t all = total > 0 ? base + uint64_t(total) : 0;
  return t->req->progress(base + uint64_t(now), all) ? 0 : 1;
}

DownloadStatus statusOf(CURLcode rc) {
  switch (rc) {
    case CURLE_OK:
      return DownloadStatus::Complete;
    case CURLE_ABORTED_BY_CALLBACK:
      return DownloadStatus::Cancelled;
    case CURLE_HTTP_RETURNED_ERROR:
      return DownloadStatus::HttpError;
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE:
      return DownloadStatus::Offline;
    case CURLE_OPERATION_TIMEDOUT:
      return DownloadStatus::Stalled;
    case CURLE_PARTIAL_FILE:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_SEND_ERROR:
      return DownloadStatus::Interrupted;
    case CURLE_FILESIZE_EXCEEDED:
      return DownloadStatus::TooLarge;
    default:
      return DownloadStatus::Failed;
  }
}

void globalInit() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

}  // namespace

bool downloadsSupported() {
  return true;
}

DownloadResult downloadToFile(const DownloadRequest& r) {
  globalInit();
  DownloadResult res;
  std::unique_ptr<CURL, void (*)(CURL*)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) {
    res.detail = "libcurl could not start a transfer";
    return res;
  }
  Transfer t;
  t.req = &r;
  t.curl = curl.get();
  std::error_code ec;
  if (std::filesystem::is_regular_file(r.part_path, ec))
    t.offset = std::filesystem::file_size(r.part_path, ec);
  char errbuf[CURL_ERROR_SIZE] = {};
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, r.url.c_str());
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);  // GitHub answers release assets with a redirect
  curl_easy_setopt(c, CURLOPT_MAXREDIRS, 10L);
#if LIBCURL_VERSION_NUM >= 0x075500  // 7.85: the string forms
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, r.url.rfind("https:", 0) == 0 ? "https" : "http,https");
#endif
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);  // libcurl's defaults, stated: TLS is verified
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
  curl_easy_setopt(c, CURLOPT_FAILONERROR, 1L);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);  // timeouts without SIGALRM: safe off the main thread
  curl_easy_setopt(c, CURLOPT_USERAGENT, "yolo-workbench (libcurl)");
  if (r.connect_timeout_s > 0) curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, r.connect_timeout_s);
  if (r.stall_timeout_s > 0) {
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, r.stall_timeout_s);
  }
  if (r.max_bytes > 0) curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(r.max_bytes));
  // CURLOPT_RANGE rather than RESUME_FROM: a server that ignores it answers 200 with the whole file, which
  // onWrite then writes from the start (RESUME_FROM would fail the transfer instead).
  const std::string range = std::to_string(t.offset) + "-";
  if (t.offset > 0) curl_easy_setopt(c, CURLOPT_RANGE, range.c_str());
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, onWrite);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, onProgress);
  curl_easy_setopt(c, CURLOPT_XFERINFODATA, &t);
  curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
  CURLcode rc = curl_easy_perform(c);
  if (t.out && std::fclose(t.out) != 0) t.write_failed = true;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &res.http_code);
  res.status = statusOf(rc);
  // A body that was never written (an empty 200) still replaces what was there.
  if (rc == CURLE_OK && !t.out) {
    if (std::FILE* f = std::fopen(r.part_path.c_str(), res.http_code == 206 ? "ab" : "wb")) std::fclose(f);
    if (res.http_code != 206) t.offset = 0;
  }
  if (t.write_failed) {
    res.status = DownloadStatus::Failed;
    res.detail = "could not write " + r.part_path;
  } else {
    res.detail = errbuf[0] ? errbuf : curl_easy_strerror(rc);
  }
  res.resumed_from = t.restarted ? 0 : t.offset;
  res.bytes =
      std::filesystem::is_regular_file(r.part_path, ec) ? std::filesystem::file_size(r.part_path, ec) : 0;
  return res;
}

}  // namespace ywb::hub
