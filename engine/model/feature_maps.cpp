#include "ywb/feature_maps.h"

#include "core/error.h"
#include "model/model_handle_impl.h"

namespace ywb {

ModelHandle ModelHandle::create(const std::string& yaml_or_name, int nc) {
  return guarded("model",
                 [&] { return ModelHandle(std::make_unique<Impl>(model::buildModel(yaml_or_name, nc))); });
}

ModelHandle::ModelHandle(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {
  if (!impl_) fail("ModelHandle: no model");
}
ModelHandle::ModelHandle(ModelHandle&&) noexcept = default;
ModelHandle& ModelHandle::operator=(ModelHandle&&) noexcept = default;
ModelHandle::~ModelHandle() = default;

int ModelHandle::tappableLayers() const {
  return int(impl_->model->layerInfo().size()) - 1;
}

bool ModelHandle::endToEnd() const {
  return impl_->model->end2end();
}

std::string ModelHandle::layerModule(int layer) const {
  const auto& info = impl_->model->layerInfo();
  if (layer < 0 || layer >= int(info.size())) fail("layer ", layer, " is out of range 0..", info.size() - 1);
  return info[size_t(layer)].module;
}

namespace {

// Letterbox to a float [1,3,H,W] tensor in [0,1]: resize the longest side to imgsz, pad to a stride multiple.
at::Tensor letterbox(const RgbView& image, int imgsz, int64_t stride) {
  if (!image.pixels || image.width <= 0 || image.height <= 0) fail("feature maps: empty image");
  if (imgsz < stride) fail("feature maps: imgsz=", imgsz, " is smaller than the model stride ", stride);
  const size_t row = size_t(image.row_bytes ? image.row_bytes : 3 * int64_t(image.width));
  const cv::Mat src(image.height, image.width, CV_8UC3, const_cast<uint8_t*>(image.pixels), row);
  const double r = double(imgsz) / std::max(image.width, image.height);
  const int w = std::max(1, int(std::lround(image.width * r))),
            h = std::max(1, int(std::lround(image.height * r)));
  cv::Mat resized;
  cv::resize(src, resized, cv::Size(w, h), 0, 0, r > 1 ? cv::INTER_LINEAR : cv::INTER_AREA);
  const int pw = int((w + stride - 1) / stride * stride), ph = int((h + stride - 1) / stride * stride);
  cv::Mat padded;
  cv::copyMakeBorder(resized, padded, (ph - h) / 2, ph - h - (ph - h) / 2, (pw - w) / 2,
                     pw - w - (pw - w) / 2, cv::BORDER_CONSTANT, cv::Scalar(114, 114, 114));
  const at::Tensor hwc = at::from_blob(padded.data, {ph, pw, 3}, at::kByte);
  return hwc.permute({2, 0, 1}).unsqueeze(0).to(at::kFloat).div(255.0).contiguous();
}

// Runs `fn` on the model in eval mode (BatchNorm uses its running statistics and does not update them),
// without autograd state; restores the mode after.
template <class Fn>
auto inEvalMode(model::DetectionModel& m, Fn fn) {
  torch::NoGradGuard no_grad;
  const bool was_training = m->is_training();
  m->eval();
  try {
    auto out = fn();
    m->train(was_training);
    return out;
  } catch (...) {
    m->train(was_training);
    throw;
  }
}

FeatureMap toFeatureMap(const at::Tensor& chw, int layer, const std::string& module) {
  const at::Tensor t = chw.to(at::kCPU, at::kFloat).contiguous();
  FeatureMap fm;
  fm.layer = layer;
  fm.module = module;
  fm.channels = int(t.size(0));
  fm.height = int(t.size(1));
  fm.width = int(t.size(2));
  fm.data.assign(t.data_ptr<float>(), t.data_ptr<float>() + t.numel());
  return fm;
}

at::Tensor modelInput(model::DetectionModel& m, const RgbView& image, int imgsz) {
  const at::Tensor p = m->parameters().front();
  return letterbox(image, imgsz, m->strides().back()).to(p.device(), p.scalar_type());
}

}  // namespace

std::vector<FeatureMap> extractFeatureMaps(ModelHandle& handle, const RgbView& image,
                                           const std::vector<int>& layers, int imgsz) {
  return guarded("feature maps", [&] {
    model::DetectionModel& m = handle.impl().model;
    const at::Tensor x = modelInput(m, image, imgsz);
    const std::vector<at::Tensor> outs = inEvalMode(m, [&] { return m->taps(x, layers); });
    std::vector<FeatureMap> maps;
    for (size_t i = 0; i < outs.size(); ++i)
      maps.push_back(toFeatureMap(outs[i][0], layers[i], m->layerInfo()[size_t(layers[i])].module));
    return maps;
  });
}

std::vector<FeatureMap> extractHeadScoreMaps(ModelHandle& handle, const RgbView& image, HeadBranch branch,
                                             int imgsz) {
  return guarded("head maps", [&] {
    model::DetectionModel& m = handle.impl().model;
    const bool one2one = branch == HeadBranch::OneToOne;
    if (one2one && !m->end2end())
      fail("this model's head has no one-to-one branch (only end-to-end models such as YOLO26 have one)");
    const at::Tensor x = modelInput(m, image, imgsz);
    // forwardInference runs only the chosen branch (the one-to-many one when one2one is false).
    const std::vector<at::Tensor> raw = inEvalMode(m, [&] { return m->forwardInference(x, one2one); });
    const int64_t nc = m->nc();
    const int head = int(m->layerInfo().size()) - 1;
    const std::vector<int64_t> strides = m->strides();
    std::vector<FeatureMap> maps;
    for (size_t i = 0; i < raw.size(); ++i) {
      // Each level is [1, 4*reg_max + nc, H, W]: box channels first, then the class logits.
      const at::Tensor logits = raw[i][0].narrow(0, raw[i].size(1) - nc, nc);
      FeatureMap fm = toFeatureMap(std::get<0>(logits.to(at::kFloat).sigmoid().max(0, true)), head, "Detect");
      fm.stride = int(strides[i]);
      maps.push_back(std::move(fm));
    }
    return maps;
  });
}

}  // namespace ywb
