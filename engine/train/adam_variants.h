// Adamax, NAdam and RAdam as PyTorch 2.x's torch.optim defines them (LibTorch's C++ API has none), which is
// how Ultralytics builds them: betas=(momentum, 0.999), eps 1e-8, L2 weight decay added to the gradient,
// NAdam's momentum_decay 0.004. One optimizer class with the variant in its options; a few multi-tensor
// kernels per group and step count. The algorithms are those of PyTorch's documentation;
// tests/engine/test_optimizers.cpp checks every variant against a float64 transcription of them and against
// PyTorch's own numbers. Thread rules: like any torch optimizer, one thread at a time.
#pragma once
#include <torch/optim/optimizer.h>

#include <string>
#include <tuple>
#include <vector>

namespace ywb {

enum class AdamVariantKind { Adamax, NAdam, RAdam };

/// "Adamax", "NAdam" or "RAdam".
const char* adamVariantName(AdamVariantKind kind);

struct AdamVariantOptions : public torch::optim::OptimizerCloneableOptions<AdamVariantOptions> {
  AdamVariantOptions(AdamVariantKind kind, double lr) : kind_(kind), lr_(lr) {}
  TORCH_ARG(AdamVariantKind, kind);
  TORCH_ARG(double, lr);
  typedef std::tuple<double, double> betas_t;
  TORCH_ARG(betas_t, betas) = std::make_tuple(0.9, 0.999);
  TORCH_ARG(double, eps) = 1e-8;
  TORCH_ARG(double, weight_decay) = 0;
  TORCH_ARG(double, momentum_decay) = 4e-3;  ///< NAdam's psi

 public:
  double get_lr() const override { return lr(); }
  void set_lr(const double v) override { lr(v); }
};

/// exp_avg is the first moment; exp_avg_sq the second (Adamax: the exponentially weighted infinity norm).
struct AdamVariantParamState : public torch::optim::OptimizerCloneableParamState<AdamVariantParamState> {
  TORCH_ARG(int64_t, step) = 0;
  TORCH_ARG(at::Tensor, exp_avg);
  TORCH_ARG(at::Tensor, exp_avg_sq);
};

class AdamVariant : public torch::optim::Optimizer {
 public:
  /// Every group needs AdamVariantOptions of the same kind (a group without options takes `defaults`).
  AdamVariant(std::vector<torch::optim::OptimizerParamGroup> groups, const AdamVariantOptions& defaults);
  at::Tensor step(LossClosure closure = nullptr) override;
  AdamVariantKind kind() const;

 private:
  /// NAdam's product of momentum coefficients mu_1 ... mu_t, accumulated in float32 as PyTorch keeps it; the
  /// products of every step count reached so far are kept (a function of the count, so not checkpointed).
  double nadamMuProduct(double beta1, double momentum_decay, int64_t t);

  AdamVariantKind kind_;
  std::vector<float> mu_products_;  ///< [t]: the product up to step t, for mu_beta1_ and mu_psi_
  double mu_beta1_ = 0, mu_psi_ = 0;
};

}  // namespace ywb
