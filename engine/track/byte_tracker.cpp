#include "track/byte_tracker.h"

#include <algorithm>
#include <set>

#include "core/error.h"
#include "eval/host_box_iou.h"
#include "track/linear_assignment.h"

namespace ywb::track {

// One object: its motion, its last detection's score and class, and where it is in its life.
struct ByteTracker::Track {
  Track(BoxForm form, const DetBox& d, const Appearance& a) : kf(form, measure(form, d)), det(d), look(a) {}
  KalmanBox kf;
  DetBox det;           // the last matched detection (score and class; the box is the filter's)
  Appearance look;      // with ReID: the matched detections' features, smoothed
  int id = 0;           // 0 until activated
  bool tracked = true;  // false: lost (unmatched, kept for track_buffer frames)
  bool confirmed = false;
  int start = 0, last = 0;  // frames it started in and was last matched in

  static cv::Vec4d measure(BoxForm form, const DetBox& d) {
    return KalmanBox::measure(form, d.x1, d.y1, d.x2, d.y2);
  }
  DetBox box() const {
    const cv::Vec4d c = kf.corners();
    DetBox out = det;
    out.x1 = float(c[0]), out.y1 = float(c[1]), out.x2 = float(c[2]), out.y2 = float(c[3]);
    out.track_id = id;
    return out;
  }
};

namespace {

using TrackPtr = ByteTracker::TrackPtr;

// a, then the tracks of b whose ids a lacks.
std::vector<TrackPtr> joined(std::vector<TrackPtr> a, const std::vector<TrackPtr>& b) {
  std::set<int> ids;
  for (const auto& t : a) ids.insert(t->id);
  for (const auto& t : b)
    if (ids.insert(t->id).second) a.push_back(t);
  return a;
}

// a without the tracks whose ids b holds.
std::vector<TrackPtr> without(const std::vector<TrackPtr>& a, const std::vector<TrackPtr>& b) {
  std::set<int> ids;
  for (const auto& t : b) ids.insert(t->id);
  std::vector<TrackPtr> out;
  for (const auto& t : a)
    if (!ids.count(t->id)) out.push_back(t);
  return out;
}

}  // namespace

ByteTracker::ByteTracker(const TrackerOptions& options)
    : o_(options), form_(options.type == TrackerType::BotSort ? BoxForm::Xywh : BoxForm::Xyah) {
  if (compensatesCameraMotion(o_)) motion_ = std::make_unique<CameraMotion>(o_.gmc_method);
}
ByteTracker::~ByteTracker() = default;

std::vector<double> ByteTracker::costs(const std::vector<TrackPtr>& tracks, const std::vector<DetBox>& dets,
                                       bool fuse_score, const std::vector<Appearance>* looks) const {
  std::vector<double> c(tracks.size() * dets.size());
  for (size_t i = 0; i < tracks.size(); ++i) {
    const DetBox b = tracks[i]->box();
    for (size_t j = 0; j < dets.size(); ++j) {
      const double iou = eval::hostBoxIou(b, dets[j]);
      double cost = 1 - iou * (fuse_score ? dets[j].score : 1.0);
      // BoT-SORT's ReID: a pair that overlaps enough (1 - IoU at most proximity_thresh) and looks alike
      // (halved cosine distance at most appearance_thresh) costs the lower of the two.
      if (looks && 1 - iou <= o_.proximity_thresh) {
        const double look = appearanceCost(tracks[i]->look, (*looks)[j]);
        if (look <= o_.appearance_thresh) cost = std::min(cost, look);
      }
      c[i * dets.size() + j] = cost;
    }
  }
  return c;
}

void ByteTracker::activate(Track& t) {
  t.id = next_id_++;
  t.tracked = true;
  t.confirmed = frame_ == 1;  // objects of the first frame are trusted at once; later ones need a match
  t.start = t.last = frame_;
}

void ByteTracker::follow(Track& t, const DetBox& det, const Appearance& look) {
  t.kf.update(Track::measure(form_, det));
  t.det = det;
  t.look.update(look.current);
  t.tracked = true;
  t.confirmed = true;
  t.last = frame_;
}

std::vector<DetBox> ByteTracker::update(const std::vector<DetBox>& detections, const cv::Mat& frame,
                                        const Features& features) {
  const bool reid = usesAppearance() && !features.empty();
  if (reid && features.size() != detections.size())
    fail("tracker: ", features.size(), " ReID feature vectors for ", detections.size(), " detections");
  ++frame_;
  std::vector<DetBox> high, low;
  std::vector<Appearance> high_look, low_look;  // with ReID, each detection's features
  for (size_t k = 0; k < detections.size(); ++k) {
    const DetBox& d = detections[k];
    Appearance look;
    if (reid) look.update(features[k]);
    if (d.score >= o_.track_high_thresh) {
      high.push_back(d);
      high_look.push_back(std::move(look));
    } else if (d.score > o_.track_low_thresh) {
      low.push_back(d);
      low_look.push_back(std::move(look));
    }
  }
  const std::vector<Appearance>* looks = reid ? &high_look : nullptr;
  std::vector<TrackPtr> confirmed, unconfirmed;
  for (const auto& t : tracked_) (t->confirmed ? confirmed : unconfirmed).push_back(t);
  std::vector<TrackPtr> found, refound, newly_lost, removed;

  // 1. High-score detections against the confirmed and the lost tracks, each moved one frame ahead (a
  // lost one without its growth) and, with BoT-SORT, with the camera (the unconfirmed ones too).
  const std::vector<TrackPtr> pool = joined(confirmed, lost_);
  for (const auto& t : pool) {
    if (!t->tracked) t->kf.stopGrowth();
    t->kf.predict();
  }
  if (motion_ && !frame.empty()) {
    const cv::Matx23d warp = motion_->apply(frame, high);
    for (const auto& t : pool) t->kf.warp(warp);
    for (const auto& t : unconfirmed) t->kf.warp(warp);
  }
  std::vector<bool> pool_matched(pool.size(), false), high_matched(high.size(), false);
  for (const auto& [i, j] : assignWithLimit(costs(pool, high, o_.fuse_score, looks), int(pool.size()),
                                            int(high.size()), o_.match_thresh)) {
    Track& t = *pool[size_t(i)];
    (t.tracked ? found : refound).push_back(pool[size_t(i)]);
    follow(t, high[size_t(j)], high_look[size_t(j)]);
    pool_matched[size_t(i)] = high_matched[size_t(j)] = true;
  }

  // 2. Low-score detections against the tracked objects left over (IoU alone, 1 - IoU at most 0.5).
  std::vector<TrackPtr> left;
  for (size_t i = 0; i < pool.size(); ++i)
    if (!pool_matched[i] && pool[i]->tracked) left.push_back(pool[i]);
  std::vector<bool> left_matched(left.size(), false);
  for (const auto& [i, j] :
       assignWithLimit(costs(left, low, false), int(left.size()), int(low.size()), 0.5)) {
    follow(*left[size_t(i)], low[size_t(j)], low_look[size_t(j)]);
    found.push_back(left[size_t(i)]);
    left_matched[size_t(i)] = true;
  }
  for (size_t i = 0; i < left.size(); ++i) {
    if (left_matched[i]) continue;
    left[i]->tracked = false;
    newly_lost.push_back(left[i]);
  }

  // 3. The remaining high-score detections against the tracks still waiting for their second match.
  std::vector<DetBox> rest;
  std::vector<Appearance> rest_look;
  for (size_t j = 0; j < high.size(); ++j) {
    if (high_matched[j]) continue;
    rest.push_back(high[j]);
    rest_look.push_back(high_look[j]);
  }
  std::vector<bool> unconfirmed_matched(unconfirmed.size(), false), rest_matched(rest.size(), false);
  for (const auto& [i, j] :
       assignWithLimit(costs(unconfirmed, rest, o_.fuse_score, reid ? &rest_look : nullptr),
                       int(unconfirmed.size()), int(rest.size()), 0.7)) {
    follow(*unconfirmed[size_t(i)], rest[size_t(j)], rest_look[size_t(j)]);
    found.push_back(unconfirmed[size_t(i)]);
    unconfirmed_matched[size_t(i)] = rest_matched[size_t(j)] = true;
  }
  for (size_t i = 0; i < unconfirmed.size(); ++i)
    if (!unconfirmed_matched[i]) removed.push_back(unconfirmed[i]);

  // 4. New tracks from what is left, where the score is high enough.
  for (size_t j = 0; j < rest.size(); ++j) {
    if (rest_matched[j] || rest[j].score < o_.new_track_thresh) continue;
    auto t = std::make_shared<Track>(form_, rest[j], rest_look[j]);
    activate(*t);
    found.push_back(t);
  }

  // 5. Lost tracks older than the buffer are dropped; the lists are brought up to date.
  // The buffer counts frames of a 30 fps video, and every video is taken as 30 fps (as Ultralytics does).
  for (const auto& t : lost_)
    if (frame_ - t->last > o_.track_buffer) removed.push_back(t);
  // Tracked before and still: not lost, and not removed (unconfirmed and unmatched).
  std::vector<TrackPtr> still;
  for (const auto& t : tracked_)
    if (t->tracked) still.push_back(t);
  tracked_ = joined(joined(without(still, removed), found), refound);
  lost_ = without(lost_, tracked_);
  lost_.insert(lost_.end(), newly_lost.begin(), newly_lost.end());
  lost_ = without(lost_, removed);

  // A tracked and a lost track on the same place (1 - IoU below 0.15) are one object: the one followed
  // longer stays.
  std::set<int> drop_tracked, drop_lost;
  for (const auto& a : tracked_) {
    for (const auto& b : lost_) {
      if (1 - eval::hostBoxIou(a->box(), b->box()) >= 0.15) continue;
      if (a->last - a->start > b->last - b->start)
        drop_lost.insert(b->id);
      else
        drop_tracked.insert(a->id);
    }
  }
  auto drop = [](std::vector<TrackPtr>& v, const std::set<int>& ids) {
    v.erase(std::remove_if(v.begin(), v.end(), [&](const TrackPtr& t) { return ids.count(t->id) > 0; }),
            v.end());
  };
  drop(tracked_, drop_tracked);
  drop(lost_, drop_lost);

  std::vector<DetBox> out;
  for (const auto& t : tracked_)
    if (t->confirmed) out.push_back(t->box());
  return out;
}

}  // namespace ywb::track
