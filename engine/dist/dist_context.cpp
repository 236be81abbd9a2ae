#include "dist/dist_context.h"

#include <chrono>
#include <cstdlib>
#include <map>
#include <sstream>
#include <thread>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/csrc/distributed/c10d/Types.hpp>
#include <torch/csrc/distributed/c10d/Work.hpp>

#include "core/error.h"
#include "dist/dist_watchdog.h"
#include "dist/process_group_factory.h"
#include YWB_C10D_COLLECTIVES_HEADER

namespace ywb {
namespace {

using Clock = std::chrono::steady_clock;

std::string firstLine(const std::string& s) {
  const size_t nl = s.find('\n');
  return nl == std::string::npos ? s : s.substr(0, nl);
}

c10::intrusive_ptr<c10d::TCPStore> connectStore(const DistEnv& e, bool server, double timeout_s) {
  c10d::TCPStoreOptions so;
  so.port = uint16_t(e.master_port);
  so.isServer = server;
  so.numWorkers = server ? c10::optional<std::size_t>(size_t(e.world)) : c10::nullopt;
  so.waitWorkers = false;
  so.timeout = std::chrono::milliseconds(int64_t(timeout_s * 1000.0));
#if YWB_TORCH_VERSION_NUMBER >= 20400
  // LibTorch >= 2.4 asks for its libuv store by default, and one built without libuv (Debian 13's 2.6)
  // refuses it ("use_libuv was requested but PyTorch was build without libuv support"): the classic store.
  try {
    return c10::make_intrusive<c10d::TCPStore>(e.master_addr, so);
  } catch (const std::exception& err) {
    if (std::string(err.what()).find("libuv") == std::string::npos) throw;
    so.useLibUV = false;
  }
#endif
  return c10::make_intrusive<c10d::TCPStore>(e.master_addr, so);
}

}  // namespace

struct DistContext::Impl {
  DistOptions opt;
  std::string backend;
  c10::intrusive_ptr<c10d::TCPStore> store;
  c10::intrusive_ptr<compat::C10dCollectives> pg;
  std::unique_ptr<DistWatchdog> watchdog;
  bool failed = false;
  bool finished = false;

  // Builds the message for a failed collective: which rank was lost (from the watchdog, waiting briefly
  // for it to notice) and what this rank was doing.
  [[noreturn]] void failCollective(const std::string& phase, const std::string& why) {
    failed = true;
    std::string lost = watchdog ? watchdog->problem() : "";
    if (lost.empty() && watchdog) lost = watchdog->waitForProblem(std::max(3.0, 8 * opt.heartbeat_s));
    std::ostringstream os;
    os << "distributed training stopped on rank " << opt.env.rank << " of " << opt.env.world << " during "
       << phase << ": " << (lost.empty() ? "a collective failed (no rank was seen exiting)" : lost);
    if (!why.empty()) os << " [c10d: " << firstLine(why) << "]";
    fail(os.str());
  }

  void checkPeers(const std::string& phase) {
    if (!watchdog) return;
    const std::string p = watchdog->problem();
    if (!p.empty()) failCollective(phase, "");
  }

  void run(const std::string& phase, const std::function<c10::intrusive_ptr<c10d::Work>()>& start) {
    if (watchdog) watchdog->setPhase(phase);
    checkPeers(phase);
    try {
      auto work = start();
      work->wait();
    } catch (const Error&) {
      throw;
    } catch (...) {
      failCollective(phase, describeCurrentException());
    }
  }
};

DistContext::DistContext(const DistOptions& o) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.opt = o;
  const DistEnv& e = o.env;
  m.backend = !o.backend.empty() ? o.backend : (o.device.is_cuda() ? "nccl" : "gloo");
  if (m.backend == "nccl") {
    // Let NCCL errors surface as exceptions instead of hangs (both spellings: LibTorch 1.13 and 2.x).
    ::setenv("NCCL_ASYNC_ERROR_HANDLING", "1", 0);
    ::setenv("TORCH_NCCL_ASYNC_ERROR_HANDLING", "1", 0);
  }
  const std::string where = e.master_addr + ":" + std::to_string(e.master_port);
  try {
    m.store = connectStore(e, e.rank == 0, o.timeout_s);
  } catch (...) {
    fail("rank ", e.rank, " of ", e.world, ": cannot reach the rendezvous store at ", where, " within ",
         o.timeout_s, " s (", firstLine(describeCurrentException()),
         "); check MASTER_ADDR/MASTER_PORT, that rank 0 started, and firewalls");
  }
  GroupRequest req;
  req.backend = m.backend;
  req.rank = e.rank;
  req.world = e.world;
  req.timeout_s = o.timeout_s;
  req.master_addr = e.master_addr;
  req.device_index = o.device.is_cuda() ? o.device.index() : -1;
  try {
    m.pg = createProcessGroup(m.store, req);
  } catch (const Error&) {
    throw;
  } catch (...) {
    fail("rank ", e.rank, " of ", e.world, ": joining the ", m.backend, " group via ", where,
         " failed within ", o.timeout_s, " s (", firstLine(describeCurrentException()), "); did all ",
         e.world, " ranks start?");
  }
  // The watchdog gets its own store connection: its thread runs while the trainer thread uses the store.
  const double lost_after = std::min(60.0, std::max(5.0, o.timeout_s / 10.0));
  m.watchdog = std::make_unique<DistWatchdog>(connectStore(e, false, std::min(o.timeout_s, 30.0)), e.rank,
                                              e.world, o.heartbeat_s, lost_after);
}

DistContext::~DistContext() {
  Impl& m = *impl_;
  if (m.watchdog && !m.finished && m.opt.env.rank == 0 && m.failed) {
    // Keep the store (hosted here) up a moment so the other ranks read why this rank stops.
    std::this_thread::sleep_for(std::chrono::duration<double>(4 * m.opt.heartbeat_s + 0.5));
  }
  m.watchdog.reset();
  m.pg.reset();
  m.store.reset();
}

int DistContext::rank() const {
  return impl_->opt.env.rank;
}
int DistContext::world() const {
  return impl_->opt.env.world;
}
int DistContext::localRank() const {
  return impl_->opt.env.local_rank;
}
int DistContext::localWorld() const {
  return impl_->opt.env.local_world;
}
at::Device DistContext::device() const {
  return impl_->opt.device;
}
const std::string& DistContext::backend() const {
  return impl_->backend;
}
std::string DistContext::describe() const {
  const DistEnv& e = impl_->opt.env;
  return "rank " + std::to_string(e.rank) + " of " + std::to_string(e.world) + " (" + impl_->backend +
         " via " + e.master_addr + ":" + std::to_string(e.master_port) + ")";
}

void DistContext::setPhase(const std::string& phase) {
  impl_->watchdog->setPhase(phase);
}
void DistContext::tick() {
  impl_->watchdog->tick();
}

DistContext::Waiter DistContext::allreduceAsync(at::Tensor flat, const std::string& phase) {
  Impl* m = impl_.get();
  c10::intrusive_ptr<c10d::Work> work;
  m->checkPeers(phase);
  try {
    std::vector<at::Tensor> v{flat};
    work = m->pg->allreduce(v);
  } catch (...) {
    m->failCollective(phase, describeCurrentException());
  }
  return [m, work, phase] {
    try {
      work->wait();
    } catch (...) {
      m->failCollective(phase, describeCurrentException());
    }
  };
}

void DistContext::allreduce(at::Tensor& t, bool max, const std::string& phase) {
  impl_->run(phase, [&] {
    std::vector<at::Tensor> v{t};
    c10d::AllreduceOptions ao;
    ao.reduceOp = max ? c10d::ReduceOp::MAX : c10d::ReduceOp::SUM;
    return impl_->pg->allreduce(v, ao);
  });
}

void DistContext::broadcast(const std::vector<at::Tensor>& tensors, const std::string& phase) {
  // One flat tensor per dtype: few large messages instead of hundreds of small ones.
  std::map<int, std::vector<at::Tensor>> by_type;
  for (const auto& t : tensors) {
    if (t.defined() && t.numel() > 0) by_type[int(t.scalar_type())].push_back(t);
  }
  for (auto& [type, group] : by_type) {
    std::vector<at::Tensor> flat_parts;
    for (const auto& t : group) flat_parts.push_back(t.detach().reshape({-1}));
    at::Tensor flat = at::cat(flat_parts);
    impl_->run(phase, [&] {
      std::vector<at::Tensor> v{flat};
      c10d::BroadcastOptions bo;
      bo.rootRank = 0;
      return impl_->pg->broadcast(v, bo);
    });
    if (rank() == 0) continue;
    int64_t off = 0;
    at::NoGradGuard no_grad;
    for (auto& t : group) {
      t.detach().copy_(flat.narrow(0, off, t.numel()).view(t.sizes()));
      off += t.numel();
    }
  }
}

void DistContext::barrier(const std::string& phase) {
  impl_->run(phase, [&] { return impl_->pg->barrier(); });
}

bool DistContext::anyTrue(bool local, const std::string& phase) {
  at::Tensor flag =
      at::full({1}, local ? 1 : 0, at::TensorOptions().dtype(at::kInt).device(impl_->opt.device));
  allreduce(flag, true, phase);
  return flag.item<int>() != 0;
}

void DistContext::waitForMain(const std::string& key, const std::string& phase) {
  Impl& m = *impl_;
  m.watchdog->setPhase(phase);
  if (rank() == 0) return;
  const std::string full = "ywb/main/" + key;
  for (;;) {
    m.checkPeers(phase);
    try {
      if (m.store->check({full})) return;
    } catch (...) {
      m.failCollective(phase, describeCurrentException());
    }
    const double idle = m.watchdog->progressAge(0);
    if (idle > m.opt.timeout_s) {
      std::ostringstream os;
      os << "rank 0 made no progress for " << idle << " s (dist_timeout " << m.opt.timeout_s
         << " s); its last phase was: " << m.watchdog->phaseOf(0);
      m.failed = true;
      fail("distributed training stopped on rank ", rank(), " of ", world(), " during ", phase, ": ",
           os.str());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

void DistContext::mainDone(const std::string& key) {
  if (rank() != 0) return;
  impl_->store->set("ywb/main/" + key, std::vector<uint8_t>{'1'});
}

double DistContext::maxDifferenceFromMain(const std::vector<at::Tensor>& tensors, const std::string& phase) {
  std::vector<at::Tensor> parts;
  for (const auto& t : tensors) {
    if (t.defined() && t.numel() > 0) parts.push_back(t.detach().to(at::kDouble).reshape({-1}));
  }
  if (parts.empty()) return 0;
  at::Tensor mine = at::cat(parts);
  at::Tensor main = mine.clone();
  broadcast({main}, phase);
  at::Tensor diff = (mine - main).abs().max().to(at::kFloat).reshape({1});
  allreduce(diff, true, phase);
  return diff.item<double>();
}

void DistContext::reportFailure(const std::string& message) {
  impl_->failed = true;
  if (impl_->watchdog) impl_->watchdog->publishFailure(message);
}

void DistContext::finish() {
  barrier("the final barrier");
  impl_->finished = true;
  impl_->watchdog->stop();
}

}  // namespace ywb
