// Minimum-cost matching of tracks to detections with a cost limit: what a tracker's association steps
// solve. Thread rules: a pure function, reentrant.
#pragma once
#include <utility>
#include <vector>

namespace ywb::track {

/// The matching of rows (tracks) to columns (detections) of `cost` (rows x cols, row-major) that minimises
/// the sum of the matched costs plus `limit` for every row-and-column pair left unmatched (limit / 2 for
/// each unmatched row and each unmatched column), which is the rule of lapjv with extend_cost and
/// cost_limit that ByteTrack's association uses. A pair costing more than `limit` is never matched (leaving
/// both is cheaper); one costing exactly `limit` may be. Returns the (row, column) pairs in row order.
/// Solved exactly: each group of rows and columns linked by pairs within the limit on its own, by shortest
/// augmenting paths with potentials (O(n^3) for n = the group's rows + columns).
std::vector<std::pair<int, int>> assignWithLimit(const std::vector<double>& cost, int rows, int cols,
                                                 double limit);

}  // namespace ywb::track
