// A checkpoint written on a thread of its own while training goes on. On a GPU an epoch takes seconds and
// writing a checkpoint (60 MB for yolov8n, checksummed, fsync'ed) took 0.8 s of each epoch's 2.8 s in the
// fourth GPU run; the trainer now copies the checkpoint's tensors to host memory (snapshotCheckpoint), hands
// the write over and trains on. The write it handed over is waited for, and its error taken, before the next
// checkpoint, before a rollback reads the last one, and before the run ends; a kill during the write leaves
// the previous checkpoint, as a kill during any write does (train/checkpoint_files.h).
// Thread rules: start() and wait() from one thread (the trainer's); the job runs on the saver's thread.
#pragma once
#include <exception>
#include <functional>
#include <thread>

namespace ywb {

class BackgroundSave {
 public:
  BackgroundSave() = default;
  BackgroundSave(const BackgroundSave&) = delete;
  BackgroundSave& operator=(const BackgroundSave&) = delete;
  /// Waits for the job in progress; its error, if any, is dropped (the trainer took it or is failing).
  ~BackgroundSave();

  /// Runs `job` on a new thread, after waiting for the one before (whose error wait() rethrows first).
  void start(std::function<void()> job);
  /// Waits for the job in progress, if any, and rethrows what it threw.
  void wait();

 private:
  std::thread thread_;
  std::exception_ptr error_;
};

}  // namespace ywb
