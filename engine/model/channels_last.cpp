#include "model/channels_last.h"

#include <torch/autograd.h>

namespace ywb::model {

int toChannelsLast(torch::nn::Module& m) {
  torch::NoGradGuard no_grad;
  int n = 0;
  for (auto& p : m.parameters()) {
    if (p.dim() != 4) continue;
    p.set_data(p.data().contiguous(at::MemoryFormat::ChannelsLast));
    ++n;
  }
  for (auto& b : m.buffers()) {
    if (b.dim() != 4) continue;
    b.set_data(b.data().contiguous(at::MemoryFormat::ChannelsLast));
    ++n;
  }
  return n;
}

}  // namespace ywb::model
