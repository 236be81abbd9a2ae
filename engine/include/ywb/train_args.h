// Every training argument, with its Ultralytics name, default, valid range, group and help text, defined
// once (the X-macro below) and used by the trainer, the CLI, args.yaml and the GUI's hyperparameter editor.
// Thread rules: TrainArgs is a plain value type; the spec table is immutable.
#pragma once
#include <map>
#include <string>
#include <vector>

// X(type, name, default, group, min, max, help)   (min/max ignored for bool and string)
// The augmentation rows, also the fields of ywb::AugmentParams (ywb/augment.h): one table for both.
#define YWB_AUGMENT_ARGS(X)                                                                   \
  X(double, hsv_h, 0.015, "augmentation", 0.0, 1.0, "Hue jitter (fraction)")                  \
  X(double, hsv_s, 0.7, "augmentation", 0.0, 1.0, "Saturation jitter (fraction)")             \
  X(double, hsv_v, 0.4, "augmentation", 0.0, 1.0, "Value (brightness) jitter (fraction)")     \
  X(double, degrees, 0.0, "augmentation", 0.0, 180.0, "Rotation range (+/- degrees)")         \
  X(double, translate, 0.1, "augmentation", 0.0, 0.9, "Translation range (+/- fraction)")     \
  X(double, scale, 0.5, "augmentation", 0.0, 0.95, "Scale range (+/- gain)")                  \
  X(double, shear, 0.0, "augmentation", 0.0, 90.0, "Shear range (+/- degrees)")               \
  X(double, perspective, 0.0, "augmentation", 0.0, 0.001, "Perspective range (+/- fraction)") \
  X(double, flipud, 0.0, "augmentation", 0.0, 1.0, "Vertical flip probability")               \
  X(double, fliplr, 0.5, "augmentation", 0.0, 1.0, "Horizontal flip probability")             \
  X(double, bgr, 0.0, "augmentation", 0.0, 1.0,                                               \
    "Channel-swap probability: the sample reaches the model as B, G, R instead of R, G, B")   \
  X(double, mosaic, 1.0, "augmentation", 0.0, 1.0, "Mosaic-4 probability")                    \
  X(double, mixup, 0.0, "augmentation", 0.0, 1.0, "MixUp probability")                        \
  X(double, cutmix, 0.0, "augmentation", 0.0, 1.0,                                            \
    "CutMix probability: a box-free part of the image replaced by that part of another sample")

#define YWB_TRAIN_ARGS(X)                                                                                    \
  X(std::string, data, "", "data", 0, 0, "Path to the dataset's data.yaml")                                  \
  X(double, fraction, 1.0, "data", 0.01, 1.0, "Fraction of the training set to use")                         \
  X(bool, single_cls, false, "data", 0, 0, "Train as one class (all labels become class 0)")                 \
  X(bool, cache, false, "data", 0, 0,                                                                        \
    "Cache decoded, resized images in RAM (checked against free memory); Ultralytics' ram is true, its "     \
    "disk (.npy files) reads the images each epoch as false does")                                           \
  X(bool, rect, false, "data", 0, 0,                                                                         \
    "Rectangular training batches: images in aspect-ratio order, each batch at its own shape with the "      \
    "long side imgsz (fewer pixels on non-square images); no shuffle, Mosaic, MixUp or CutMix")              \
  X(std::string, model, "yolov8n.yaml", "model", 0, 0,                                                       \
    "Model YAML (yolov8n.yaml ... yolo26x.yaml or a path), or weights to fine-tune (.pt, .safetensors)")     \
  X(std::string, pretrained, "", "model", 0, 0,                                                              \
    "Weights to start from, transferred by name and shape (.pt, .safetensors)")                              \
  X(std::string, freeze, "", "model", 0, 0,                                                                  \
    "Layers to freeze: N freezes layers 0 to N-1 (the backbone: 10 for YOLOv8, 11 for YOLO11 and YOLO26), "  \
    "or "                                                                                                    \
    "a list of layer indices [0, 1, 2]; their weights and BatchNorm statistics stay as loaded (empty = "     \
    "none)")                                                                                                 \
  X(int, imgsz, 640, "model", 32, 8192, "Training and validation image size (multiple of 32)")               \
  X(double, multi_scale, 0.0, "model", 0.0, 1.0,                                                             \
    "Multi-scale training: each batch resized to a random size in imgsz x (1 +/- multi_scale), a multiple "  \
    "of 32 (0 = off; Ultralytics 8.3's true = 0.5)")                                                         \
  X(std::string, optimizer, "auto", "optimizer", 0, 0, "Optimizer")                                          \
  X(double, lr0, 0.01, "optimizer", 0.0, 1.0, "Initial learning rate")                                       \
  X(double, lrf, 0.01, "optimizer", 0.0, 1.0, "Final learning rate as a fraction of lr0")                    \
  X(double, momentum, 0.937, "optimizer", 0.0, 1.0, "SGD momentum / Adam beta1")                             \
  X(double, weight_decay, 0.0005, "optimizer", 0.0, 0.1,                                                     \
    "Weight decay (scaled by batch x accumulate / nbs)")                                                     \
  X(int, nbs, 64, "optimizer", 1, 1024, "Nominal batch size: gradients accumulate up to it")                 \
  X(int, epochs, 100, "schedule", 1, 100000, "Number of training epochs")                                    \
  X(double, time, 0.0, "schedule", 0.0, 10000.0,                                                             \
    "Training time budget in hours (overrides epochs; 0 = off)")                                             \
  X(int, patience, 100, "schedule", 0, 100000, "Stop after this many epochs without improvement (0 = off)")  \
  X(double, warmup_epochs, 3.0, "schedule", 0.0, 100.0, "Warmup length in epochs (at least 100 iterations)") \
  X(double, warmup_momentum, 0.8, "schedule", 0.0, 1.0, "Momentum at the start of warmup")                   \
  X(double, warmup_bias_lr, 0.1, "schedule", 0.0, 1.0, "Bias learning rate at the start of warmup")          \
  X(bool, cos_lr, false, "schedule", 0, 0, "Cosine instead of linear learning-rate decay")                   \
  X(int, close_mosaic, 10, "schedule", 0, 100000, "Turn Mosaic, MixUp and CutMix off for the last N epochs") \
  X(double, box, 7.5, "loss", 0.0, 100.0, "Box (CIoU) loss gain")                                            \
  X(double, cls, 0.5, "loss", 0.0, 100.0, "Classification (BCE) loss gain")                                  \
  X(double, cls_pw, 0.0, "loss", 0.0, 1.0,                                                                   \
    "Class weighting power: each class's BCE weighted by (1 / its training labels)^cls_pw, weights "         \
    "averaging 1 (0 = off)")                                                                                 \
  X(double, dfl, 1.5, "loss", 0.0, 100.0, "Distribution focal loss gain")                                    \
  YWB_AUGMENT_ARGS(X)                                                                                        \
  X(int, batch, 16, "hardware", -1, 4096, "Batch size, global across ranks")                                 \
  X(std::string, device, "", "hardware", 0, 0, "cpu, 0, or 0,1,2,3 (empty: first GPU if any, else cpu)")     \
  X(int, workers, 8, "hardware", 0, 256, "Data loader worker threads")                                       \
  X(bool, amp, true, "hardware", 0, 0, "Mixed precision (fp16 on CUDA, bf16 on CPU) after a sanity check")   \
  X(std::string, amp_dtype, "auto", "hardware", 0, 0, "auto, fp16 or bf16")                                  \
  X(bool, val_amp, true, "hardware", 0, 0,                                                                   \
    "Validate each epoch in the training's mixed precision (false: fp32)")                                   \
  X(bool, channels_last, true, "hardware", 0, 0, "NHWC memory format for weights and input")                 \
  X(bool, cuda_graphs, false, "hardware", 0, 0, "CUDA graphs of the model's forward+backward (CUDA only)")   \
  X(bool, cudnn_benchmark, false, "hardware", 0, 0,                                                          \
    "cuDNN autotuner: time each convolution's algorithms once per shape (false: cuDNN's heuristics, as "     \
    "fast after the first step on an H200 and 6 s sooner to it; CUDA only)")                                 \
  X(bool, graph_step, false, "hardware", 0, 0,                                                               \
    "Graph-ready step (experimental): fixed-shape loss on padded targets; optimizer, loss scale and EMA "    \
    "held on the device; with cuda_graphs and nbs <= batch on a GPU the whole step is one CUDA graph")       \
  X(int, world, 1, "hardware", 1, 1024, "CPU ranks for device=cpu distributed runs (Gloo)")                  \
  X(bool, sync_bn, false, "hardware", 0, 0, "SyncBatchNorm across ranks")                                    \
  X(double, dist_timeout, 600.0, "hardware", 1.0, 86400.0, "Collective timeout in seconds")                  \
  X(int, threads, 0, "hardware", 0, 1024, "LibTorch intra-op threads (0 = all available CPUs)")              \
  X(std::string, project, "runs/detect", "run", 0, 0, "Folder holding the runs")                             \
  X(std::string, name, "train", "run", 0, 0, "Run name (auto-incremented: train, train2, ...)")              \
  X(bool, exist_ok, false, "run", 0, 0, "Reuse the run folder if it exists")                                 \
  X(int, seed, 0, "run", 0, 2147483647, "Random seed (data order, augmentation, initialisation)")            \
  X(bool, deterministic, true, "run", 0, 0, "Deterministic algorithms where available")                      \
  X(int, ultralytics_stream, -1, "run", -1, 64,                                                              \
    "Replay Ultralytics' augmentation random numbers for N loader processes (0: none; -1: off); with "       \
    "amp=false channels_last=false on a CPU a run repeats Ultralytics' own run (docs/PARITY.md)")            \
  X(int, save_period, -1, "run", -1, 100000, "Save a checkpoint every N epochs (-1 = only last and best)")   \
  X(std::string, resume, "", "run", 0, 0,                                                                    \
    "Continue a run: its folder or a checkpoint of it, or true for the run saved last under project "        \
    "(epochs, patience, time, workers, device may change)")                                                  \
  X(std::string, on_save_error, "stop", "run", 0, 0,                                                         \
    "A checkpoint cannot be written (disk full, I/O error): stop, or continue training without saving")      \
  X(bool, plots, true, "run", 0, 0,                                                                          \
    "Save plots: the first training batches, results.png, and the best epoch's confusion matrix and curves") \
  X(bool, val, true, "validation", 0, 0, "Validate every epoch")                                             \
  X(double, conf, 0.001, "validation", 0.0, 1.0, "Validation confidence threshold")                          \
  X(double, iou, 0.7, "validation", 0.0, 1.0, "Validation NMS IoU threshold")                                \
  X(int, max_det, 300, "validation", 1, 10000, "Maximum detections per image")                               \
  X(bool, end2end, true, "validation", 0, 0,                                                                 \
    "End-to-end models (YOLO26): true validates NMS-free from the one-to-one head, false from the "          \
    "one-to-many head with NMS (the training loss trains both either way); no effect on other models")

namespace ywb {

/// All training arguments as typed fields, initialised to Ultralytics' defaults.
struct TrainArgs {
#define YWB_ARG_FIELD(T_, N_, D_, G_, LO_, HI_, H_) T_ N_ = D_;
  YWB_TRAIN_ARGS(YWB_ARG_FIELD)
#undef YWB_ARG_FIELD

  /// Sets one argument from text (as on the command line or in YAML). Throws ywb::Error with the key, the
  /// value, and the valid type/range. Returns false for an unknown key.
  bool set(const std::string& key, const std::string& value);
  /// The argument as text (YAML scalar form); throws for an unknown key.
  std::string get(const std::string& key) const;
  /// Checks cross-argument rules (choices, multiples) and throws ywb::Error describing the first violation.
  void validate() const;

  /// The keys given as text through set() (the command line, a cfg or YAML file), in order; fields assigned
  /// directly are not listed. With `resume`, these are the arguments the caller asks to change (see
  /// resolveTrainArgs). Not an argument itself: never written to args.yaml.
  std::vector<std::string> given;
  /// Ultralytics' third form of `batch`: a number between 0 and 1 (batch=0.70) is AutoBatch sized to that
  /// fraction of the GPU's memory. set("batch", "0.70") stores it here with batch = -1, and get("batch")
  /// gives it back, so args.yaml records it as written; 0 when batch is a size, or -1 (AutoBatch at its
  /// default fraction, kAutoBatchFraction).
  double batch_fraction = 0;
};

enum class ArgType { Int, Double, Bool, String };

/// Description of one argument for editors and help.
struct ArgSpec {
  std::string name, group, help, default_text;
  ArgType type = ArgType::String;
  double min = 0, max = 0;           ///< valid range for Int and Double
  std::vector<std::string> choices;  ///< allowed values for some String arguments (empty = free text)
};

/// Every argument, in declaration (group) order.
const std::vector<ArgSpec>& trainArgSpecs();
/// One argument's description (its range is the one rule every reader of the value checks against).
/// Throws ywb::Error for an unknown name.
const ArgSpec& trainArgSpec(const std::string& name);

/// Loads an Ultralytics-style YAML of arguments over `args`. Unknown keys (e.g. `task`, `mode`, `copy_paste`)
/// are not errors: they are returned so callers can warn. `pretrained: false` / `resume: false` (Ultralytics'
/// boolean form of these path arguments) leave them off. Throws ywb::Error for unreadable/broken YAML or
/// invalid values (naming the file, key and line).
std::vector<std::string> loadTrainArgsYaml(const std::string& path, TrainArgs& args);
/// The same for YAML text; `source` names it in messages.
std::vector<std::string> loadTrainArgsYamlText(const std::string& yaml, const std::string& source,
                                               TrainArgs& args);
/// Why an Ultralytics argument is not one here (another task's setting, Copy-Paste, torch.compile, ...), or
/// "" for a name with no such note.
std::string ultralyticsArgumentNote(const std::string& key);
/// The dataset split a run folder's args.yaml names for validation: Ultralytics writes `split` (val, test or
/// train); our trainer validates on the val split and writes none, so "val" then. Throws ywb::Error for an
/// unreadable file or another value (naming the file and line).
std::string runValidationSplit(const std::string& path);
/// The full resolved configuration as YAML (what args.yaml holds), in spec order.
std::string trainArgsToYaml(const TrainArgs& args);

/// True for a boolean as YAML and Python write it (true, True, TRUE, false, ...): the form in which
/// Ultralytics gives its path-or-boolean arguments `pretrained` and `resume`.
bool isBooleanWord(const std::string& text);
/// Arguments that differ from the defaults, name -> value text.
std::map<std::string, std::string> changedTrainArgs(const TrainArgs& args);

}  // namespace ywb
