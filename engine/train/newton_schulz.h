// Muon's orthogonalisation: five Newton–Schulz iterations X <- a X + (b A + c A A) X, A = X Xᵀ, with
// (a, b, c) = (3.4445, -4.7750, 2.0315), in bfloat16, of each matrix first scaled to Frobenius norm <= 1
// (a matrix with more rows than columns is processed transposed). MuSGD (train/musgd.h) calls it once per
// step with all its matrices.
//
// On the CPU the result is bit-identical to what Ultralytics' Python code computes with PyTorch 1.13 on a CPU
// where PyTorch does not hand bfloat16 products to oneDNN (the reference of
// ../shared/fixtures/ultralytics84's MuSGD steps): each product is ATen's bfloat16 gemm, which sums in float
// for one operand layout and rounds every product and every partial sum to bfloat16 for the others, and every
// scalar coefficient is first rounded to bfloat16. Those rules are reproduced by vectorised float kernels
// (bfloat16 values held in floats), several times faster than ATen's scalar bfloat16 gemm and independent of
// whether this CPU has native bfloat16. The matrices are shared among LibTorch's threads, one parallel region
// per call. On CUDA the matrices are orthogonalised together in a few zero-padded batches of bfloat16
// products (bmm; not bit-exact to any CPU).
//
// Thread rules: reentrant; the CPU kernels use LibTorch's intra-op thread pool.
#pragma once
#include <ATen/core/Tensor.h>

#include <vector>

namespace ywb {

/// Orthogonalises every tensor ([rows, ...], float32, all on the CPU or all on one CUDA device), each taken
/// as the matrix [rows, numel / rows] of its values in logical order (a conv weight [out, in, kh, kw] as
/// [out, in * kh * kw], whatever its memory layout). Returns float32 tensors of the same shapes whose values
/// are bfloat16 numbers.
std::vector<at::Tensor> newtonSchulz5(const std::vector<at::Tensor>& tensors);

/// What newtonSchulz5 runs on CUDA, on any device (tests run it on the CPU): each matrix wide, zero-padded to
/// its bucket's shape (the smaller side rounded up to a power of two, the bucket's widest), one batch of
/// bmm products per bucket. The results are views into each bucket's output.
std::vector<at::Tensor> newtonSchulz5Batched(const std::vector<at::Tensor>& tensors);

/// The same arithmetic written with ATen's own bfloat16 operators on one matrix ([rows, cols]), exactly as
/// the reference does it. Slow; for tests, which compare it with newtonSchulz5 (call it with oneDNN's
/// bfloat16 matmul disabled, at::globalContext().setUserEnabledMkldnn(false), to get the reference's
/// arithmetic).
at::Tensor newtonSchulz5Reference(const at::Tensor& g);

}  // namespace ywb
