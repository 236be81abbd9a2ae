// CameraMotion: BoT-SORT's camera-motion estimate with OpenCV, by the published recipe (BoT-SORT's GMC as
// Ultralytics configures it): grey frames shrunk by `downscale`; sparse optical flow (Shi-Tomasi corners, up
// to 1000 at quality 0.01, tracked by pyramidal Lucas-Kanade), or ORB (FAST threshold 20) / SIFT keypoints
// matched by a 0.9 ratio test within a quarter of the frame, or ECC alignment of the blurred frames (a
// Euclidean motion, 5000 iterations to 1e-6); then a similarity transform by RANSAC, its shift scaled back to
// full-size pixels.
#include "track/camera_motion.h"

#include <opencv2/imgproc.hpp>

#include "core/error.h"

#ifdef YW_HAVE_OPENCV_MOTION
#include <opencv2/calib3d.hpp>
#include <opencv2/features2d.hpp>
#include <opencv2/video/tracking.hpp>
#endif

namespace ywb {

const char* gmcMethodName(GmcMethod m) {
  switch (m) {
    case GmcMethod::None:
      return "none";
    case GmcMethod::SparseOptFlow:
      return "sparseOptFlow";
    case GmcMethod::Orb:
      return "orb";
    case GmcMethod::Sift:
      return "sift";
    case GmcMethod::Ecc:
      return "ecc";
  }
  return "?";
}

namespace track {

bool cameraMotionBuilt() {
#ifdef YW_HAVE_OPENCV_MOTION
  return true;
#else
  return false;
#endif
}

struct CameraMotion::State {
  bool started = false;
  cv::Mat prev;                        // the previous (shrunk, grey) frame
  std::vector<cv::Point2f> prev_pts;   // its corners (sparseOptFlow)
  std::vector<cv::KeyPoint> prev_kps;  // its keypoints and their descriptors (orb, sift)
  cv::Mat prev_desc;
#ifdef YW_HAVE_OPENCV_MOTION
  cv::Ptr<cv::Feature2D> detector, extractor;
  cv::Ptr<cv::DescriptorMatcher> matcher;
#endif
};

CameraMotion::CameraMotion(GmcMethod method, int downscale)
    : method_(method), downscale_(std::max(1, downscale)), s_(std::make_unique<State>()) {
  if (method_ == GmcMethod::None) return;
#ifdef YW_HAVE_OPENCV_MOTION
  if (method_ == GmcMethod::Orb) {
    s_->detector = cv::FastFeatureDetector::create(20);
    s_->extractor = cv::ORB::create();
    s_->matcher = cv::BFMatcher::create(cv::NORM_HAMMING);
  } else if (method_ == GmcMethod::Sift) {
    s_->detector = s_->extractor = cv::SIFT::create(0, 3, 0.02, 20);
    s_->matcher = cv::BFMatcher::create(cv::NORM_L2);
  }
#else
  fail(
      "gmc_method: ", gmcMethodName(method_),
      ": this build has no camera-motion compensation (it needs OpenCV's video, calib3d and features2d "
      "modules: libopencv-video-dev, libopencv-calib3d-dev); use gmc_method: none or tracker=bytetrack.yaml");
#endif
}

CameraMotion::~CameraMotion() = default;

cv::Matx23d CameraMotion::apply(const cv::Mat& frame, const std::vector<DetBox>& boxes) {
  const cv::Matx23d identity(1, 0, 0, 0, 1, 0);
  if (method_ == GmcMethod::None || frame.empty()) return identity;
#ifdef YW_HAVE_OPENCV_MOTION
  cv::Mat grey;
  if (frame.channels() == 3)
    cv::cvtColor(frame, grey, cv::COLOR_BGR2GRAY);
  else
    grey = frame;
  const int w = frame.cols / downscale_, h = frame.rows / downscale_;
  if (downscale_ > 1) {
    if (method_ == GmcMethod::Ecc) cv::GaussianBlur(grey, grey, cv::Size(3, 3), 1.5);
    cv::resize(grey, grey, cv::Size(w, h));
  }
  State& s = *s_;
  // A frame of another size (one tracker over a folder of images of different sizes, persist=true) starts
  // afresh: nothing of the previous frame can be matched with it, so the motion is the identity.
  if (s.started && s.prev.size() != grey.size()) s.started = false;
  // prev -> this frame's points, to the transform (identity with fewer than 5 pairs or a failed estimate).
  auto similarity = [&](const std::vector<cv::Point2f>& from, const std::vector<cv::Point2f>& to) {
    if (from.size() <= 4) return identity;
    cv::Mat m = cv::estimateAffinePartial2D(from, to, cv::noArray(), cv::RANSAC);
    if (m.empty()) return identity;
    cv::Matx23d out = cv::Matx23d(m);
    out(0, 2) *= downscale_, out(1, 2) *= downscale_;
    return out;
  };
  cv::Matx23d warp = identity;

  if (method_ == GmcMethod::SparseOptFlow) {
    std::vector<cv::Point2f> pts;
    cv::goodFeaturesToTrack(grey, pts, 1000, 0.01, 1, cv::noArray(), 3, false, 0.04);
    if (s.started && !s.prev_pts.empty()) {
      std::vector<cv::Point2f> next;
      std::vector<unsigned char> status;
      std::vector<float> err;
      cv::calcOpticalFlowPyrLK(s.prev, grey, s.prev_pts, next, status, err);
      std::vector<cv::Point2f> from, to;
      for (size_t i = 0; i < status.size(); ++i)
        if (status[i]) from.push_back(s.prev_pts[i]), to.push_back(next[i]);
      warp = similarity(from, to);
    }
    s.prev_pts = std::move(pts);
  } else if (method_ == GmcMethod::Ecc) {
    if (s.started) {
      cv::Mat m = cv::Mat::eye(2, 3, CV_32F);
      try {
        cv::findTransformECC(s.prev, grey, m, cv::MOTION_EUCLIDEAN,
                             cv::TermCriteria(cv::TermCriteria::EPS | cv::TermCriteria::COUNT, 5000, 1e-6),
                             cv::noArray(), 1);
        warp = cv::Matx23d(cv::Matx23f(m));
        warp(0, 2) *= downscale_, warp(1, 2) *= downscale_;
      } catch (const cv::Exception&) {
        warp = identity;  // no convergence (a featureless or changed scene): no compensation this frame
      }
    }
  } else {  // orb, sift: keypoints away from the border and from the detections
    cv::Mat mask = cv::Mat::zeros(grey.size(), CV_8U);
    mask(cv::Rect(cv::Point(int(0.02 * w), int(0.02 * h)), cv::Point(int(0.98 * w), int(0.98 * h)))) = 255;
    for (const DetBox& b : boxes) {
      const cv::Rect r(cv::Point(int(b.x1 / float(downscale_)), int(b.y1 / float(downscale_))),
                       cv::Point(int(b.x2 / float(downscale_)), int(b.y2 / float(downscale_))));
      mask(r & cv::Rect(0, 0, w, h)) = 0;
    }
    std::vector<cv::KeyPoint> kps;
    cv::Mat desc;
    s.detector->detect(grey, kps, mask);
    s.extractor->compute(grey, kps, desc);
    if (s.started && !s.prev_desc.empty() && !desc.empty()) {
      std::vector<std::vector<cv::DMatch>> knn;
      s.matcher->knnMatch(s.prev_desc, desc, knn, 2);
      std::vector<cv::Point2f> from, to;
      std::vector<cv::Point2f> d;  // each pair's displacement
      for (const auto& mn : knn) {
        if (mn.size() < 2 || !(mn[0].distance < 0.9f * mn[1].distance)) continue;
        const cv::Point2f p = s.prev_kps[size_t(mn[0].queryIdx)].pt, q = kps[size_t(mn[0].trainIdx)].pt;
        if (std::abs(q.x - p.x) < 0.25f * float(w) && std::abs(q.y - p.y) < 0.25f * float(h))
          from.push_back(p), to.push_back(q), d.push_back(q - p);
      }
      // Displacements within 2.5 standard deviations of their mean, in x and in y.
      if (!d.empty()) {
        cv::Scalar mean, sd;
        cv::meanStdDev(cv::Mat(d), mean, sd);  // per channel: x and y
        std::vector<cv::Point2f> f2, t2;
        for (size_t i = 0; i < d.size(); ++i)
          if (std::abs(d[i].x - mean[0]) <= 2.5 * sd[0] && std::abs(d[i].y - mean[1]) <= 2.5 * sd[1])
            f2.push_back(from[i]), t2.push_back(to[i]);
        warp = similarity(f2, t2);
      }
    }
    s.prev_kps = std::move(kps);
    s.prev_desc = desc;
  }
  s.prev = grey.clone();
  s.started = true;
  return warp;
#else
  (void)boxes;
  return identity;
#endif
}

}  // namespace track
}  // namespace ywb
