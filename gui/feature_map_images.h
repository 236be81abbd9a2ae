// The Feature maps tab's pictures: a layer's channels as a grid of heat maps (each tile on its own min..max),
// and a detection head's per-level best-class-score maps side by side on one scale from 0 to the highest
// score of any level (scores are probabilities: comparable between levels; a weak model's scores stay
// visible). Thread rules: free functions on values (QImage only), safe on any thread.
#pragma once
#include <QImage>
#include <QString>
#include <vector>

#include "ywb/feature_maps.h"

namespace ywb::gui {

/// Mean, standard deviation, minimum and maximum of one channel of a map.
struct ChannelStats {
  double mean = 0, sd = 0, lo = 0, hi = 0;
};
ChannelStats channelStats(const ywb::FeatureMap& map, int channel);

/// A dark-blue -> teal -> yellow ramp for t in [0, 1] (clamped).
QRgb heatColour(double t);

/// The first `max_channels` channels of `map` in a near-square grid, each scaled to its own min..max, taken
/// from `stats` (channelStats of each channel, in order; a channel without its entry is not drawn). Colours
/// are heatColour's at 1,024 evenly spaced points of the ramp (a tile's values in 1,024 levels).
QImage channelMosaic(const ywb::FeatureMap& map, int max_channels, const std::vector<ChannelStats>& stats);

/// The head's one-channel score maps (extractHeadScoreMaps: P3, P4, P5), each enlarged to the finest level's
/// size so that a pixel covers the same image area in every tile, captioned "P3 (stride 8) WxH", on one
/// colour scale from 0 to the highest score of any level, drawn below them with that score.
QImage headScoreMosaic(const std::vector<ywb::FeatureMap>& levels);

/// "P3" for stride 8, "P4" for 16, "P5" for 32 (the pyramid level: stride = 2^level).
QString pyramidLevelName(int stride);

}  // namespace ywb::gui
