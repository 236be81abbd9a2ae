// Tests of the GPU path that need a CUDA device (label `cuda`; each skips with the reason where there is
// none, as on every CI machine): fp16 AMP with the loss scaler, bf16 autocast, CUDA NMS against the CPU
// path, channels_last on cuDNN, the side-stream prefetcher, CUDA graphs against eager steps, an NCCL group
// of one rank, and the caching allocator's figures. installer/gpu-check.sh runs them on a GPU machine.
#include <ATen/CPUGeneratorImpl.h>
#include <torch/cuda.h>
#include <torch/torch.h>
#include <QtTest>

#include "core/torch_compat.h"
#include "cuda/batch_prefetcher.h"
#include "cuda/copy_stream.h"
#include "cuda/cuda_runtime.h"
#include "cuda/graphed_model.h"
#include "dist/dist_context.h"
#include "dist/process_group_factory.h"
#include "eval/nms.h"
#include "loss/model_loss.h"
#include "model/channels_last.h"
#include "model/detection_model.h"
#include "support/newton_schulz_truth.h"
#include "train/grad_scaler.h"
#include "train/newton_schulz.h"

namespace {

std::string noCudaReason() {
  if (!ywb::cuda::compiledWithCuda()) return "no CUDA: this engine was built against a CPU-only LibTorch";
  return "no CUDA device visible to LibTorch (check CUDA_VISIBLE_DEVICES and the driver; ywb doctor)";
}

#define YW_REQUIRE_CUDA()                                                 \
  do {                                                                    \
    if (!ywb::cuda::compiledWithCuda() || !torch::cuda::is_available()) { \
      const std::string why_ = noCudaReason();                            \
      QSKIP(why_.c_str());                                                \
    }                                                                     \
  } while (0)

const at::Device kGpu(at::kCUDA, 0);

// Random YOLO targets (image, class, cx, cy, w, h) for `batch` images, 1-4 boxes each, fixed by `seed`.
at::Tensor targetsFor(int64_t batch, int64_t nc, uint64_t seed) {
  at::Generator g = at::detail::createCPUGenerator(seed);
  std::vector<at::Tensor> rows;
  for (int64_t i = 0; i < batch; ++i) {
    const int64_t n = 1 + i % 4;
    at::Tensor r = at::rand({n, 6}, g);
    r.select(1, 0).fill_(double(i));
    r.select(1, 1).mul_(double(nc)).floor_().clamp_(0, double(nc - 1));
    r.narrow(1, 2, 2).mul_(0.6).add_(0.2);
    r.narrow(1, 4, 2).mul_(0.3).add_(0.05);
    rows.push_back(r);
  }
  return at::cat(rows);
}

}  // namespace

class TestCuda : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void fp16ScalerSkipsOverflowingStepsAndLowersTheScale() {
    YW_REQUIRE_CUDA();
    // y = W x in fp16 (autocast), loss = sum(y) in fp32, x = ones [4, 8]: dloss/dy = scale, computed in
    // fp16, and dloss/dW = 4 * scale per element, also fp16 (largest finite fp16: 65504). So the scale
    // 65536 overflows already in dy, 32768 and 16384 overflow in dW (131072, 65536), and 8192 is the first
    // clean step: three skipped steps halving the scale, then an SGD step of lr * 4 on every weight.
    torch::nn::Linear lin(torch::nn::LinearOptions(8, 2).bias(false));
    lin->to(kGpu);
    const at::Tensor w0 = lin->weight.detach().clone();
    torch::optim::SGD opt(lin->parameters(), torch::optim::SGDOptions(0.1));
    ywb::GradScaler scaler(true, 65536.0, 2.0, 0.5, 2000);
    const at::Tensor x = at::ones({4, 8}, at::TensorOptions(kGpu));
    std::vector<double> scales;
    for (int i = 0; i < 4; ++i) {
      at::Tensor loss;
      {
        const ywb::compat::AutocastScope amp(c10::DeviceType::CUDA, true, at::kHalf);
        at::Tensor y = lin->forward(x);
        QCOMPARE(y.scalar_type(), at::kHalf);
        loss = y.to(at::kFloat).sum();
      }
      scaler.scale(loss).backward();
      scaler.unscale(opt);
      scaler.step(opt);
      scaler.update();
      opt.zero_grad();
      scales.push_back(scaler.currentScale());
      if (i < 3) QVERIFY(at::equal(lin->weight.detach(), w0));  // skipped: weights untouched
    }
    QCOMPARE(scaler.skippedSteps(), int64_t(3));
    QCOMPARE(scales, (std::vector<double>{32768, 16384, 8192, 8192}));
    QVERIFY(at::allclose(lin->weight.detach(), w0 - 0.4, 1e-6, 1e-6));
  }

  void bf16AutocastRunsTheModel() {
    YW_REQUIRE_CUDA();
    torch::manual_seed(0);
    ywb::model::DetectionModel m = ywb::model::buildModel("yolov8n.yaml", 3);
    m->to(kGpu);
    m->eval();
    const at::Tensor x = at::rand({2, 3, 128, 128}, at::TensorOptions(kGpu));
    torch::NoGradGuard ng;
    const auto ref = m->forward(x);
    std::vector<at::Tensor> low;
    {
      const ywb::compat::AutocastScope amp(c10::DeviceType::CUDA, true, at::kBFloat16);
      low = m->forward(x);
    }
    QCOMPARE(low.size(), ref.size());
    for (size_t i = 0; i < low.size(); ++i) {
      QCOMPARE(low[i].scalar_type(), at::kBFloat16);
      QVERIFY(low[i].isfinite().all().item<bool>());
      // bf16 keeps 8 bits of mantissa: a relative error of a few percent of the maps' spread.
      const double err = (low[i].to(at::kFloat) - ref[i]).abs().max().item<double>();
      QVERIFY2(err < 0.05 * (ref[i].abs().max().item<double>() + 1), std::to_string(err).c_str());
    }
  }

  void cudaNmsMatchesTheCpuPath() {
    YW_REQUIRE_CUDA();
    at::Generator g = at::detail::createCPUGenerator(7);
    const int64_t nc = 5, a = 2000;
    at::Tensor pred = at::empty({2, 4 + nc, a});
    pred.narrow(1, 0, 2).copy_(at::rand({2, 2, a}, g) * 640);
    pred.narrow(1, 2, 2).copy_(at::rand({2, 2, a}, g) * 90 + 10);
    pred.narrow(1, 4, nc).copy_(at::rand({2, nc, a}, g));
    for (bool multi : {false, true}) {
      const auto cpu = ywb::eval::nonMaxSuppression(pred, 0.25, 0.7, 300, false, 30000, multi);
      const auto gpu = ywb::eval::nonMaxSuppression(pred.to(kGpu), 0.25, 0.7, 300, false, 30000, multi);
      QCOMPARE(gpu.size(), cpu.size());
      for (size_t i = 0; i < cpu.size(); ++i) {
        QVERIFY(gpu[i].is_cuda());
        QCOMPARE(gpu[i].sizes().vec(), cpu[i].sizes().vec());
        QVERIFY(at::allclose(gpu[i].cpu(), cpu[i], 1e-4, 1e-3));
      }
    }
  }

  void musgdOrthogonalisationOnCuda() {
    // MuSGD's Newton-Schulz on the GPU (zero-padded buckets of bmm products, train/newton_schulz.h) against
    // the float64 iteration: as close to it as the CPU's kernels (bit-exact to Ultralytics' CPU arithmetic)
    // on the same tensors, within 1.5x plus a bfloat16 unit at 0.5, for yolo26n-like weights: 3x3 and 1x1
    // convs in channels-last, tall and wide, and a plain matrix.
    YW_REQUIRE_CUDA();
    torch::manual_seed(11);
    const std::vector<at::Tensor> cpu{at::randn({16, 3, 3, 3}),    at::randn({64, 32, 3, 3}),
                                      at::randn({256, 64, 1, 1}),  at::randn({6, 64, 1, 1}),
                                      at::randn({128, 128, 3, 3}), at::randn({40, 7})};
    std::vector<at::Tensor> gpu;
    for (const auto& t : cpu)
      gpu.push_back(t.dim() == 4 ? t.to(kGpu).contiguous(at::MemoryFormat::ChannelsLast) : t.to(kGpu));
    const auto on_gpu = ywb::newtonSchulz5(gpu);
    const auto on_cpu = ywb::newtonSchulz5(cpu);
    QCOMPARE(on_gpu.size(), cpu.size());
    for (size_t i = 0; i < cpu.size(); ++i) {
      QVERIFY(on_gpu[i].is_cuda());
      QCOMPARE(on_gpu[i].sizes().vec(), cpu[i].sizes().vec());
      const double g = ywb::test::newtonSchulzError(on_gpu[i], cpu[i]);
      const double c = ywb::test::newtonSchulzError(on_cpu[i], cpu[i]);
      qInfo("tensor %zu: max error GPU %.4g, CPU %.4g", i, g, c);
      QVERIFY2(g <= 1.5 * c + 0.004, qPrintable(QString::number(i)));
    }
  }

  void channelsLastOnCudnnMatchesContiguous() {
    YW_REQUIRE_CUDA();
    torch::manual_seed(1);
    ywb::model::DetectionModel a = ywb::model::buildModel("yolov8n.yaml", 3);
    a->to(kGpu);
    a->eval();
    ywb::model::DetectionModel b = ywb::model::cloneModel(a);
    QVERIFY(ywb::model::toChannelsLast(*b) > 0);
    const at::Tensor x = at::rand({2, 3, 160, 160}, at::TensorOptions(kGpu));
    torch::NoGradGuard ng;
    const auto ya = a->forward(x);
    const auto yb = b->forward(x.contiguous(at::MemoryFormat::ChannelsLast));
    for (size_t i = 0; i < ya.size(); ++i) {
      QVERIFY(yb[i].is_contiguous(at::MemoryFormat::ChannelsLast));
      QVERIFY(at::allclose(ya[i], yb[i], 1e-3, 1e-3));  // TF32 convolutions: ~1e-3 relative
    }
  }

  void sideStreamPrefetcherDeliversEveryBatchInOrder() {
    YW_REQUIRE_CUDA();
    // 20 MB pinned batches whose bytes are k: a batch read before its copy landed (no event wait) sums
    // to another value. The compute stream reads each batch with a reduction, as a training step would.
    const int64_t n = 12;
    int64_t k = 0;
    auto source = [&](ywb::Batch& b) {
      if (k >= n) return false;
      b = ywb::Batch();
      b.images = at::full({16, 3, 384, 384}, k, at::TensorOptions().dtype(at::kByte).pinned_memory(true));
      b.targets = at::full({k + 1, 6}, double(k), at::TensorOptions().pinned_memory(true));
      b.index = size_t(k++);
      return true;
    };
    std::string why;
    auto stream = ywb::cuda::makeCudaCopyStream(kGpu, &why);
    QVERIFY2(stream, why.c_str());
    ywb::cuda::BatchPrefetcher p(source, std::move(stream));
    p.start();
    ywb::Batch b;
    std::vector<at::Tensor> sums;
    for (int64_t i = 0; i < n; ++i) {
      QVERIFY(p.next(b));
      QVERIFY(b.images.is_cuda());
      sums.push_back(b.images.to(at::kLong).sum());  // enqueued on the compute stream
      QCOMPARE(b.targets.size(0), i + 1);
    }
    QVERIFY(!p.next(b));
    const int64_t per = 16 * 3 * 384 * 384;
    for (int64_t i = 0; i < n; ++i) QCOMPARE(sums[size_t(i)].item<int64_t>(), i * per);
    QCOMPARE(p.stats().buffers_allocated, int64_t(2));
    QCOMPARE(p.stats().buffers_reused, n - 2);
  }

  void graphCaptureMatchesEagerSteps() {
    YW_REQUIRE_CUDA();
    graphedStepsMatchEager("yolov8n.yaml", 2);
  }

  void graphCaptureMatchesEagerEndToEnd() {
    YW_REQUIRE_CUDA();
    // YOLO26's step: both heads (the one-to-one branch on detached features) captured as one graph, the
    // end-to-end loss at o2m 0.8.
    graphedStepsMatchEager("yolo26n.yaml", 3);
  }

  void ncclGroupOfOneRank() {
    YW_REQUIRE_CUDA();
    if (!ywb::ncclAvailable()) QSKIP("built without NCCL (needs a CUDA LibTorch and nccl.h at build time)");
    ywb::DistOptions o;
    o.env.present = true;
    o.env.master_port = 29731;
    o.backend = "nccl";
    o.device = kGpu;
    o.timeout_s = 60;
    ywb::DistContext ctx(o);
    QCOMPARE(ctx.world(), 1);
    at::Tensor v = at::arange(1, 4, at::TensorOptions(kGpu).dtype(at::kFloat));
    ctx.allreduce(v, false, "test");
    QVERIFY(at::equal(v.cpu(), at::arange(1, 4).to(at::kFloat)));  // a sum over one rank is the tensor
    QVERIFY(ctx.anyTrue(true, "test"));
    ctx.finish();
  }

  // The AMP check runs its one-image passes with cuDNN's heuristics (no autotuning of shapes no step has) and
  // hands training the autotuner as it found it (train/amp_check.cpp): the scope sets and restores LibTorch's
  // own flag, read back from LibTorch.
  void cudnnBenchmarkScopeRestoresTheAutotuner() {
    YW_REQUIRE_CUDA();
    for (const bool before : {true, false}) {
      QVERIFY(ywb::cuda::setCudnnBenchmark(before));
      {
        const ywb::cuda::CudnnBenchmarkScope heuristics(false);
        QVERIFY(!at::globalContext().benchmarkCuDNN());
      }
      QCOMPARE(at::globalContext().benchmarkCuDNN(), before);
    }
  }

  void cachingAllocatorFigures() {
    YW_REQUIRE_CUDA();
    torch::cuda::synchronize();
    ywb::cuda::emptyCache();
    const auto s0 = ywb::cuda::allocatorStats(0);
    QVERIFY(s0.has_value());
    const int64_t bytes = int64_t(256)
                          << 20;  // a multiple of the allocator's 2 MiB rounding for large blocks
    at::Tensor t = at::empty({bytes / 4}, at::TensorOptions(kGpu).dtype(at::kFloat));
    const auto s1 = ywb::cuda::allocatorStats(0);
    QCOMPARE(s1->allocated - s0->allocated, bytes);
    QVERIFY(s1->reserved >= s1->allocated);
    QVERIFY(s1->peak_allocated >= s1->allocated);
    t.reset();
    const auto s2 = ywb::cuda::allocatorStats(0);
    QCOMPARE(s2->allocated, s0->allocated);
    QCOMPARE(s2->reserved, s1->reserved);  // freed blocks stay cached
    ywb::cuda::emptyCache();
    const auto s3 = ywb::cuda::allocatorStats(0);
    QVERIFY(s3->reserved <= s1->reserved - bytes);
    ywb::cuda::resetPeakStats(0);
    QCOMPARE(ywb::cuda::allocatorStats(0)->peak_allocated, s3->allocated);
  }

 private:
  // Two copies of one model train on the same batch for 10 SGD steps with the model's own loss, one eagerly
  // and one through GraphedModel::forwardHeads (2 eager warmup steps, a capture, then 7 replays): the losses
  // agree to 1e-5 relative.
  void graphedStepsMatchEager(const char* yaml, uint64_t seed) {
    at::globalContext().setDeterministicCuDNN(true);
    ywb::cuda::setCudnnBenchmark(false);
    torch::manual_seed(seed);
    ywb::model::DetectionModel eager = ywb::model::buildModel(yaml, 4);
    eager->to(kGpu);
    eager->train();
    ywb::model::DetectionModel graphed = ywb::model::cloneModel(eager);
    ywb::cuda::GraphedModel gm(graphed, ywb::cuda::GraphPolicyOptions{2, 4});
    QVERIFY(gm.available());
    const ywb::loss::ModelLoss crit(*eager);
    torch::optim::SGD oe(eager->parameters(), torch::optim::SGDOptions(0.01).momentum(0.9));
    torch::optim::SGD og(graphed->parameters(), torch::optim::SGDOptions(0.01).momentum(0.9));
    const at::Tensor x = at::rand({4, 3, 128, 128}, at::TensorOptions(kGpu));
    const at::Tensor t = targetsFor(4, 4, 3).to(kGpu);
    for (int step = 0; step < 10; ++step) {
      const at::Tensor le = crit(eager->forwardHeads(x), t, 0.8).total;
      le.backward();
      oe.step();
      oe.zero_grad();
      const at::Tensor lg = crit(gm.forwardHeads(x, false, at::kFloat), t, 0.8).total;
      lg.backward();
      og.step();
      og.zero_grad();
      const double a = le.item<double>(), b = lg.item<double>();
      QVERIFY2(
          std::abs(a - b) <= 1e-5 * std::max(1.0, std::abs(a)),
          ("step " + std::to_string(step) + ": eager " + std::to_string(a) + " graphed " + std::to_string(b))
              .c_str());
    }
    QVERIFY2(!gm.policy().disabled(), gm.policy().note().c_str());
    QCOMPARE(gm.policy().captures(), int64_t(1));
    QCOMPARE(gm.policy().replays(), int64_t(7));
    at::globalContext().setDeterministicCuDNN(false);
  }
};

QTEST_GUILESS_MAIN(TestCuda)
#include "test_cuda.moc"
