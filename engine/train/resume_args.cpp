#include "train/resume_args.h"

#include <algorithm>
#include <filesystem>

#include "core/error.h"
#include "io/mapped_file.h"
#include "io/safetensors_view.h"
#include "train/checkpoint.h"
#include "train/checkpoint_files.h"
#include "ywb/run_files.h"
#include "ywb/trainer.h"
#include "ywb/tune.h"

namespace fs = std::filesystem;

namespace ywb {
namespace {

TrainArgs runArgs(const CheckpointState& st, const std::string& ckpt) {
  TrainArgs from;
  loadTrainArgsYamlText(st.args, ckpt + " (args)", from);
  from.given.clear();
  return from;
}

// The checkpoint's state from its header, checked (header checksum, format); damage is reported with the
// intact file beside it. Header only: the GUI calls this on its thread, and the trainer reads and checks the
// whole file before training anyway.
CheckpointState verifiedState(const std::string& resume, const std::string& ckpt) {
  try {
    const MappedFile map(ckpt);
    const SafetensorsView view = safetensors::parse(map.data(), map.size(), ckpt);
    requireCheckpointFormat(view.metadata, ckpt);
    return CheckpointState::fromMetadata(view.metadata, ckpt);
  } catch (const NotACheckpointError&) {
    throw;
  } catch (const Error& e) {
    fail("resume=", resume, ": ", CheckpointFiles::damagedMessage(ckpt, e.what()));
  }
}

}  // namespace

const std::vector<std::string>& resumeChangeableArgs() {
  static const std::vector<std::string> keys = {"epochs",  "patience", "time",
                                                "workers", "device",   "on_save_error"};
  return keys;
}

std::string resolveResumeFlag(TrainArgs& args) {
  std::error_code ec;
  if (!isBooleanWord(args.resume) || fs::exists(args.resume, ec)) return "";
  if (args.resume[0] == 'f' || args.resume[0] == 'F') {
    args.resume.clear();
    args.given.erase(std::remove(args.given.begin(), args.given.end(), "resume"), args.given.end());
    return "";
  }
  const bool model_is_run = !args.model.empty() && (fs::is_directory(args.model, ec) ||
                                                    fs::path(args.model).extension() == ".safetensors");
  if (model_is_run) {  // `resume model=runs/detect/train/weights/last.safetensors`, as in Ultralytics
    args.resume = args.model;
    args.given.erase(std::remove(args.given.begin(), args.given.end(), "model"), args.given.end());
    return "resume=true: continuing " + args.resume + " (model=)";
  }
  // The newest weights/last.safetensors under the project folder (Ultralytics: the newest last*.pt in runs/).
  std::string newest;
  fs::file_time_type newest_time{};
  fs::recursive_directory_iterator it(args.project, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const fs::path p = it->path();
    if (p.filename() != run_files::kLast || p.parent_path().filename() != run_files::kWeights) continue;
    const std::string run = p.parent_path().parent_path().string();
    if (!fs::equivalent(CheckpointFiles::lastPath(run), p, ec)) continue;
    const auto t = fs::last_write_time(p, ec);
    if (!ec && (newest.empty() || t > newest_time)) newest = run, newest_time = t;
    ec.clear();
  }
  if (newest.empty())
    fail("resume=true: no run with weights/last.safetensors under '", args.project,
         "' (project=); give the run instead: resume=", args.project, "/NAME");
  args.resume = newest;
  return "resume=true: continuing " + newest + ", the run under " + args.project + " saved last";
}

namespace {

// A tune folder (`ywb tune`) holds an args.yaml but is not a run: its runs are its iterN folders.
void refuseTuneFolder(const std::string& path) {
  if (isTuneFolder(path))
    fail("resume=", path, " is a tune folder, not a run: `ywb tune resume=", path,
         "` continues the tune (its runs are iter1, iter2, ... in it)");
}

}  // namespace

std::string resolveResumeCheckpoint(const std::string& path) {
  refuseTuneFolder(path);
  if (fs::is_directory(path)) {
    const std::string last = CheckpointFiles::lastPath(path);
    if (!fs::exists(last)) fail("resume=", path, ": no weights/last.safetensors in that run folder");
    return last;
  }
  if (!fs::exists(path)) fail("resume=", path, ": no such run folder or checkpoint");
  return path;
}

std::string startOverArgsYaml(const std::string& resume) {
  refuseTuneFolder(resume);
  const fs::path dir(resume), yaml = dir / run_files::kArgs;
  std::error_code ec;
  if (!fs::is_directory(dir, ec) || fs::exists(CheckpointFiles::lastPath(resume), ec) ||
      !fs::exists(yaml, ec))
    return "";
  return yaml.string();
}

TrainArgs resolveTrainArgs(const TrainArgs& args) {
  if (args.resume.empty()) return args;
  if (const std::string yaml = startOverArgsYaml(args.resume); !yaml.empty()) {
    TrainArgs from;  // the run died before its first checkpoint: its own arguments, started over
    loadTrainArgsYaml(yaml, from);
    from.resume = args.resume;
    return from;
  }
  const std::string ckpt = resolveResumeCheckpoint(args.resume);
  return resumeArgsFrom(verifiedState(args.resume, ckpt), args, ckpt).args;
}

ResumedArgs resumeArgsFrom(const CheckpointState& st, const TrainArgs& args, const std::string& ckpt) {
  const TrainArgs run = runArgs(st, ckpt);
  ResumedArgs out;
  out.args = run;
  std::vector<std::string> refused;
  const auto& allowed = resumeChangeableArgs();
  for (const std::string& key : args.given) {
    if (key == "resume") continue;
    const std::string want = args.get(key), have = run.get(key);
    if (want == have) continue;
    const std::string line =
        key + ": " + (have.empty() ? "\"\"" : have) + " -> " + (want.empty() ? "\"\"" : want);
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      refused.push_back(line);
      continue;
    }
    out.args.set(key, want);
    out.changes.push_back(line);
    if (key == "device") {
      out.warnings.push_back(
          "device changed from '" + have + "' to '" + want +
          "': the run goes on, but its numbers will not be bit-identical to an uninterrupted "
          "run on one device");
    }
  }
  if (!refused.empty()) {
    std::string list, keys;
    for (const auto& r : refused) list += "\n  " + r;
    for (const auto& k : allowed) keys += (keys.empty() ? "" : ", ") + k;
    fail("resume=", args.resume, ": ", refused.size(),
         " argument(s) differ from the run's own and cannot change on "
         "resume (run's value -> given value):",
         list, "\nOnly ", keys,
         " may change when resuming. Leave the "
         "others out to keep the run's own, or start a new run from its weights with pretrained=",
         ckpt);
  }
  out.args.resume = args.resume;
  out.args.given = args.given;
  resumeEpochCount(st, out.args);  // checks epochs= against the epochs completed
  return out;
}

int resumeEpochCount(const CheckpointState& st, const TrainArgs& resolved) {
  const TrainArgs run = runArgs(st, "checkpoint");
  if (resolved.epochs == run.epochs) return st.epochs;
  if (resolved.epochs < st.epoch) {
    fail("resume: epochs=", resolved.epochs, " is fewer than the ", st.epoch,
         " epochs this run has completed; give epochs=", st.epoch + 1, " or more to train longer");
  }
  return resolved.epochs;
}

SafetensorsFile readResumeCheckpoint(const std::string& resume) {
  const std::string ckpt = resolveResumeCheckpoint(resume);
  try {
    return readCheckpoint(ckpt);
  } catch (const NotACheckpointError&) {
    throw;
  } catch (const Error& e) {
    fail("resume=", resume, ": ", CheckpointFiles::damagedMessage(ckpt, e.what()));
  }
}

}  // namespace ywb
