#include "data/epoch_order.h"

#include "data/recent_images.h"
#include "data/sampler.h"

namespace ywb {

EpochOrder epochOrder(const LoaderOptions& opt, size_t n, int epoch, int reset_epoch, bool partner_buffer,
                      bool multi_image, const std::vector<size_t>& rect_order) {
  const bool shuffle = opt.shuffle && !opt.rect;
  EpochOrder e;
  if (shuffle && opt.world == 1 && partner_buffer && opt.ultralytics_workers >= 0) {
    const UltralyticsLoaderReplay r =
        ultralyticsLoaderReplay(n, epoch, reset_epoch, opt.ultralytics_workers > 0);
    UltralyticsStreamOptions so;
    so.workers = opt.ultralytics_workers, so.seed = opt.seed, so.val_images = opt.val_images;
    so.batch = size_t(opt.batch), so.buffer = RecentImages::capacityFor(n, opt.batch);
    so.imgsz = opt.imgsz, so.multi_image = multi_image;
    e.draws = ultralyticsDraws(r, epoch, so, opt.hyp);
    e.order = r.orders.back();
  } else if (shuffle && opt.world == 1) {
    e.order = ultralyticsTrainOrder(n, epoch, reset_epoch, partner_buffer ? &e.previous : nullptr);
  } else {
    e.order = distributedIndices(n, opt.rank, opt.world, shuffle, opt.seed, epoch, rect_order);
    if (partner_buffer && epoch > 0)
      e.previous = distributedIndices(n, opt.rank, opt.world, shuffle, opt.seed, epoch - 1, rect_order);
  }
  return e;
}

}  // namespace ywb
