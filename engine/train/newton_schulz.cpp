#include "train/newton_schulz.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <c10/util/BFloat16.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <map>
#include <utility>
#include <vector>

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

// One matrix on the calling thread, into `o` (rows x cols). `x16` is the matrix already scaled, in bfloat16
// (by ATen's operators, before the kernels' parallel region: no ATen call runs inside it).
void newtonSchulzCpu(const at::Tensor& x16, float* o) {
  const int64_t rows = x16.size(0), cols = x16.size(1);
  // The reference turns a tall matrix into a transposed view of itself; ATen then picks the other way of
  // summing for X Xᵀ and for (...) X, as the layout of X stays transposed through all five iterations.
  const bool tall = rows > cols;
  const int64_t n = std::min(rows, cols), k = std::max(rows, cols), nn = n * n, nk = n * k;
  std::vector<float> buf(size_t(3 * nk + 3 * nn));
  float *x = buf.data(), *xn = x + nk, *xt = xn + nk, *A = xt + nk, *cA = A + nn, *Bm = cA + nn;
  const c10::BFloat16* in = x16.data_ptr<c10::BFloat16>();
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t q = 0; q < cols; ++q) x[tall ? q * k + r : r * k + q] = float(in[r * cols + q]);
  const float a = coefficient(kA), b = coefficient(kB), c = coefficient(kC);
  for (int step = 0; step < kSteps; ++step) {
    for (int64_t i = 0; i < n; ++i)
      for (int64_t l = 0; l < k; ++l) xt[l * n + i] = x[i * k + l];
    // A = X Xᵀ: symmetric (A[i][j] and A[j][i] sum the same products in the same order), so half of it.
    (tall ? gemmRowsRounded : gemmRowsFloat)(x, xt, A, k, n, 0, n, true);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < i; ++j) A[i * n + j] = A[j * n + i];
    for (int64_t e = 0; e < nn; ++e) cA[e] = roundBf16(c * A[e]);
    // B = b A + (c A) A  (Python's `b * A + c * A @ A` multiplies c into A before the product)
    gemmRowsRounded(cA, A, Bm, n, n, 0, n, false);
    for (int64_t e = 0; e < nn; ++e) Bm[e] = roundBf16(roundBf16(b * A[e]) + Bm[e]);
    // X = a X + B X
    (tall ? gemmRowsFloat : gemmRowsRounded)(Bm, x, xn, n, k, 0, n, false);
    for (int64_t e = 0; e < nk; ++e) xn[e] = roundBf16(roundBf16(a * x[e]) + xn[e]);
    std::swap(x, xn);
  }
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t q = 0; q < cols; ++q) o[r * cols + q] = x[tall ? q * k + r : r * k + q];
}

// The matrices shared among LibTorch's threads in one parallel region (a region per product would cost more
// than the products of small matrices): each thread takes the next matrix, largest first, until none is left,
// so a thread the OS holds back on a busy machine leaves its share to the others.
std::vector<at::Tensor> newtonSchulzCpuAll(const std::vector<at::Tensor>& mats) {
  std::vector<size_t> order(mats.size());
  std::vector<double> cost(mats.size());
  for (size_t i = 0; i < mats.size(); ++i) {
    const double n = double(std::min(mats[i].size(0), mats[i].size(1)));
    const double k = double(std::max(mats[i].size(0), mats[i].size(1)));
    cost[i] = n * n * (1.5 * k + n) + n * k;
    order[i] = i;
  }
  std::sort(order.begin(), order.end(), [&](size_t x, size_t y) { return cost[x] > cost[y]; });
  // The scaling with ATen's own bfloat16 operators (the norm's float summation order is ATen's), and the
  // outputs allocated, before the parallel region.
  std::vector<at::Tensor> scaled(mats.size()), out(mats.size());
  for (size_t i = 0; i < mats.size(); ++i) {
    scaled[i] = mats[i].to(at::kBFloat16).contiguous();
    scaled[i].div_(scaled[i].norm() + kEps);
    out[i] = at::empty(mats[i].sizes(), mats[i].options());
  }
  std::atomic<size_t> next{0};
  const int64_t threads = std::min<int64_t>(std::max(1, at::get_num_threads()), int64_t(mats.size()));
  at::parallel_for(0, threads, 1, [&](int64_t, int64_t) {
    for (size_t j = next++; j < order.size(); j = next++)
      newtonSchulzCpu(scaled[order[j]], out[order[j]].data_ptr<float>());
  });
  return out;
}

int64_t nextPowerOfTwo(int64_t n) {
  int64_t p = 1;
  while (p < n) p *= 2;
  return p;
}

}  // namespace

std::vector<at::Tensor> newtonSchulz5(const std::vector<at::Tensor>& tensors) {
  for (const auto& m : tensors)
    TORCH_CHECK(m.dim() >= 2 && m.scalar_type() == at::kFloat && m.numel() > 0,
                "newtonSchulz5 expects non-empty float tensors of two or more dimensions");
  if (tensors.empty()) return {};
  if (tensors.front().is_cuda()) return newtonSchulz5Batched(tensors);
  std::vector<at::Tensor> mats;
  mats.reserve(tensors.size());
  for (const auto& t : tensors) mats.push_back(t.reshape({t.size(0), -1}));
  std::vector<at::Tensor> out = newtonSchulzCpuAll(mats);
  for (size_t i = 0; i < out.size(); ++i) out[i] = out[i].view(tensors[i].sizes());
  return out;
}

// Zero rows and columns stay zero through the iteration and change no other entry (X X^T gains zero rows and
// columns, so do B and B X) and the norm is the same, so a matrix padded with zeros holds its own result.
// yolo26n's 2+-dimensional weights fall into a few buckets this way where they had dozens of shapes, each a
// batch of 40-odd kernel launches (fourth GPU run: the optimizer 36.6 ms of MuSGD's 100.6 ms step).
std::vector<at::Tensor> newtonSchulz5Batched(const std::vector<at::Tensor>& tensors) {
  struct Item {
    size_t index;
    int64_t rows, cols;
  };
  std::map<int64_t, std::vector<Item>> buckets;  // by the smaller side rounded up to a power of two
  for (size_t i = 0; i < tensors.size(); ++i) {
    const int64_t rows = tensors[i].size(0), cols = tensors[i].numel() / rows;
    buckets[nextPowerOfTwo(std::min(rows, cols))].push_back({i, rows, cols});
  }
  std::vector<at::Tensor> out(tensors.size());
  for (const auto& [n_pad, items] : buckets) {
    int64_t k_pad = 0;
    for (const Item& it : items) k_pad = std::max(k_pad, std::max(it.rows, it.cols));
    // Each matrix wide (a tall one transposed, as the reference does), top left in its slot; the copy reads
    // the tensor in its logical order whatever its layout (channels-last weights included) and rounds it to
    // bfloat16.
    const auto slot = [&](const at::Tensor& batch, size_t j, const Item& it) {
      const bool tall = it.rows > it.cols;
      const at::Tensor s =
          batch[int64_t(j)].narrow(0, 0, std::min(it.rows, it.cols)).narrow(1, 0, std::max(it.rows, it.cols));
      return (tall ? s.t() : s).view(tensors[it.index].sizes());
    };
    at::Tensor x = at::zeros({int64_t(items.size()), n_pad, k_pad},
                             tensors[items.front().index].options().dtype(at::kBFloat16));
    for (size_t j = 0; j < items.size(); ++j) slot(x, j, items[j]).copy_(tensors[items[j].index]);
    x = x / (x.norm(2, {1, 2}, /*keepdim=*/true) + kEps);
    // On CUDA three batched products per iteration, the scalings folded into them (baddbmm: beta * self +
    // alpha * (a @ b)): kernel launches, not arithmetic, are this path's cost at yolo26n's sizes, and cuBLAS
    // computes a bfloat16 baddbmm in float and rounds once, fewer roundings than the separate operators
    // (emulated here, float products rounded to bfloat16 once each: max errors against the float64 iteration
    // 0.007-0.013 on test_musgd's tensors, the reference's 0.011-0.050). ATen's CPU bfloat16 baddbmm rounds
    // more than that (0.058-0.059 where the reference has 0.036-0.040), so elsewhere the separate operators.
    const bool fused = x.is_cuda();
    for (int step = 0; step < kSteps; ++step) {
      const at::Tensor A = at::bmm(x, x.transpose(1, 2));
      if (fused) {
        const at::Tensor B = at::baddbmm(A, A, A, /*beta=*/kB, /*alpha=*/kC);
        x = at::baddbmm(x, B, x, /*beta=*/kA, /*alpha=*/1.0);
      } else {
        const at::Tensor B = A * kB + at::bmm(A * kC, A);
        x = x * kA + at::bmm(B, x);
      }
    }
    const at::Tensor f = x.to(at::kFloat);
    for (size_t j = 0; j < items.size(); ++j) out[items[j].index] = slot(f, j, items[j]);
  }
  return out;
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
