#include "train/nonfinite_guard.h"

#include <torch/autograd.h>

#include <sstream>

namespace ywb {

std::vector<at::Tensor> NonFiniteGuard::floatBuffers(torch::nn::Module& model) {
  std::vector<at::Tensor> out;
  for (auto& b : model.buffers()) {
    if (b.is_floating_point()) out.push_back(b);
  }
  return out;
}

void NonFiniteGuard::beginWindow(torch::nn::Module& model, int epoch, int64_t batch) {
  torch::NoGradGuard no_grad;
  std::vector<at::Tensor> flat;
  for (auto& b : floatBuffers(model)) flat.push_back(b.detach().reshape({-1}).to(at::kFloat));
  saved_buffers_ = flat.empty() ? at::Tensor() : at::cat(flat);
  window_open_ = true;
  window_epoch_ = epoch;
  window_first_ = batch;
}

void NonFiniteGuard::closeWindow(bool stepped) {
  if (stepped) consecutive_ = 0;
  window_open_ = false;
}

void NonFiniteGuard::skipped(torch::nn::Module& model, int epoch, int64_t last_batch) {
  if (saved_buffers_.defined()) {
    torch::NoGradGuard no_grad;
    int64_t offset = 0;
    for (auto& b : floatBuffers(model)) {
      const int64_t n = b.numel();
      b.copy_(saved_buffers_.narrow(0, offset, n).view(b.sizes()));
      offset += n;
    }
  }
  ++consecutive_;
  ++epoch_skipped_;
  ++total_;
  // A window opened in the previous epoch (accumulation across the boundary) is listed from batch 0.
  const int64_t first = window_epoch_ == epoch ? window_first_ : 0;
  if (!epoch_ranges_.empty() && epoch_ranges_.back().second + 1 == first)
    epoch_ranges_.back().second = last_batch;
  else
    epoch_ranges_.emplace_back(first, last_batch);
  window_open_ = false;
}

int64_t NonFiniteGuard::takeEpochSkipped(int epoch, std::string* log_line) {
  const int64_t n = epoch_skipped_;
  if (log_line) {
    log_line->clear();
    if (n > 0) {
      std::ostringstream os;
      os << n << " optimizer step(s) skipped in epoch " << epoch + 1
         << ": NaN/Inf loss or gradients in batch(es) ";
      for (size_t k = 0; k < epoch_ranges_.size() && k < 20; ++k) {
        const auto& [a, b] = epoch_ranges_[k];
        os << (k ? ", " : "") << a + 1;
        if (b > a) os << "-" << b + 1;
      }
      if (epoch_ranges_.size() > 20) os << ", ...";
      os << " (weights, EMA and BatchNorm statistics kept from before them; " << total_
         << " skipped in this run)";
      *log_line = os.str();
    }
  }
  epoch_skipped_ = 0;
  epoch_ranges_.clear();
  return n;
}

void NonFiniteGuard::rolledBack() {
  ++rollbacks_;
  consecutive_ = 0;
  window_open_ = false;
  epoch_skipped_ = 0;
  epoch_ranges_.clear();
}

}  // namespace ywb
