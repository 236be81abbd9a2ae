// A training batch as one picture (Ultralytics' train_batchN.jpg): up to 16 of its samples in a square grid,
// each with its labels' boxes and class names and its file's name, scaled so that the grid is at most 1920
// pixels wide.
// Thread rules: free function, reentrant.
#pragma once
#include <ATen/Tensor.h>

#include <opencv2/core.hpp>
#include <string>
#include <vector>

#include "data/box_drawing.h"

namespace ywb {

/// Largest number of samples in one picture, and the picture's largest side.
constexpr int kBatchPlotImages = 16;
constexpr int kBatchPlotMaxSide = 1920;

/// `images` uint8 [N, 3, H, W] RGB (any device), `targets` [M, 6] (image index, class, cx, cy, w, h
/// normalised to W, H), `paths` the samples' files. Sample i of the first 16 lies at row i / cols, column
/// i % cols, cols = ceil(sqrt(n)); a tile is W x H times min(1, 1920 / (cols * max(W, H))). Returns BGR.
cv::Mat renderBatch(const at::Tensor& images, const at::Tensor& targets,
                    const std::vector<std::string>& paths, const std::vector<std::string>& names);
/// The same grid with boxes given per image in the batch's pixels (with scores where they have them).
cv::Mat renderBatchBoxes(const at::Tensor& images, const std::vector<std::vector<DrawnBox>>& boxes,
                         const std::vector<std::string>& paths, const std::vector<std::string>& names);

}  // namespace ywb
