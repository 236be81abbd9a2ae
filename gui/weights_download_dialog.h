// A progress dialog with Cancel for fetching official weights by name (ywb::resolveWeights): the download
// runs on a worker thread; the dialog shows its bytes and closes when it ends. The base address is the
// setting "weights/baseUrl" (Preferences; $YWB_WEIGHTS_URL wins over it, see ywb::weightsBaseUrl). Thread
// rules: GUI thread; the worker only touches atomics and posts its result back queued; destroying the dialog
// cancels the download and waits for the worker.
#pragma once
#include <QProgressDialog>
#include <atomic>
#include <memory>

#include "worker_threads.h"
#include "ywb/pretrained.h"

namespace ywb::gui {

class WeightsDownloadDialog : public QProgressDialog {
  Q_OBJECT
 public:
  /// `arg` as typed (an official name such as "yolo11n.pt"); `options` may set the cache folder or address
  /// (tests); empty fields take the defaults and the setting.
  WeightsDownloadDialog(const QString& arg, ywb::WeightsFetchOptions options, QWidget* parent = nullptr);
  ~WeightsDownloadDialog() override;

  /// Starts the download on a worker thread (the dialog shows itself after a short delay).
  void start();
  bool finished() const { return finished_; }
  /// The file to use after a successful download; empty after an error or Cancel.
  const QString& path() const { return path_; }
  /// What went wrong (empty on success); says "cancelled" after Cancel.
  const QString& error() const { return error_; }

  /// What the GUI calls where a weights field is used: `arg` unchanged when no download is needed, else the
  /// downloaded file after a modal progress dialog; empty with *error set when it failed or was cancelled.
  static QString resolve(QWidget* parent, const QString& arg, QString* error);
  /// The base address setting ("" = Ultralytics' own).
  static QString baseUrlSetting();
  /// Asks for the base address setting (Tools menu); an empty answer restores Ultralytics' own.
  static void editBaseUrlSetting(QWidget* parent);

 Q_SIGNALS:
  void done(bool ok);

 private:
  void poll();

  QString arg_;
  ywb::WeightsFetchOptions options_;
  std::shared_ptr<std::atomic<uint64_t>> done_bytes_, total_bytes_;
  std::shared_ptr<std::atomic<bool>> cancel_;
  QTimer* timer_ = nullptr;
  bool finished_ = false;
  QString path_, error_;
  WorkerThreads workers_;  // the download
};

}  // namespace ywb::gui
