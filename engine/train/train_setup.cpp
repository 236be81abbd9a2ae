// Setting up a training session: data, model, EMA, loss, loaders, optimizer, AMP check, resume.
#include <torch/cuda.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <future>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "core/error.h"
#include "core/threads.h"
#include "core/torch_compat.h"
#include "data/dataset_scanner.h"
#include "data/sampler.h"
#include "data/target_capacity.h"
#include "dist/dist_context.h"
#include "dist/dist_training.h"
#include "loss/class_weights.h"
#include "train/auto_batch.h"
#include "train/auto_batch_gpu.h"
#include "train/checkpoint.h"
#include "train/checkpoint_files.h"
#include "train/checkpoint_state.h"
#include "train/device.h"
#include "train/graph_ready_step.h"
#include "train/lr_schedule.h"
#include "train/resume_args.h"
#include "train/run_models.h"
#include "train/train_session.h"
#include "train/validator.h"
#include "ywb/trainer.h"

namespace ywb {
namespace {

std::shared_ptr<const ScannedSplit> scan(TrainSession& s, const DataConfig& cfg, const std::string& split) {
  ScanOptions so;
  so.workers = s.args.workers;
  auto result = std::make_shared<ScannedSplit>(scanSplit(cfg, split, so));
  const SplitReport& r = result->report;
  std::ostringstream os;
  os << split << ": " << r.images << " images, " << r.with_labels << " with labels, " << r.boxes << " boxes, "
     << r.backgrounds << " backgrounds, " << r.corrupt << " corrupt" << (r.from_cache ? " (from cache)" : "");
  s.log(os.str());
  for (size_t i = 0; i < r.problems.size() && i < 10; ++i) {
    s.log("  " + r.problems[i].file + (r.problems[i].line ? ":" + std::to_string(r.problems[i].line) : "") +
          ": " + r.problems[i].reason);
  }
  if (!r.cache_note.empty()) s.log("  " + r.cache_note);
  if (result->images.empty()) fail(split, " split of '", cfg.yaml, "' has no usable images");
  if (s.args.single_cls) {
    for (auto& img : result->images) {
      for (auto& b : img.boxes) b.cls = 0;
    }
  }
  if (split == "train" && s.args.fraction < 1.0) {
    const size_t keep =
        std::max<size_t>(1, size_t(std::llround(s.args.fraction * double(result->images.size()))));
    result->images.resize(keep);
  }
  return result;
}

}  // namespace

void buildValLoader(TrainSession& s, int batch) {
  LoaderOptions vo = validationLoaderOptions(s.args.imgsz, batch, s.args.workers);
  vo.seed = uint64_t(s.args.seed);
  vo.pin_memory = s.device.is_cuda();
  vo.cache_ram = s.args.cache;
  s.val_loader.reset();  // its worker threads and buffers go before the new ones come
  s.val_loader = std::make_unique<DataLoader>(s.val_split, vo);
  s.val_batch = batch;
}

int TrainSession::distRank() const {
  return dist ? dist->rank() : 0;
}
int TrainSession::distWorld() const {
  return dist ? dist->world() : 1;
}
int TrainSession::closeMosaicEpoch() const {
  return args.close_mosaic > 0 ? std::max(0, epochs - args.close_mosaic) : -1;
}
bool TrainSession::mosaicClosedIn(int epoch) const {
  const int close_at = closeMosaicEpoch();
  return mosaic_closed || (close_at >= 0 && epoch >= close_at);
}
bool TrainSession::validatesAfter(int epoch) const {
  return (args.val || epoch + 1 == epochs) && isMain();
}

void setupSession(TrainSession& s, const SafetensorsFile* resume) {
  TrainArgs& a = s.args;
  s.phase(TrainPhase::Scanning, "scanning " + a.data);
  if (a.data.empty()) fail("data= is required (a data.yaml; `ywb dataset synth out=DIR` makes one)");
  const DataConfig cfg = loadDataConfig(a.data);
  s.names = cfg.names;
  s.nc = a.single_cls ? 1 : int(s.names.size());
  s.device = s.dist ? s.dist->device() : pickDevice(a.device);
  const int threads = configureTorchThreads(s.dist ? distThreads(s) : a.threads);
  s.log("device " + s.device.str() + ", " + std::to_string(threads) + " LibTorch threads");
  // Ultralytics' trainer calls init_seeds(seed + 1 + RANK) just before it builds the model. RANK is -1 in a
  // single process (its default when no DDP launcher set it) and the rank under DDP, whose rank-0 weights are
  // then broadcast (as ours: dist_training). With its module order (test_parity_loss), a one-process run with
  // seed S starts from the weights a build after manual_seed(S) gives (the loss-*-seedS fixtures), a DDP run
  // from manual_seed(S + 1): Ultralytics' initial weights for seed S either way.
  const int64_t rank = s.dist ? int64_t(s.dist->rank()) : kUltralyticsOneProcessRank;
  at::manual_seed(uint64_t(int64_t(a.seed) + 1 + rank));
  const RunModelSource src = runModelSource(s, resume);
  // The model is built (and moved to the device: on a GPU that is where CUDA initialises) while the splits
  // are scanned; neither needs the other, and the scan draws no random numbers (issue 33: start-up).
  std::future<RunModels> built =
      std::async(std::launch::async, [&s, &src, resume] { return buildRunModels(s, src, resume); });
  {
    const RunTiming::Scope timed(&s.timing, RunSegment::Scan);
    s.train_split = scan(s, cfg, "train");
    s.val_split = scan(s, cfg, "val");
  }
  const auto build_t0 = RunTiming::Clock::now();
  if (a.single_cls) s.names = {"object"};
  s.phase(TrainPhase::Building, "building " + a.model);
  RunModels models = built.get();
  s.model = models.model;
  s.ema_model = models.ema;
  if (!models.weights_line.empty()) s.log(models.weights_line);
  if (!models.freeze_line.empty()) s.log(models.freeze_line);
  s.ema = std::make_unique<ModelEma>(s.ema_model.ptr(), *s.model);
  // cls_pw: class weights from the training labels (the split as trained: fraction and single_cls applied).
  at::Tensor class_weights;
  if (a.cls_pw > 0) {
    class_weights = loss::classWeights(loss::classCounts(*s.train_split, s.nc), a.cls_pw);
    s.log(loss::classWeightsLine(class_weights));
    class_weights = class_weights.to(s.device);
  }
  // The model's loss (an end-to-end head's: both branches, weighted by the o2m schedule) with the run's
  // gains and class weights, and Ultralytics 8.4's small-box candidate rule (every family since 8.4.0) unless
  // the run replays Ultralytics 8.3.253's reference run draw for draw (ultralytics_stream), whose losses it
  // must repeat (smallBoxRuleForTraining: a YOLO26 replay keeps the rule, as 8.4 trained it).
  auto modelLoss = [&](bool fixed_shapes) {
    return std::make_unique<loss::ModelLoss>(
        *s.model, loss::LossGains{a.box, a.cls, a.dfl},
        loss::smallBoxRuleForTraining(*s.model, /*replays_83=*/a.ultralytics_stream >= 0), class_weights,
        fixed_shapes);
  };
  s.loss = modelLoss(false);
  const std::vector<int64_t> strides = s.model->strides();
  const int max_stride = int(strides.empty() ? 32 : *std::max_element(strides.begin(), strides.end()));
  s.multi_scale.emplace(a.imgsz, a.multi_scale, max_stride, uint64_t(a.seed));
  // A CUDA graph holds one input shape; multi-scale gives each batch its own, so such a run trains eagerly.
  bool graphs = a.cuda_graphs && !s.dist;
  if (graphs && s.multi_scale->on()) {
    graphs = false;
    s.log("cuda_graphs=true is off for this run: multi_scale=" + a.get("multi_scale") +
          " resizes every batch, and a CUDA graph holds one input shape; training runs eagerly");
  }
  if (graphs && a.rect) {
    graphs = false;
    s.log(
        "cuda_graphs=true is off for this run: rect=true gives each batch its own shape, and a CUDA graph "
        "holds one input shape; training runs eagerly");
  }
  if (a.rect) {
    s.log("rect=true: training batches in aspect-ratio order, each at its own shape (long side " +
          std::to_string(a.imgsz) + "); no shuffle, Mosaic, MixUp or CutMix, as Ultralytics");
  }
  if (a.batch < 0) {
    // AutoBatch (distributed runs refused it in joinDistributedRun), sized for the largest batch multi-scale
    // can draw (imgsz when it is off).
    const AutoBatchResult ab =
        autoBatchFor(src.yaml, s.nc, s.multi_scale->maxSize(), s.device, a.amp && s.device.is_cuda(), graphs,
                     a.batch_fraction > 0 ? a.batch_fraction : kAutoBatchFraction);
    a.batch = ab.batch;
    a.batch_fraction = 0;  // the checkpoints record the size chosen (args.yaml keeps what was asked)
    s.log(ab.note);
  }

  LoaderOptions lo;
  lo.imgsz = a.imgsz;
  lo.batch = s.dist ? a.batch / s.distWorld() : a.batch;  // Ultralytics: batch is global under DDP
  lo.rank = s.distRank();
  lo.world = s.distWorld();
  lo.workers = a.workers;
  lo.augment = true;
  lo.rect = a.rect;
  lo.stride = max_stride;  // rect batch shapes
  lo.shuffle = true;
  lo.seed = uint64_t(a.seed);
  lo.pin_memory = s.device.is_cuda();
  lo.cache_ram = a.cache;
  lo.hyp = augmentParamsOf(a);
  lo.hyp.validate();  // fields set directly (not through TrainArgs::set) are checked here
  lo.ultralytics_workers = a.ultralytics_stream;
  lo.val_images = s.val_split ? s.val_split->images.size() : 0;
  s.train_loader = std::make_unique<DataLoader>(s.train_split, lo);
  if (!s.train_loader->cacheNote().empty()) s.log(s.train_loader->cacheNote());
  // Validation runs on rank 0 alone, over the whole split; no gradients, so twice the batch fits
  // (Ultralytics does the same; the trainer halves it should validation still run out of memory).
  buildValLoader(s, a.batch * 2);
  s.accel = std::make_unique<cuda::TrainAccel>(*s.train_loader, s.model, s.device, graphs, a.cudnn_benchmark);
  if (!s.accel->note().empty()) s.log(s.accel->note());

  const int64_t nb = int64_t(s.train_loader->batchesPerEpoch());
  std::optional<CheckpointState> st;
  if (resume) st = CheckpointState::fromMetadata(resume->metadata, a.resume);
  s.epochs = a.epochs;
  s.accumulate = std::max(int(roundHalfEven(double(a.nbs) / a.batch)), 1);
  const double decay = a.weight_decay * a.batch * s.accumulate / a.nbs;
  // `auto` depends on the number of iterations: a resumed run keeps the optimizer its first session chose
  // (stored in the checkpoint; older checkpoints: chosen again from their own epoch count).
  const int64_t iterations = int64_t(std::ceil(double(s.train_loader->size()) / std::max(a.batch, a.nbs))) *
                             int64_t(st ? st->epochs : s.epochs);
  s.optim_choice = chooseOptimizer(a.optimizer, a.lr0, a.momentum, s.nc, iterations);
  if (st && !st->optimizer.empty()) {
    s.optim_choice.name = st->optimizer;
    s.optim_choice.lr = st->optimizer_lr;
    s.optim_choice.momentum = st->optimizer_momentum;
    s.optim_choice.auto_chosen = st->optimizer_auto != 0;
  }
  s.warmup_bias_lr = s.optim_choice.auto_chosen ? 0.0 : a.warmup_bias_lr;
  s.initial_lr = s.optim_choice.lr;
  const ParamGroups groups = splitParamGroups(*s.model);
  s.optimizer = makeOptimizer(groups, s.optim_choice, decay);
  std::ostringstream os;
  os << "optimizer: " << s.optim_choice.name << "(lr=" << s.initial_lr
     << ", momentum=" << s.optim_choice.momentum << ")"
     << (s.optim_choice.auto_chosen ? " chosen by optimizer=auto," : "") << " with "
     << describeGroups(*s.optimizer) << "; accumulate " << s.accumulate << " batches (nbs " << a.nbs << ")";
  s.log(os.str());
  s.warmup_iters = warmupIterations(a.warmup_epochs, nb);
  s.scaler = std::make_unique<GradScaler>(false);

  if (st) {
    // Also restores gradients still being accumulated at the epoch boundary (bit-exact continuation).
    restoreCheckpoint(*resume, {s.model.ptr().get(), s.ema_model.ptr().get(), s.optimizer.get(), true, {}});
    s.ema->setUpdates(st->ema_updates);
    s.resumed_amp = st->amp;  // the precision the run trained in (ampCheck keeps a measured choice)
    s.start_epoch = st->epoch;
    s.epochs = resumeEpochCount(*st, a);  // a changed epochs= reshapes the schedule from here on
    s.best_fitness = st->best_fitness;
    s.best_epoch = st->best_epoch;
    s.last_opt_step = st->last_opt_step;
    s.elapsed_before = st->elapsed;
    s.images_trained = st->images_trained;
    s.train_seconds = st->train_seconds;
    s.scaler_restore_scale = st->scaler_scale;
    s.scaler_restore_growth = st->scaler_growth;
    s.lr_scale = st->lr_scale;  // a NaN rollback's lower learning rate stays
    s.initial_lr *= st->lr_scale;
    s.nonfinite.setRollbacks(st->nonfinite_rollbacks);
    // Learning rate and momentum as the uninterrupted run has them when this epoch starts (set at the end of
    // the previous epoch and by the last warmup step); within warmup the first step sets both anyway.
    if (s.warmup_iters <= 0 || nb * int64_t(s.start_epoch) > s.warmup_iters) {
      for (size_t j = 0; j < s.optimizer->param_groups().size(); ++j) {
        setScheduledLr(*s.optimizer, j, s.initial_lr * lrFactor(s.start_epoch, s.epochs, a.lrf, a.cos_lr));
        if (s.warmup_iters > 0) setGroupMomentum(*s.optimizer, j, a.momentum);
      }
    }
    // A run resumed from another file than its last (e.g. previous, last being damaged) does not keep that
    // last as its previous checkpoint.
    std::error_code ec;
    s.last_is_good = std::filesystem::equivalent(resolveResumeCheckpoint(a.resume),
                                                 CheckpointFiles::lastPath(s.run_dir), ec);
    if (s.start_epoch < s.epochs) {
      s.log("resuming " + s.run_dir + " from epoch " + std::to_string(s.start_epoch + 1) + " of " +
            std::to_string(s.epochs));
    } else {  // trainer.cpp: a run stopped while its end-of-run plots were written
      s.log("resuming " + s.run_dir + " after its last epoch (" + std::to_string(s.epochs) +
            "): it stopped before its end-of-run plots were complete; writing them, nothing to train");
    }
  }
  s.timing.add(RunSegment::ModelBuild,
               std::chrono::duration<double>(RunTiming::Clock::now() - build_t0).count());
  ampCheck(s);  // train/amp_check.cpp
  if (s.dist) distAfterSetup(s);
  if (a.sync_bn && !s.dist)
    s.log("sync_bn=true applies to distributed runs only; one process uses plain BatchNorm");
  s.scaler = std::make_unique<GradScaler>(s.autocast && s.amp_dtype == at::kHalf);
  if (resume) s.scaler->restore(s.scaler_restore_scale, s.scaler_restore_growth);
  if (a.graph_step) {  // the graph-ready step's loss and target capacity, or why the run is eager
    std::string why;
    if (s.dist) why = "a distributed run's ranks agree on a skipped step on the host";
    if (!graphReadyStepSupports(*s.optimizer))
      why = "optimizer=" + s.optim_choice.name +
            " steps eagerly (the graph-ready step holds SGD, AdamW and MuSGD)";
    if (why.empty()) {
      s.target_capacity = targetCapacity(*s.train_split, lo.hyp);
      s.graph_loss = modelLoss(true);
      s.whole_step = s.accumulate == 1;
      const bool capture = s.whole_step && a.cuda_graphs && s.device.is_cuda();
      s.log("graph-ready step: fixed-shape loss with targets padded to " + std::to_string(s.target_capacity) +
            " boxes per image; optimizer, loss scale and EMA held on the device; " +
            (capture        ? "the whole step captured as one CUDA graph"
             : s.whole_step ? "the whole step as one body, run eagerly"
                            : "accumulate " + std::to_string(s.accumulate) +
                                  " batches: forward, loss and update apart, run eagerly"));
    } else {
      s.log("graph_step=true is off for this run: " + why);
    }
  }
}

}  // namespace ywb
