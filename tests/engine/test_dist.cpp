// Distributed data-parallel training on real Gloo process groups over loopback, below the trainer: gradient
// averaging and SyncBatchNorm against one process. Ranks are this test binary re-executed as a worker
// (YWB_DIST_TEST_WORKER). Whole `ywb train world=2` jobs: test_dist_train.cpp.
#include <torch/torch.h>
#include <QCoreApplication>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QtTest>

#include "core/atomic_file.h"
#include "data/sampler.h"
#include "dist/dist_context.h"
#include "dist/grad_reducer.h"
#include "dist/process_group_factory.h"
#include "dist/sync_batch_norm.h"
#include "io/safetensors.h"
#include "support/dist_env.h"
#include "ywb/dist.h"
#include "ywb/error.h"

namespace {

// The toy problem both the ranks and the single-process reference train. Samples are a pure function of
// their index, so any process can produce sample i.
constexpr int kSamples = 24, kGlobalBatch = 6, kEpochs = 2;
constexpr uint64_t kSamplerSeed = 7;

at::Tensor sampleX(size_t i) {
  at::Generator g = at::detail::createCPUGenerator(1000 + i);
  return at::randn({3, 6, 6}, g);
}
at::Tensor sampleY(size_t i) {
  return at::full({2}, double(i % 5) * 0.1 - 0.2);
}

torch::nn::Sequential makeNet(uint64_t seed) {
  torch::manual_seed(seed);
  return torch::nn::Sequential(torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 4, 3)), torch::nn::SiLU(),
                               torch::nn::Conv2d(torch::nn::Conv2dOptions(4, 4, 3)), torch::nn::SiLU(),
                               torch::nn::Flatten(), torch::nn::Linear(4 * 2 * 2, 2));
}

// Per-sample loss summed over the batch, i.e. mean * batch, as Ultralytics' loss returns it
// (loss.sum() * batch_size for per-image-mean losses).
at::Tensor batchLoss(torch::nn::Sequential& net, const std::vector<size_t>& idx) {
  std::vector<at::Tensor> xs, ys;
  for (size_t i : idx) {
    xs.push_back(sampleX(i));
    ys.push_back(sampleY(i));
  }
  at::Tensor out = net->forward(at::stack(xs));
  return (out - at::stack(ys)).pow(2).sum(1).mean() * double(idx.size());
}

// Trains with `world` ranks (world = 1: the single-process reference); returns the flattened parameters.
at::Tensor train(torch::nn::Sequential& net, int rank, int world, ywb::DistContext* ctx,
                 ywb::GradReducer* reducer) {
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(0.05).momentum(0.9));
  const size_t per_rank_batch = size_t(kGlobalBatch / world);
  for (int epoch = 0; epoch < kEpochs; ++epoch) {
    // DistributedSampler semantics: rank r takes every world-th index of the shared permutation, so batch k
    // of all ranks together is exactly batch k of the single process with the global batch.
    const std::vector<size_t> mine =
        ywb::distributedIndices(kSamples, rank, world, true, kSamplerSeed, epoch);
    for (size_t start = 0; start < mine.size(); start += per_rank_batch) {
      const std::vector<size_t> idx(mine.begin() + long(start), mine.begin() + long(start + per_rank_batch));
      opt.zero_grad();
      at::Tensor loss = batchLoss(net, idx);
      if (ctx) loss = loss * double(world);  // Ultralytics: loss *= world_size before DDP's averaging
      loss.backward();
      if (reducer) reducer->finish("test step");
      opt.step();
    }
  }
  std::vector<at::Tensor> flat;
  for (auto& p : net->parameters()) flat.push_back(p.detach().reshape({-1}));
  return at::cat(flat);
}

int gradWorker() {
  const ywb::DistEnv env = ywb::distEnvFromEnvironment();
  ywb::DistOptions o;
  o.env = env;
  o.timeout_s = 60;
  ywb::DistContext ctx(o);
  // Different initial weights per rank: the broadcast from rank 0 must make them equal.
  torch::nn::Sequential net = makeNet(100 + uint64_t(env.rank));
  std::vector<at::Tensor> params = net->parameters();
  ctx.broadcast(params, "initial broadcast");
  // Small buckets (64 and 256 bytes) so the gradients travel in several buckets, most started during
  // backward.
  ywb::GradReducer reducer(ctx, net->parameters(), 64, 256);
  const at::Tensor w = train(net, env.rank, env.world, &ctx, &reducer);
  ywb::writeSafetensors(
      std::string(std::getenv("YWB_DIST_TEST_OUT")) + "/rank" + std::to_string(env.rank) + ".safetensors",
      {{"w", w}}, {});
  ywb::writeFileAtomic(
      std::string(std::getenv("YWB_DIST_TEST_OUT")) + "/buckets" + std::to_string(env.rank),
      std::to_string(reducer.buckets()) + " " + std::to_string(reducer.launchedDuringBackward()));
  ctx.finish();
  return 0;
}

// SyncBatchNorm case: a global batch of 8 split 4 + 4 over two ranks; the reference is LibTorch's own
// BatchNorm2d on the whole batch in one process.
constexpr int kBnBatch = 8, kBnChannels = 4;
struct BnCase {
  at::Tensor x, r, w, b;  // input, upstream gradient dL/dy, BatchNorm weight and bias
};
BnCase bnCase() {
  at::Generator g = at::detail::createCPUGenerator(77);
  BnCase c;
  c.x = at::randn({kBnBatch, kBnChannels, 5, 5}, g) * 2.0 + 0.5;
  c.r = at::randn({kBnBatch, kBnChannels, 5, 5}, g);
  c.w = at::randn({kBnChannels}, g);
  c.b = at::randn({kBnChannels}, g);
  return c;
}
torch::nn::BatchNorm2d makeBn(const BnCase& c) {
  torch::nn::BatchNorm2d bn(torch::nn::BatchNorm2dOptions(kBnChannels).eps(1e-3).momentum(0.03));
  torch::NoGradGuard ng;
  bn->weight.copy_(c.w);
  bn->bias.copy_(c.b);
  return bn;
}

int syncBnWorker() {
  const ywb::DistEnv env = ywb::distEnvFromEnvironment();
  ywb::DistOptions o;
  o.env = env;
  o.timeout_s = 60;
  ywb::DistContext ctx(o);
  const BnCase c = bnCase();
  torch::nn::BatchNorm2d bn = makeBn(c);
  const int64_t per = kBnBatch / env.world;
  at::Tensor x = c.x.slice(0, env.rank * per, (env.rank + 1) * per).clone().requires_grad_(true);
  const at::Tensor y = ywb::syncBatchNorm(x, *bn, ctx);
  (y * c.r.slice(0, env.rank * per, (env.rank + 1) * per)).sum().backward();
  ywb::writeSafetensors(
      std::string(std::getenv("YWB_DIST_TEST_OUT")) + "/bn" + std::to_string(env.rank) + ".safetensors",
      {{"y", y.detach()},
       {"dx", x.grad()},
       {"dw", bn->weight.grad()},
       {"db", bn->bias.grad()},
       {"mean", bn->running_mean},
       {"var", bn->running_var},
       {"count", bn->num_batches_tracked}},
      {});
  ctx.finish();
  return 0;
}

// Runs this binary as worker `worker` on ranks 0 and 1 (output files under `out`); both must exit 0.
void runTwoWorkers(const char* worker, const QString& out) {
  const int port = ywb::pickFreePort();
  std::vector<std::unique_ptr<QProcess>> ranks;
  for (int r = 0; r < 2; ++r) {
    auto p = std::make_unique<QProcess>();
    QProcessEnvironment e = ywb::test::rankEnv(r, 2, port);
    e.insert("YWB_DIST_TEST_WORKER", worker);
    e.insert("YWB_DIST_TEST_OUT", out);
    p->setProcessEnvironment(e);
    p->setProcessChannelMode(QProcess::MergedChannels);
    p->start(QCoreApplication::applicationFilePath(), {});
    QVERIFY(p->waitForStarted());
    ranks.push_back(std::move(p));
  }
  for (auto& p : ranks) {
    QVERIFY2(p->waitForFinished(180000), "rank did not finish");
    QVERIFY2(p->exitCode() == 0, p->readAll().constData());
  }
}

}  // namespace

class TestDist : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void environmentAndDevices() {
    // Values as torchrun sets them.
    qputenv("RANK", "1");
    qputenv("WORLD_SIZE", "2");
    qputenv("MASTER_PORT", "29511");
    qunsetenv("LOCAL_RANK");
    ywb::DistEnv e = ywb::distEnvFromEnvironment();
    QVERIFY(e.present);
    QCOMPARE(e.rank, 1);
    QCOMPARE(e.local_rank, 1);  // defaults to RANK (one node)
    QCOMPARE(e.master_port, 29511);
    qputenv("RANK", "2");
    QVERIFY_THROWS_EXCEPTION(ywb::Error, ywb::distEnvFromEnvironment());  // RANK must be below WORLD_SIZE
    qunsetenv("RANK");
    QVERIFY_THROWS_EXCEPTION(ywb::Error, ywb::distEnvFromEnvironment());  // only one of the pair
    qunsetenv("WORLD_SIZE");
    qunsetenv("MASTER_PORT");
    QVERIFY(!ywb::distEnvFromEnvironment().present);
    QCOMPARE(ywb::localRanksRequested("0,1,2", 1), 3);
    QCOMPARE(ywb::localRanksRequested("cpu", 2), 2);
    QCOMPARE(ywb::deviceIndexForLocalRank("2,3", 1), 3);
    QCOMPARE(ywb::deviceIndexForLocalRank("cpu", 1), -1);
    QVERIFY(ywb::pickFreePort() > 0);
  }

  void twoRanksMatchOneProcessWithTheGlobalBatch() {
    if (!ywb::glooAvailable()) QSKIP("built without Gloo headers (libgloo-dev)");
    QTemporaryDir dir;
    runTwoWorkers("grad", dir.path());
    if (QTest::currentTestFailed()) return;
    const at::Tensor w0 = ywb::readSafetensors((dir.path() + "/rank0.safetensors").toStdString()).at("w");
    const at::Tensor w1 = ywb::readSafetensors((dir.path() + "/rank1.safetensors").toStdString()).at("w");
    // Both ranks apply the same averaged gradients to the same broadcast weights: bit-identical.
    QVERIFY(at::equal(w0, w1));
    // Single process, batch 6, the same sampler permutation, weights initialised as rank 0's (seed 100).
    torch::nn::Sequential net = makeNet(100);
    const at::Tensor ref = train(net, 0, 1, nullptr, nullptr);
    // Same arithmetic up to summation order (two partial sums of 3 samples + all-reduce vs one sum of 6):
    // float32 rounding of ~1e-7 relative per step over 8 steps of SGD with momentum.
    const double diff = (w0 - ref).abs().max().item<double>();
    const double scale = ref.abs().max().item<double>();
    QVERIFY2(diff <= 1e-5 * std::max(1.0, scale), qPrintable(QString("max |rank0 - single| = %1").arg(diff)));
    qInfo("max |rank 0 - single process| = %g (largest weight %g)", diff, scale);
    // The weights moved (the test would pass trivially with zero gradients).
    QVERIFY((ref - makeNetFlat(100)).abs().max().item<double>() > 1e-3);
    // Small buckets: several of them, and at least one all-reduce started before backward finished.
    const QStringList b =
        QString::fromStdString(ywb::readFile((dir.path() + "/buckets0").toStdString())).split(' ');
    QVERIFY(b[0].toInt() >= 3);
    QVERIFY(b[1].toInt() >= 1);
  }

  void syncBatchNormMatchesOneProcess() {
    if (!ywb::glooAvailable()) QSKIP("built without Gloo headers (libgloo-dev)");
    QTemporaryDir dir;
    runTwoWorkers("syncbn", dir.path());
    if (QTest::currentTestFailed()) return;
    const auto r0 = ywb::readSafetensors((dir.path() + "/bn0.safetensors").toStdString());
    const auto r1 = ywb::readSafetensors((dir.path() + "/bn1.safetensors").toStdString());
    // Reference: torch's BatchNorm2d in training mode on all 8 samples, same upstream gradient.
    const BnCase c = bnCase();
    torch::nn::BatchNorm2d bn = makeBn(c);
    at::Tensor x = c.x.clone().requires_grad_(true);
    const at::Tensor y = bn->forward(x);
    (y * c.r).sum().backward();
    auto close = [](const at::Tensor& a, const at::Tensor& b) {
      return (a - b).abs().max().item<double>() <= 1e-5 * std::max(1.0, b.abs().max().item<double>());
    };
    QVERIFY(close(at::cat({r0.at("y"), r1.at("y")}), y.detach()));
    QVERIFY(close(at::cat({r0.at("dx"), r1.at("dx")}), x.grad()));
    // Weight and bias gradients are per-rank partial sums: the reducer adds them up (loss x world / world).
    QVERIFY(close(r0.at("dw") + r1.at("dw"), bn->weight.grad()));
    QVERIFY(close(r0.at("db") + r1.at("db"), bn->bias.grad()));
    for (const auto* r : {&r0, &r1}) {  // both ranks hold the global running statistics
      QVERIFY(close(r->at("mean"), bn->running_mean));
      QVERIFY(close(r->at("var"), bn->running_var));
      QCOMPARE(r->at("count").item<int64_t>(), int64_t(1));
    }
    // Not vacuous: each half alone has different statistics than the whole batch.
    torch::nn::BatchNorm2d half = makeBn(c);
    QVERIFY(!close(half->forward(c.x.slice(0, 0, 4)), y.detach().slice(0, 0, 4)));
  }

 private:
  static at::Tensor makeNetFlat(uint64_t seed) {
    torch::nn::Sequential net = makeNet(seed);
    std::vector<at::Tensor> flat;
    for (auto& p : net->parameters()) flat.push_back(p.detach().reshape({-1}));
    return at::cat(flat);
  }
};

int main(int argc, char** argv) {
  if (const char* w = std::getenv("YWB_DIST_TEST_WORKER"); w) {
    try {
      return std::string(w) == "syncbn" ? syncBnWorker() : gradWorker();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "worker failed: %s\n", e.what());
      return 1;
    }
  }
  QCoreApplication app(argc, argv);
  TestDist t;
  return QTest::qExec(&t, argc, argv);
}

#include "test_dist.moc"
