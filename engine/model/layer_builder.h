// How one YAML row ([from, repeats, module, args]) becomes a layer of DetectionModel. Each module file
// defines the builder of the YAML names it implements (e.g. conv.cpp builds "Conv"); layer_registry.cpp
// lists them, so adding a module family means adding its files and one table line, not editing the model.
// Thread rules: builders are called while a model is constructed, by that thread only.
#pragma once
#include <torch/nn/module.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "model/conv.h"
#include "model/model_spec.h"

namespace ywb::model {

/// State shared by the rows of one model while it is built (Ultralytics' parse_model locals).
struct ModelBuildState {
  /// The YOLOv8-style Detect class branch (two 3x3 Convs). Ultralytics switches to the depth-wise branch
  /// (legacy=False) as soon as a row of a newer family (C3k2, YOLO11) appears before the head.
  bool legacy_head = true;
};

/// What a builder sees: the row, the model-wide settings and the resolved inputs.
class LayerContext {
 public:
  LayerContext(const LayerSpec& row_, const ModelSpec& spec_, int64_t repeats, std::vector<int64_t> ch_,
               std::vector<int64_t> stride_, ModelBuildState& state_)
      : row(row_), spec(spec_), n(repeats), ch(std::move(ch_)), stride(std::move(stride_)), state(state_) {}

  const LayerSpec& row;
  const ModelSpec& spec;
  int64_t n;                    ///< repeats after the depth multiple
  std::vector<int64_t> ch;      ///< input channels, one per `from` entry
  std::vector<int64_t> stride;  ///< input strides, one per `from` entry
  ModelBuildState& state;

  int64_t nc() const { return spec.nc; }
  /// "layer 3 (C3k2)", for messages.
  std::string where() const;
  /// Whether argument i is given (not None/null).
  bool has(size_t i) const;
  /// Argument i as an integer ("nc" = the class count), `fallback` when absent.
  int64_t integer(size_t i, int64_t fallback) const;
  /// Argument i as a number, `fallback` when absent.
  double real(size_t i, double fallback) const;
  /// Argument i as True/False, `fallback` when absent.
  bool boolean(size_t i, bool fallback) const;
  /// Ultralytics' output width: min(c2, max_channels) * width rounded up to a multiple of 8, except c2 == nc.
  int64_t width(int64_t c2) const;
  /// Throws unless the row has exactly one input.
  void requireOneInput() const;
  /// Throws unless repeats == 1 (modules that have no repeat argument).
  void requireNoRepeats() const;
  /// Throws, naming the layer and the first extra argument, when the row has more than `count` arguments;
  /// `names` lists the accepted ones for the message ("c2, k, n, shortcut").
  void requireArgsAtMost(size_t count, const char* names) const;
};

/// A built layer: the module registered as "model.<i>", how to run, count and fuse it, and its summary row.
struct BuiltLayer {
  std::shared_ptr<torch::nn::Module> module;
  std::function<at::Tensor(const std::vector<at::Tensor>&)> run;  ///< null for the head
  std::function<LayerFlops(int64_t, int64_t, bool)> flops;        ///< null for the head
  std::function<void()> fuse;
  int64_t channels = 0;           ///< output channels
  int64_t stride = 1;             ///< output stride relative to the input
  std::vector<std::string> args;  ///< resolved arguments as Ultralytics prints them
};

using LayerBuilder = BuiltLayer (*)(LayerContext&);

/// The builder for a YAML module name, or nullptr.
LayerBuilder findLayerBuilder(const std::string& module);
/// Every module name a YAML may use, for messages.
std::string layerModuleNames();

/// A single-input layer around a module M with forward(x), flops(h, w, bn) and fuse(); stride unchanged.
template <typename M>
BuiltLayer singleInputLayer(M m, const LayerContext& ctx, int64_t channels, std::vector<std::string> args) {
  BuiltLayer b;
  b.module = m.ptr();
  b.run = [m](const std::vector<at::Tensor>& x) mutable { return m->forward(x[0]); };
  b.flops = [m](int64_t h, int64_t w, bool bn) { return m->flops(h, w, bn); };
  b.fuse = [m]() mutable { m->fuse(); };
  b.channels = channels;
  b.stride = ctx.stride[0];
  b.args = std::move(args);
  return b;
}

inline std::string argText(int64_t v) {
  return std::to_string(v);
}
inline std::string argText(bool v) {
  return v ? "True" : "False";
}
/// Python's str() of a float argument (0.25 -> "0.25", 1.0 -> "1.0").
std::string argText(double v);

}  // namespace ywb::model
