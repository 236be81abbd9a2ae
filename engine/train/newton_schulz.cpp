#include "train/newton_schulz.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <c10/util/BFloat16.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace ywb {
namespace {

constexpr double kA = 3.4445, kB = -4.7750, kC = 2.0315;  // the quintic's coefficients
constexpr double kEps = 1e-7;
constexpr int kSteps = 5;

// The products are the time; they get a copy per vector width, chosen at run time (the build targets plain
// x86-64). Every variant does the same IEEE float operations, so all give identical bits.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define YWB_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define YWB_VECTOR_CLONES
#endif

// float -> nearest bfloat16 (ties to even), kept as a float: c10::BFloat16's rounding for every number and
// infinity. (c10 also maps every NaN to 0x7FC0; the NaNs here are ATen's bfloat16 NaNs or what arithmetic
// makes of them, 0x7FC00000 or 0xFFC00000, which this keeps as they are. Skipping that test is 20% of the
// time.)
inline float roundBf16(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  u += 0x7FFFu + ((u >> 16) & 1u);
  u &= 0xFFFF0000u;
  float y;
  std::memcpy(&y, &u, sizeof y);
  return y;
}

// A scalar coefficient as ATen's CPU kernels apply it to a bfloat16 tensor: rounded to bfloat16 first.
inline float coefficient(double v) {
  return float(c10::BFloat16(float(v)));
}

constexpr int64_t kRows = 4;   // rows of C per tile: each loaded element of Q serves four products
constexpr int64_t kTile = 16;  // columns of C per tile: the 4 x 16 sums stay in vector registers

// One term of an element's sum (see gemmRows).
template <bool Rounded>
inline __attribute__((always_inline)) float accumulate(float c, float a, float q) {
  if constexpr (Rounded)
    return roundBf16(c + roundBf16(a * q));
  else
    return c + a * q;
}

// Rows [i0, i1) of C = P Q (P n x k, Q k x m, row-major; every value a bfloat16 number). Each element sums
// its k products in the order l = 0..k-1, like ATen's reference gemm, in one of its two ways:
//  - Rounded = false: in float, rounded to bfloat16 once at the end (ATen when Q is a transposed view);
//  - Rounded = true: every product rounded to bfloat16, then added to a bfloat16 sum (ATen's c += a * b on
//    BFloat16 elements, its other layouts).
// Products of two bfloat16 numbers are exact in float, so a fused multiply-add gives the same bits.
// upper: only the tiles on or right of the diagonal (a symmetric result is mirrored by the caller).
template <bool Rounded>
inline __attribute__((always_inline)) void gemmRows(const float* P, const float* Q, float* C, int64_t k,
                                                    int64_t m, int64_t i0, int64_t i1, bool upper) {
  for (int64_t ib = i0; ib < i1; ib += kRows) {
    const int64_t rows = std::min(kRows, i1 - ib);
    for (int64_t jb = upper ? ib - ib % kTile : 0; jb < m; jb += kTile) {
      const int64_t cols = std::min(kTile, m - jb);
      if (rows == kRows && cols == kTile) {
        float acc[kRows][kTile] = {};
        const float *p0 = P + ib * k, *p1 = p0 + k, *p2 = p1 + k, *p3 = p2 + k;
        for (int64_t l = 0; l < k; ++l) {
          const float* q = Q + l * m + jb;
          const float a0 = p0[l], a1 = p1[l], a2 = p2[l], a3 = p3[l];
          for (int64_t j = 0; j < kTile; ++j) {
            acc[0][j] = accumulate<Rounded>(acc[0][j], a0, q[j]);
            acc[1][j] = accumulate<Rounded>(acc[1][j], a1, q[j]);
            acc[2][j] = accumulate<Rounded>(acc[2][j], a2, q[j]);
            acc[3][j] = accumulate<Rounded>(acc[3][j], a3, q[j]);
          }
        }
        for (int64_t r = 0; r < kRows; ++r)
          for (int64_t j = 0; j < kTile; ++j)
            C[(ib + r) * m + jb + j] = Rounded ? acc[r][j] : roundBf16(acc[r][j]);
      } else {  // the edges
        for (int64_t r = 0; r < rows; ++r) {
          const float* p = P + (ib + r) * k;
          float acc[kTile] = {};
          for (int64_t l = 0; l < k; ++l)
            for (int64_t j = 0; j < cols; ++j) acc[j] = accumulate<Rounded>(acc[j], p[l], Q[l * m + jb + j]);
          for (int64_t j = 0; j < cols; ++j) C[(ib + r) * m + jb + j] = Rounded ? acc[j] : roundBf16(acc[j]);
        }
      }
    }
  }
}

YWB_VECTOR_CLONES void gemmRowsFloat(const float* P, const float* Q, float* C, int64_t k, int64_t m,
                                     int64_t i0, int64_t i1, bool upper) {
  gemmRows<false>(P, Q, C, k, m, i0, i1, upper);
}

YWB_VECTOR_CLONES void gemmRowsRounded(const float* P, const float* Q, float* C, int64_t k, int64_t m,
                                       int64_t i0, int64_t i1, bool upper) {
  gemmRows<true>(P, Q, C, k, m, i0, i1, upper);
}

// C = P Q for every matrix of the batch (P [batch, n, kk], Q [batch, kk, m]), then `epilogue(b, i0, i1)` on
// the finished rows. Rows of all matrices are shared among LibTorch's threads.
template <class Epilogue>
void batchedGemm(bool rounded, const float* P, const float* Q, float* C, int64_t batch, int64_t n, int64_t kk,
                 int64_t m, bool upper, const Epilogue& epilogue) {
  const int64_t grain = std::max<int64_t>(1, (int64_t(1) << 15) / std::max<int64_t>(1, kk * m));
  at::parallel_for(0, batch * n, grain, [&](int64_t r0, int64_t r1) {
    while (r0 < r1) {
      const int64_t b = r0 / n, i0 = r0 % n, i1 = std::min(n, i0 + (r1 - r0));
      (rounded ? gemmRowsRounded : gemmRowsFloat)(P + b * n * kk, Q + b * kk * m, C + b * n * m, kk, m, i0,
                                                  i1, upper);
      epilogue(b, i0, i1);
      r0 += i1 - i0;
    }
  });
}

at::Tensor newtonSchulzCpu(const at::Tensor& u) {
  const int64_t batch = u.size(0), rows = u.size(1), cols = u.size(2);
  // The reference turns a tall matrix into a transposed view of itself; ATen then picks the other way of
  // summing for X Xᵀ and for (...) X, as the layout of X stays transposed through all five iterations.
  const bool tall = rows > cols;
  const int64_t n = std::min(rows, cols), k = std::max(rows, cols);
  const auto f32 = u.options().dtype(at::kFloat);
  at::Tensor x_t = at::empty({batch, n, k}, f32), xn_t = at::empty({batch, n, k}, f32);
  at::Tensor xt_t = at::empty({batch, k, n}, f32), a_t = at::empty({batch, n, n}, f32);
  at::Tensor ca_t = at::empty({batch, n, n}, f32), bm_t = at::empty({batch, n, n}, f32);
  for (int64_t b = 0; b < batch; ++b) {
    // The scaling with ATen's own bfloat16 operators (the norm's float summation order is ATen's).
    at::Tensor xb = u[b].to(at::kBFloat16);
    xb.div_(xb.norm() + kEps);
    x_t[b].copy_(tall ? xb.t() : xb);
  }
  const float a = coefficient(kA), bc = coefficient(kB), c = coefficient(kC);
  float *x = x_t.data_ptr<float>(), *xn = xn_t.data_ptr<float>(), *xt = xt_t.data_ptr<float>();
  float *A = a_t.data_ptr<float>(), *cA = ca_t.data_ptr<float>(), *Bm = bm_t.data_ptr<float>();
  const int64_t nn = n * n, nk = n * k;
  for (int step = 0; step < kSteps; ++step) {
    at::parallel_for(0, batch, 1, [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b)
        for (int64_t i = 0; i < n; ++i)
          for (int64_t l = 0; l < k; ++l) xt[b * nk + l * n + i] = x[b * nk + i * k + l];
    });
    // A = X Xᵀ: symmetric (A[i][j] and A[j][i] sum the same products in the same order), so half of it.
    batchedGemm(tall, x, xt, A, batch, n, k, n, true, [](int64_t, int64_t, int64_t) {});
    at::parallel_for(0, batch, 1, [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b) {
        float* ab = A + b * nn;
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = 0; j < i; ++j) ab[i * n + j] = ab[j * n + i];
        for (int64_t e = 0; e < nn; ++e) cA[b * nn + e] = roundBf16(c * ab[e]);
      }
    });
    // B = b A + (c A) A  (Python's `b * A + c * A @ A` multiplies c into A before the product)
    batchedGemm(true, cA, A, Bm, batch, n, n, n, false, [&](int64_t b, int64_t i0, int64_t i1) {
      for (int64_t e = b * nn + i0 * n; e < b * nn + i1 * n; ++e)
        Bm[e] = roundBf16(roundBf16(bc * A[e]) + Bm[e]);
    });
    // X = a X + B X
    batchedGemm(!tall, Bm, x, xn, batch, n, n, k, false, [&](int64_t b, int64_t i0, int64_t i1) {
      for (int64_t e = b * nk + i0 * k; e < b * nk + i1 * k; ++e)
        xn[e] = roundBf16(roundBf16(a * x[e]) + xn[e]);
    });
    std::swap(x, xn);
  }
  const at::Tensor out = x == x_t.data_ptr<float>() ? x_t : xn_t;
  return tall ? out.transpose(1, 2).contiguous() : out;
}

// CUDA: the same operators batched, in bfloat16 (its float accumulation is cuBLAS's).
at::Tensor newtonSchulzCuda(const at::Tensor& u) {
  const bool tall = u.size(1) > u.size(2);
  at::Tensor x = u.to(at::kBFloat16);
  x = x / (x.norm(2, {1, 2}, /*keepdim=*/true) + kEps);
  if (tall) x = x.transpose(1, 2);
  for (int step = 0; step < kSteps; ++step) {
    const at::Tensor A = at::bmm(x, x.transpose(1, 2));
    const at::Tensor B = A * kB + at::bmm(A * kC, A);
    x = x * kA + at::bmm(B, x);
  }
  if (tall) x = x.transpose(1, 2);
  return x.to(at::kFloat).contiguous();
}

}  // namespace

at::Tensor newtonSchulz5(const at::Tensor& u) {
  TORCH_CHECK(u.dim() == 3 && u.scalar_type() == at::kFloat,
              "newtonSchulz5 expects float [batch, rows, cols]");
  if (u.numel() == 0) return u.clone();
  if (u.is_cuda()) return newtonSchulzCuda(u);
  return newtonSchulzCpu(u.contiguous());
}

at::Tensor newtonSchulz5Reference(const at::Tensor& g) {
  at::Tensor x = g.to(at::kBFloat16);
  x.div_(x.norm() + kEps);
  const bool tall = g.size(0) > g.size(1);
  if (tall) x = x.t();
  for (int step = 0; step < kSteps; ++step) {
    const at::Tensor A = x.mm(x.t());
    const at::Tensor B = A * kB + (A * kC).mm(A);
    x = x * kA + B.mm(x);
  }
  if (tall) x = x.t();
  return x.to(at::kFloat);
}

}  // namespace ywb
