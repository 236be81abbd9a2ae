#include "track/linear_assignment.h"

#include <algorithm>
#include <limits>

namespace ywb::track {
namespace {

// Minimum-cost perfect assignment of an n x n matrix (rows to columns) by successive shortest augmenting
// paths with row and column potentials (the Hungarian method in its O(n^3) form). Returns each row's
// column.
std::vector<int> solveSquare(const std::vector<double>& a, int n) {
  const double inf = std::numeric_limits<double>::infinity();
  // 1-based with a virtual column 0 that holds the row being inserted.
  std::vector<double> u(size_t(n) + 1, 0), v(size_t(n) + 1, 0);
  std::vector<int> row_of(size_t(n) + 1, 0), way(size_t(n) + 1, 0);
  for (int i = 1; i <= n; ++i) {
    row_of[0] = i;
    int j0 = 0;
    std::vector<double> minv(size_t(n) + 1, inf);
    std::vector<char> used(size_t(n) + 1, 0);
    do {
      used[size_t(j0)] = 1;
      const int i0 = row_of[size_t(j0)];
      double delta = inf;
      int j1 = 0;
      for (int j = 1; j <= n; ++j) {
        if (used[size_t(j)]) continue;
        const double cur = a[size_t(i0 - 1) * size_t(n) + size_t(j - 1)] - u[size_t(i0)] - v[size_t(j)];
        if (cur < minv[size_t(j)]) minv[size_t(j)] = cur, way[size_t(j)] = j0;
        if (minv[size_t(j)] < delta) delta = minv[size_t(j)], j1 = j;
      }
      for (int j = 0; j <= n; ++j) {
        if (used[size_t(j)]) {
          u[size_t(row_of[size_t(j)])] += delta;
          v[size_t(j)] -= delta;
        } else {
          minv[size_t(j)] -= delta;
        }
      }
      j0 = j1;
    } while (row_of[size_t(j0)] != 0);
    do {  // flip the alternating path back to the virtual column
      const int j1 = way[size_t(j0)];
      row_of[size_t(j0)] = row_of[size_t(j1)];
      j0 = j1;
    } while (j0 != 0);
  }
  std::vector<int> col_of(size_t(n), -1);
  for (int j = 1; j <= n; ++j)
    if (row_of[size_t(j)] > 0) col_of[size_t(row_of[size_t(j)] - 1)] = j - 1;
  return col_of;
}

// One connected group of rows and columns (pairs within the limit link them), solved as the extended
// square problem: rows then one dummy per column; columns then one dummy per row. A real row on a dummy
// column (left unmatched) costs limit / 2, as does a dummy row on a real column; dummy with dummy costs
// nothing. A real pair above the limit is replaced by a value that can never win (above the 2 x limit / 2
// of leaving both), so that infinite or huge costs cannot spoil the arithmetic.
void solveGroup(const std::vector<double>& cost, int cols, double limit, const std::vector<int>& rs,
                const std::vector<int>& cs, std::vector<std::pair<int, int>>& matches) {
  const int r = int(rs.size()), c = int(cs.size()), n = r + c;
  const double half = limit / 2, never = std::max(limit, 0.0) * 2 + 1;
  std::vector<double> a(size_t(n) * size_t(n), 0);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      double& x = a[size_t(i) * size_t(n) + size_t(j)];
      if (i < r && j < c) {
        const double v = cost[size_t(rs[size_t(i)]) * size_t(cols) + size_t(cs[size_t(j)])];
        x = v <= limit ? v : never;
      } else if (i < r || j < c) {
        x = half;
      }
    }
  }
  const std::vector<int> col_of = solveSquare(a, n);
  for (int i = 0; i < r; ++i) {
    const int j = col_of[size_t(i)];
    if (j >= 0 && j < c && cost[size_t(rs[size_t(i)]) * size_t(cols) + size_t(cs[size_t(j)])] <= limit)
      matches.emplace_back(rs[size_t(i)], cs[size_t(j)]);
  }
}

int findRoot(std::vector<int>& parent, int x) {
  while (parent[size_t(x)] != x) x = parent[size_t(x)] = parent[size_t(parent[size_t(x)])];
  return x;
}

}  // namespace

std::vector<std::pair<int, int>> assignWithLimit(const std::vector<double>& cost, int rows, int cols,
                                                 double limit) {
  std::vector<std::pair<int, int>> matches;
  if (rows <= 0 || cols <= 0) return matches;
  // The objective adds a constant per unmatched row and column, so groups of rows and columns that no
  // pair within the limit links are independent problems: each is solved alone (a video's objects are
  // mostly groups of one track and one detection), which keeps a frame of hundreds of objects fast.
  std::vector<int> parent(size_t(rows + cols));
  for (size_t k = 0; k < parent.size(); ++k) parent[k] = int(k);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j)
      if (cost[size_t(i) * size_t(cols) + size_t(j)] <= limit)
        parent[size_t(findRoot(parent, i))] = findRoot(parent, rows + j);
  std::vector<std::vector<int>> group_rows(parent.size()), group_cols(parent.size());
  for (int i = 0; i < rows; ++i) group_rows[size_t(findRoot(parent, i))].push_back(i);
  for (int j = 0; j < cols; ++j) group_cols[size_t(findRoot(parent, rows + j))].push_back(j);
  for (size_t g = 0; g < parent.size(); ++g)
    if (!group_rows[g].empty() && !group_cols[g].empty())
      solveGroup(cost, cols, limit, group_rows[g], group_cols[g], matches);
  std::sort(matches.begin(), matches.end());
  return matches;
}

}  // namespace ywb::track
