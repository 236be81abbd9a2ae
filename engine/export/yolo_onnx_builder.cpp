#include "export/yolo_onnx_builder.h"

#include <torch/nn/modules/upsampling.h>

#include <utility>

#include "core/error.h"
#include "export/onnx_attention.h"
#include "export/onnx_end2end.h"
#include "model/box_decode.h"
#include "model/c2f.h"
#include "model/c2psa.h"
#include "model/c3k2.h"
#include "model/concat.h"
#include "model/sppf.h"

namespace ywb::onnx_export {
namespace {

using G = OnnxGraph;

std::vector<int64_t> dimsOf(const at::Tensor& t) {
  return std::vector<int64_t>(t.sizes().begin(), t.sizes().end());
}

std::vector<float> floatsOf(const at::Tensor& t) {
  const at::Tensor c = t.detach().to(at::kCPU, at::kFloat).contiguous();
  const float* p = c.data_ptr<float>();
  return std::vector<float>(p, p + c.numel());
}

std::vector<uint16_t> halfBitsOf(const at::Tensor& t) {
  const at::Tensor c = t.detach().to(at::kCPU, at::kFloat).to(at::kHalf).contiguous();
  const auto* p = reinterpret_cast<const uint16_t*>(c.data_ptr<at::Half>());
  return std::vector<uint16_t>(p, p + c.numel());
}

class Walker {
 public:
  Walker(OnnxGraph& g, const YoloOnnxOptions& o) : g_(g), o_(o) {}

  std::string conv2d(const std::string& name, torch::nn::Conv2dImpl& c, const std::string& x) {
    const auto& opt = c.options;
    auto vec = [](const auto& ea) { return std::vector<int64_t>((*ea).begin(), (*ea).end()); };
    const std::vector<int64_t> k = vec(opt.kernel_size()), s = vec(opt.stride());
    // Every convolution the model builds pads k/2 ("same" for odd k; 0 for the 1x1 head and DFL convs).
    // Reading opt.padding() would need c10::variant (LibTorch 1.13) vs std::variant (2.x) handling.
    const std::vector<int64_t> p{k[0] / 2, k[1] / 2};
    std::vector<std::string> in{x, parameter(name + ".weight", c.weight)};
    if (c.bias.defined()) in.push_back(parameter(name + ".bias", c.bias));
    return g_.op("Conv", name, in,
                 {G::attrInts("kernel_shape", k), G::attrInts("strides", s),
                  G::attrInts("pads", {p[0], p[1], p[0], p[1]}),
                  G::attrInts("dilations", vec(opt.dilation())), G::attrInt("group", opt.groups())});
  }

  // A learned tensor: float32, or float16 widened by a Cast node (ONNX's TensorProto FLOAT = 1).
  std::string parameter(const std::string& name, const at::Tensor& t) {
    if (!o_.half) return g_.constant(name, dimsOf(t), floatsOf(t));
    const std::string h = g_.constantHalf(name + ".fp16", dimsOf(t), halfBitsOf(t));
    return g_.op("Cast", name + ".cast", {h}, {G::attrInt("to", 1)});
  }

  // Split along `axis`: the sizes are an attribute up to opset 12 and an int64 input from opset 13 on.
  std::vector<std::string> split(const std::string& name, const std::string& x, std::vector<int64_t> sizes,
                                 int64_t axis = 1) {
    const int n = int(sizes.size());
    if (o_.opset >= 13) {
      const std::string s = g_.constantInt64(name + ".sizes", {int64_t(n)}, std::move(sizes));
      return g_.add("Split", name, {x, s}, {G::attrInt("axis", axis)}, n);
    }
    return g_.add("Split", name, {x}, {G::attrInt("axis", axis), G::attrInts("split", std::move(sizes))}, n);
  }

  // SiLU as Sigmoid + Mul: both are in every opset and runtime (OpenCV 4.6 has no SiLU op).
  std::string silu(const std::string& name, const std::string& x) {
    return g_.op("Mul", name + ".act", {x, g_.op("Sigmoid", name + ".sigmoid", {x})});
  }

  std::string conv(const std::string& name, model::ConvImpl& c, const std::string& x) {
    if (!c.fused()) fail("ONNX export: ", name, " is not fused (call DetectionModel::fuse() first)");
    const std::string y = conv2d(name + ".conv", *c.conv, x);
    return c.options.act() ? silu(name, y) : y;
  }

  std::string bottleneck(const std::string& name, model::BottleneckImpl& b, const std::string& x) {
    const std::string out = conv(name + ".cv2", *b.cv2, conv(name + ".cv1", *b.cv1, x));
    return b.residual() ? g_.op("Add", name + ".add", {x, out}) : out;
  }

  std::string c2f(const std::string& name, model::C2fImpl& m, const std::string& x) {
    const std::string a = conv(name + ".cv1", *m.cv1, x);
    const int64_t half = m.cv1->options.c2() / 2;
    std::vector<std::string> y = split(name + ".split", a, {half, half});
    for (size_t i = 0; i < m.blocks.size(); ++i)
      y.push_back(bottleneck(name + ".m." + std::to_string(i), *m.blocks[i], y.back()));
    return conv(name + ".cv2", *m.cv2, g_.op("Concat", name + ".cat", y, {G::attrInt("axis", 1)}));
  }

  std::string c3(const std::string& name, model::C3Impl& m, const std::string& x) {
    std::string y = conv(name + ".cv1", *m.cv1, x);
    for (size_t i = 0; i < m.blocks.size(); ++i)
      y = bottleneck(name + ".m." + std::to_string(i), *m.blocks[i], y);
    const std::string bypass = conv(name + ".cv2", *m.cv2, x);
    return conv(name + ".cv3", *m.cv3, g_.op("Concat", name + ".cat", {y, bypass}, {G::attrInt("axis", 1)}));
  }

  std::string psaBlock(const std::string& bn, model::PSABlockImpl& blk, const std::string& b, int64_t h,
                       int64_t w) {
    const std::string att = attentionOnnx(
        g_, o_,
        AttentionOps{
            [this](const std::string& n, model::ConvImpl& c, const std::string& t) { return conv(n, c, t); },
            [this](const std::string& n, const std::string& t, std::vector<int64_t> sz, int64_t ax) {
              return split(n, t, std::move(sz), ax);
            }},
        bn + ".attn", *blk.attn, b, h, w);
    const std::string r1 = blk.options.shortcut() ? g_.op("Add", bn + ".add_attn", {b, att}) : att;
    const std::string f = conv(bn + ".ffn.1", *blk.ffn2, conv(bn + ".ffn.0", *blk.ffn1, r1));
    return blk.options.shortcut() ? g_.op("Add", bn + ".add_ffn", {r1, f}) : f;
  }

  // With attn (YOLO26) block i is Bottleneck m.i.0 then PSABlock m.i.1.
  std::string c3k2(const std::string& name, model::C3k2Impl& m, const std::string& x, int64_t h, int64_t w) {
    const std::string a = conv(name + ".cv1", *m.cv1, x);
    std::vector<std::string> y = split(name + ".split", a, {m.hidden(), m.hidden()});
    for (size_t i = 0; i < m.bottlenecks.size(); ++i) {
      const std::string bn = name + ".m." + std::to_string(i);
      if (m.psa.empty()) {
        y.push_back(bottleneck(bn, *m.bottlenecks[i], y.back()));
      } else {
        y.push_back(psaBlock(bn + ".1", *m.psa[i], bottleneck(bn + ".0", *m.bottlenecks[i], y.back()), h, w));
      }
    }
    for (size_t i = 0; i < m.c3ks.size(); ++i)
      y.push_back(c3(name + ".m." + std::to_string(i), *m.c3ks[i], y.back()));
    return conv(name + ".cv2", *m.cv2, g_.op("Concat", name + ".cat", y, {G::attrInt("axis", 1)}));
  }

  std::string c2psa(const std::string& name, model::C2PSAImpl& m, const std::string& x, int64_t h,
                    int64_t w) {
    const std::string a = conv(name + ".cv1", *m.cv1, x);
    std::vector<std::string> ab = split(name + ".split", a, {m.hidden(), m.hidden()});
    std::string b = ab[1];
    for (size_t i = 0; i < m.blocks.size(); ++i)
      b = psaBlock(name + ".m." + std::to_string(i), *m.blocks[i], b, h, w);
    return conv(name + ".cv2", *m.cv2, g_.op("Concat", name + ".cat", {ab[0], b}, {G::attrInt("axis", 1)}));
  }

  std::string sppf(const std::string& name, model::SPPFImpl& m, const std::string& x) {
    const int64_t k = m.options.k();
    std::vector<std::string> y{conv(name + ".cv1", *m.cv1, x)};
    for (int64_t i = 0; i < m.options.n(); ++i) {
      y.push_back(g_.op("MaxPool", name + ".pool", {y.back()},
                        {G::attrInts("kernel_shape", {k, k}), G::attrInts("strides", {1, 1}),
                         G::attrInts("pads", {k / 2, k / 2, k / 2, k / 2})}));
    }
    const std::string out =
        conv(name + ".cv2", *m.cv2, g_.op("Concat", name + ".cat", y, {G::attrInt("axis", 1)}));
    return m.residual() ? g_.op("Add", name + ".add", {x, out}) : out;
  }

  // Nearest upsampling by an integer factor: Resize (opset 11+) with constant scales and an omitted roi;
  // asymmetric + floor is exactly torch's 'nearest' (source index = floor(dst / factor)).
  std::string upsample(const std::string& name, torch::nn::UpsampleImpl& m, const std::string& x) {
    const auto& sf = m.options.scale_factor();
    if (!sf || sf->size() != 2) fail("ONNX export: ", name, " needs a 2-D scale factor");
    const std::string scales =
        g_.constant(name + ".scales", {4}, {1.f, 1.f, float((*sf)[0]), float((*sf)[1])});
    const std::string roi = g_.constant(name + ".roi", {0}, {});
    return g_.op("Resize", name, {x, roi, scales},
                 {G::attrStr("mode", "nearest"), G::attrStr("coordinate_transformation_mode", "asymmetric"),
                  G::attrStr("nearest_mode", "floor")});
  }

  std::string branch(const std::string& head, model::DetectImpl::Branch& b, const std::string& x) {
    std::string y = x;
    for (auto& [key, c] : b.stages) y = conv(head + "." + key, *c, y);
    return conv2d(head + "." + b.out_name, *b.out, y);
  }

  // Anchor centres [1, 2, h*w] of one level (x then y, cell centres in grid units). Static graphs store
  // them as a constant [2, h*w]. Graph anchors derive them from the level's map: ones shaped like image 0,
  // channel 0 of the map ([1,1,h,w]), whose cumulative sums along x and y give index + 1. Both sums run
  // over the LAST axis: OpenCV 4.6's CumSum is only correct there (over axis 2 of [N,1,h,w] it reads past
  // its rows and returns garbage, which made the boxes differ by ~1e3 px), so the y sum runs on the
  // transposed [1,1,w,h] map and is transposed back. Batch 1 matters too, see decodeLevel().
  std::string levelAnchors(const std::string& lv, const std::string& map, int64_t stride) {
    if (!o_.dynamic && !o_.graph_anchors) {
      const int64_t h = o_.height / stride, w = o_.width / stride;
      std::vector<float> xy(size_t(2 * h * w));
      for (int64_t y = 0; y < h; ++y) {
        for (int64_t x = 0; x < w; ++x) {
          xy[size_t(y * w + x)] = float(x) + 0.5f;
          xy[size_t(h * w + y * w + x)] = float(y) + 0.5f;
        }
      }
      // [2, A], not [1, 2, A]: OpenCV 4.6 then adds it per channel for any batch size (Scale over axis 1).
      return g_.constant(lv + ".anchors", {2, h * w}, std::move(xy));
    }
    const std::string c0 =
        g_.op("Slice", lv + ".slice",
              {map, g_.constantInt64(lv + ".starts", {2}, {0, 0}),
               g_.constantInt64(lv + ".ends", {2}, {1, 1}), g_.constantInt64(lv + ".axes", {2}, {0, 1})});
    const std::string ones = g_.op("Add", lv + ".ones",
                                   {g_.op("Mul", lv + ".zeros", {c0, g_.constant(lv + ".zero", {1}, {0.f})}),
                                    g_.constant(lv + ".one", {1}, {1.f})});
    const std::string last = g_.constantInt64(lv + ".last_axis", {1}, {3});
    const std::string half = g_.constant(lv + ".half", {1}, {0.5f});
    const std::string xs = g_.op("Sub", lv + ".x", {g_.op("CumSum", lv + ".cumx", {ones, last}), half});
    const std::string ones_t =
        g_.op("Transpose", lv + ".ones_t", {ones}, {G::attrInts("perm", {0, 1, 3, 2})});
    const std::string cum_y =
        g_.op("Transpose", lv + ".cumy_t", {g_.op("CumSum", lv + ".cumy", {ones_t, last})},
              {G::attrInts("perm", {0, 1, 3, 2})});
    const std::string ys = g_.op("Sub", lv + ".y", {cum_y, half});
    const std::string xy = g_.op("Concat", lv + ".xy", {xs, ys}, {G::attrInt("axis", 1)});
    return g_.op("Reshape", lv + ".anchors", {xy, g_.constantInt64(lv + ".anchor_shape", {3}, {1, 2, -1})});
  }

  // One level's output [N, 4+nc, h*w] from its box map [N,64,h,w] and class map [N,nc,h,w].
  // DFL: [N,64,A] -> [N,4,16,A] -> [N,4,A,16], softmax over the last axis (the same in opset < 13's 2-D
  // coercion and in 13+), -> [N,16,4,A], 1x1 conv with the fixed weights 0..15 -> [N,1,4,A] -> [N,4,A].
  // dist2bbox as DetectionModel::predict computes it: x1y1 = a - lt, x2y2 = a + rb, xy = (x1y1 + x2y2) / 2,
  // wh = x2y2 - x1y1, then times the stride. Decoding per level keeps OpenCV 4.6 working with symbolic
  // sizes: the stride is a scalar constant (a Mul of two computed tensors of different shapes needs
  // import-time shapes OpenCV cannot infer), and the batch-1 anchors are always the SECOND operand of an
  // Add (x1y1 = (-lt) + a, bit-identical to a - lt), which OpenCV's Scale layer broadcasts over the batch.
  std::string decodeLevel(const std::string& lv, model::DetectImpl& d, const std::string& box,
                          const std::string& cls, int64_t stride) {
    const int64_t nc = d.options.nc(), reg = d.options.reg_max();
    std::string t = box;
    if (reg > 1) {  // with reg_max 1 (YOLO26) the box channels are the distances
      t = g_.op("Reshape", lv + ".dfl.view",
                {box, g_.constantInt64(lv + ".dfl.shape4", {4}, {0, 4, reg, -1})});
      t = g_.op("Transpose", lv + ".dfl.bins_last", {t}, {G::attrInts("perm", {0, 1, 3, 2})});
      t = g_.op("Softmax", lv + ".dfl.softmax", {t}, {G::attrInt("axis", 3)});
      t = g_.op("Transpose", lv + ".dfl.bins_first", {t}, {G::attrInts("perm", {0, 3, 1, 2})});
      t = conv2d(lv + ".dfl.conv", *d.dfl->conv, t);
    }
    const std::string dist =
        g_.op("Reshape", lv + ".dfl.out", {t, g_.constantInt64(lv + ".dfl.shape3", {3}, {0, 4, -1})});
    const std::string anc = levelAnchors(lv, box, stride);
    const auto lt_rb = split(lv + ".ltrb", dist, {2, 2});
    const std::string neg_lt =
        g_.op("Mul", lv + ".neg_lt", {lt_rb[0], g_.constant(lv + ".minus_one", {1}, {-1.f})});
    const std::string x1y1 = g_.op("Add", lv + ".x1y1", {neg_lt, anc});
    const std::string x2y2 = g_.op("Add", lv + ".x2y2", {lt_rb[1], anc});
    const std::string xy = g_.op(
        "Div", lv + ".xy", {g_.op("Add", lv + ".sum", {x1y1, x2y2}), g_.constant(lv + ".two", {1}, {2.f})});
    const std::string wh = g_.op("Sub", lv + ".wh", {x2y2, x1y1});
    const std::string xywh = g_.op("Concat", lv + ".xywh", {xy, wh}, {G::attrInt("axis", 1)});
    const std::string pix =
        g_.op("Mul", lv + ".pixels", {xywh, g_.constant(lv + ".stride", {1}, {float(stride)})});
    const std::string flat_cls =
        g_.op("Reshape", lv + ".cls_flat", {cls, g_.constantInt64(lv + ".cls_shape", {3}, {0, nc, -1})});
    const std::string scores = g_.op("Sigmoid", lv + ".scores", {flat_cls});
    return g_.op("Concat", lv + ".output", {pix, scores}, {G::attrInt("axis", 1)});
  }

  std::string detect(const std::string& name, model::DetectImpl& d, const std::vector<std::string>& xs) {
    const auto strides = d.options.strides();
    if (strides.size() != xs.size())
      fail("ONNX export: ", name, " has ", xs.size(), " inputs for ", strides.size(), " strides");
    std::vector<std::string> levels;
    for (size_t i = 0; i < xs.size(); ++i) {
      // An end-to-end graph runs the one-to-one copies (Ultralytics keys one2one_cv2/one2one_cv3).
      const std::string box = branch(name, o_.end2end ? d.one2oneBoxBranch(i) : d.boxBranch(i), xs[i]);
      const std::string cls = branch(name, o_.end2end ? d.one2oneClassBranch(i) : d.classBranch(i), xs[i]);
      levels.push_back(decodeLevel(name + ".level" + std::to_string(i), d, box, cls, strides[i]));
    }
    return g_.op("Concat", name + ".output", levels, {G::attrInt("axis", 2)});  // [N, 4+nc, A]
  }

 private:
  OnnxGraph& g_;
  const YoloOnnxOptions& o_;
};

}  // namespace

int64_t anchorCount(int64_t h, int64_t w, const std::vector<int64_t>& strides) {
  int64_t a = 0;
  for (int64_t s : strides) a += (h / s) * (w / s);
  return a;
}

OnnxGraph buildYoloOnnx(model::DetectionModel& m, const YoloOnnxOptions& o) {
  if (!m->fused()) fail("ONNX export needs the fused model (DetectionModel::fuse())");
  const auto strides = m->strides();
  const int64_t smax = strides.back();
  if (o.height <= 0 || o.width <= 0 || o.height % smax || o.width % smax)
    fail("ONNX export: image size ", o.height, "x", o.width, " must be a positive multiple of ", smax);
  if (o.batch < 1) fail("ONNX export: batch must be >= 1");
  if (o.end2end && !m->end2end())
    fail("ONNX export: end2end=true needs an end-to-end model (YOLO26); this one has no one-to-one head");
  OnnxGraph g;
  g.name = "ywb_" + (m->scale().empty() || m->spec().family.empty() ? std::string("model")
                                                                    : m->spec().family + m->scale());
  g.opset = o.opset;
  g.metadata = o.metadata;
  Walker w(g, o);
  const auto& layers = m->spec().layers;
  std::vector<std::string> out(layers.size());
  const std::string input = "images";
  std::string cur = input;
  for (size_t i = 0; i < layers.size(); ++i) {
    const auto& row = layers[i];
    const std::string name = "model." + std::to_string(i);
    std::vector<std::string> in;
    for (int f : row.from) in.push_back(f < 0 ? input : out[size_t(f)]);
    auto mod = m->layer(int(i));
    if (auto c = std::dynamic_pointer_cast<model::ConvImpl>(mod)) {
      cur = w.conv(name, *c, in[0]);
    } else if (auto c2 = std::dynamic_pointer_cast<model::C2fImpl>(mod)) {
      cur = w.c2f(name, *c2, in[0]);
    } else if (auto k2 = std::dynamic_pointer_cast<model::C3k2Impl>(mod)) {
      const int64_t s = m->layerInfo()[i].stride;
      cur = w.c3k2(name, *k2, in[0], o.height / s, o.width / s);
    } else if (auto c3 = std::dynamic_pointer_cast<model::C3Impl>(mod)) {
      cur = w.c3(name, *c3, in[0]);
    } else if (auto psa = std::dynamic_pointer_cast<model::C2PSAImpl>(mod)) {
      const int64_t s = m->layerInfo()[i].stride;
      cur = w.c2psa(name, *psa, in[0], o.height / s, o.width / s);
    } else if (auto sp = std::dynamic_pointer_cast<model::SPPFImpl>(mod)) {
      cur = w.sppf(name, *sp, in[0]);
    } else if (auto up = std::dynamic_pointer_cast<torch::nn::UpsampleImpl>(mod)) {
      cur = w.upsample(name, *up, in[0]);
    } else if (auto cat = std::dynamic_pointer_cast<model::ConcatImpl>(mod)) {
      cur = g.op("Concat", name, in, {G::attrInt("axis", cat->dim)});
    } else if (auto d = std::dynamic_pointer_cast<model::DetectImpl>(mod)) {
      cur = w.detect(name, *d, in);
    } else {
      fail("ONNX export: layer ", i, " (", row.module, ") is not supported by the exporter");
    }
    out[i] = cur;
  }
  const int64_t anchors = anchorCount(o.height, o.width, strides);
  if (o.end2end) cur = end2endTail(g, cur, m->nc(), o.dynamic ? -1 : anchors, o.max_det, o.opset);
  g.renameOutput(cur, "output0");
  const int64_t no = 4 + m->nc();
  if (o.dynamic) {
    g.inputs.push_back({input, {-1, 3, -1, -1}, {"batch", "", "height", "width"}});
    if (o.end2end)
      g.outputs.push_back({"output0", {-1, -1, 6}, {"batch", "detections", ""}});
    else
      g.outputs.push_back({"output0", {-1, no, -1}, {"batch", "", "anchors"}});
  } else {
    g.inputs.push_back({input, {o.batch, 3, o.height, o.width}, {}});
    g.outputs.push_back({"output0",
                         o.end2end ? std::vector<int64_t>{o.batch, end2endRows(anchors, o.max_det), 6}
                                   : std::vector<int64_t>{o.batch, no, anchors},
                         {}});
  }
  return g;
}

}  // namespace ywb::onnx_export
