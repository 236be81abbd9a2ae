// One HTTP(S) download into a partial file with libcurl, resumable: what a transfer did, never an exception
// for network trouble (the caller words the message; it knows the file and the cache folder).
// Thread rules: a free function; run it on any thread (the progress callback is called on that thread).
#pragma once
#include <cstdint>
#include <functional>
#include <string>

namespace ywb::hub {

struct DownloadRequest {
  std::string url;
  std::string part_path;        ///< bytes already there are resumed with a Range request
  long connect_timeout_s = 30;  ///< 0: libcurl's default
  long stall_timeout_s = 60;    ///< abandon a transfer under 1 byte/s for this long; 0: never
  uint64_t max_bytes = 0;       ///< refuse a larger body (a hostile server); 0: no limit
  std::function<bool(uint64_t done, uint64_t total)> progress;  ///< false cancels
};

enum class DownloadStatus {
  Complete,     ///< the whole body is in part_path
  Cancelled,    ///< the progress callback said stop
  HttpError,    ///< the server answered with a status >= 400 (http_code)
  Offline,      ///< no connection (name resolution, connect, proxy, TLS handshake)
  Stalled,      ///< no progress for stall_timeout_s
  Interrupted,  ///< the connection broke before the body was complete
  TooLarge,     ///< the body is larger than max_bytes
  Failed,       ///< anything else (detail says what)
};

struct DownloadResult {
  DownloadStatus status = DownloadStatus::Failed;
  long http_code = 0;
  uint64_t bytes = 0;         ///< bytes in part_path afterwards
  uint64_t resumed_from = 0;  ///< bytes kept from an earlier attempt (0: started from the beginning)
  std::string detail;         ///< libcurl's error text, or what else went wrong
};

/// Whether this build can download (it was built with libcurl).
bool downloadsSupported();

/// Fetches `r.url` into `r.part_path`, resuming from the bytes already there (a server that ignores the Range
/// request sends the whole file, which replaces them). Proxies come from the environment (libcurl's
/// http_proxy/https_proxy/no_proxy), TLS peers and host names are verified, redirects are followed.
DownloadResult downloadToFile(const DownloadRequest& r);

}  // namespace ywb::hub
