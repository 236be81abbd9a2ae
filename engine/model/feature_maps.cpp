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

}  // namespace

std::vector<FeatureMap> extractFeatureMaps(ModelHandle& handle, const RgbView& image,
                                           const std::vector<int>& layers, int imgsz) {
  return guarded("feature maps", [&] {
    model::DetectionModel& m = handle.impl().model;
    const at::Tensor p = m->parameters().front();
    at::Tensor x = letterbox(image, imgsz, m->strides().back()).to(p.device(), p.scalar_type());
    const bool was_training = m->is_training();
    m->eval();  // BatchNorm must use its running statistics and not update them
    std::vector<at::Tensor> outs;
    try {
      outs = m->taps(x, layers);
    } catch (...) {
      m->train(was_training);
      throw;
    }
    m->train(was_training);
    std::vector<FeatureMap> maps;
    for (size_t i = 0; i < outs.size(); ++i) {
      const at::Tensor t = outs[i][0].to(at::kCPU, at::kFloat).contiguous();
      FeatureMap fm;
      fm.layer = layers[i];
      fm.module = m->layerInfo()[size_t(layers[i])].module;
      fm.channels = int(t.size(0));
      fm.height = int(t.size(1));
      fm.width = int(t.size(2));
      fm.data.assign(t.data_ptr<float>(), t.data_ptr<float>() + t.numel());
      maps.push_back(std::move(fm));
    }
    return maps;
  });
}

}  // namespace ywb
