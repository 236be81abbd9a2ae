#!/usr/bin/env python3
"""An independent model of Ultralytics' training-sample pipeline for one Mosaic epoch (not a test): load (long side
to imgsz, bilinear), Mosaic-4 with partners from each loader process's buffer of recently loaded images,
RandomPerspective (border -imgsz/2, fill 114, bilinear), the HSV tables, horizontal flip; written from
Ultralytics' published behaviour with real OpenCV/NumPy calls (Debian: python3-opencv, python3-numpy). It writes
the finished samples as a YOLO dataset (lossless PNG + labels), which train_loss_probe scores with every
augmentation off (docs/PARITY.md, session 11):

  /usr/bin/python3 tests/bench/ultralytics_pipeline_model.py SHAPES_DIR OUT_DIR SEED [workers=2 hsv_v=0 ...]
  build/ci/tests/train_loss_probe yolov8n.yaml OUT_DIR/data.yaml 0 0 1 scale=0 translate=0 hsv_h=0 hsv_s=0 \
      hsv_v=0 fliplr=0
"""
import sys, os, math, random, glob
import numpy as np, cv2
src, out, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
opts = dict(a.split('=') for a in sys.argv[4:])
IMGSZ = 128; BATCH = 16; WORKERS = int(opts.get('workers', 2))
HSV = (float(opts.get('hsv_h', 0.015)), float(opts.get('hsv_s', 0.7)), float(opts.get('hsv_v', 0.4)))
SCALE = float(opts.get('scale', 0.5)); TRANSLATE = float(opts.get('translate', 0.1)); FLIPLR = float(opts.get('fliplr', 0.5))
ims = sorted(glob.glob(os.path.join(src, 'images/train/*.jpg')))
def read_labels(f):
    lf = f.replace('/images/', '/labels/').rsplit('.', 1)[0] + '.txt'
    if not os.path.exists(lf): return np.zeros((0, 5), np.float32)
    a = np.loadtxt(lf, ndmin=2, dtype=np.float32)
    return a.reshape(-1, 5)
labels = [read_labels(f) for f in ims]
n = len(ims)
class Worker:
    def __init__(self):
        self.buffer = []; self.cache = {}; self.maxbuf = min(n, BATCH * 8, 1000)
    def load(self, i):
        if i in self.cache: return self.cache[i]
        im = cv2.imread(ims[i])
        h0, w0 = im.shape[:2]; r = IMGSZ / max(h0, w0)
        if r != 1:
            w, h = (min(math.ceil(w0 * r), IMGSZ), min(math.ceil(h0 * r), IMGSZ))
            im = cv2.resize(im, (w, h), interpolation=cv2.INTER_LINEAR)
        self.cache[i] = im; self.buffer.append(i)
        if 1 < len(self.buffer) >= self.maxbuf:
            j = self.buffer.pop(0); self.cache.pop(j, None)
        return im
    def item(self, i):
        im = self.load(i); h, w = im.shape[:2]
        lb = labels[i].copy()
        xyxy = np.stack([(lb[:, 1] - lb[:, 3] / 2) * w, (lb[:, 2] - lb[:, 4] / 2) * h,
                         (lb[:, 1] + lb[:, 3] / 2) * w, (lb[:, 2] + lb[:, 4] / 2) * h], 1) if len(lb) else np.zeros((0, 4), np.float32)
        return im, lb[:, 0].copy(), xyxy.astype(np.float32)
    def sample(self, i):
        im0, c0, b0 = self.item(i)
        parts = [(im0, c0, b0)] + [self.item(j) for j in random.choices(list(self.buffer), k=3)]
        s = IMGSZ
        yc, xc = (int(random.uniform(s // 2, 2 * s - s // 2)) for _ in range(2))
        img4 = np.full((2 * s, 2 * s, 3), 114, np.uint8); cls, boxes = [], []
        for k, (img, c, b) in enumerate(parts):
            h, w = img.shape[:2]
            if k == 0:
                x1a, y1a, x2a, y2a = max(xc - w, 0), max(yc - h, 0), xc, yc
                x1b, y1b, x2b, y2b = w - (x2a - x1a), h - (y2a - y1a), w, h
            elif k == 1:
                x1a, y1a, x2a, y2a = xc, max(yc - h, 0), min(xc + w, s * 2), yc
                x1b, y1b, x2b, y2b = 0, h - (y2a - y1a), min(w, x2a - x1a), h
            elif k == 2:
                x1a, y1a, x2a, y2a = max(xc - w, 0), yc, xc, min(s * 2, yc + h)
                x1b, y1b, x2b, y2b = w - (x2a - x1a), 0, w, min(y2a - y1a, h)
            else:
                x1a, y1a, x2a, y2a = xc, yc, min(xc + w, s * 2), min(s * 2, yc + h)
                x1b, y1b, x2b, y2b = 0, 0, min(w, x2a - x1a), min(y2a - y1a, h)
            img4[y1a:y2a, x1a:x2a] = img[y1b:y2b, x1b:x2b]
            bb = b.copy(); bb[:, [0, 2]] += x1a - x1b; bb[:, [1, 3]] += y1a - y1b
            cls.append(c); boxes.append(bb)
        cls = np.concatenate(cls); boxes = np.concatenate(boxes)
        boxes[:, [0, 2]] = boxes[:, [0, 2]].clip(0, 2 * s); boxes[:, [1, 3]] = boxes[:, [1, 3]].clip(0, 2 * s)
        good = ((boxes[:, 2] - boxes[:, 0]) > 0) & ((boxes[:, 3] - boxes[:, 1]) > 0)
        cls, boxes = cls[good], boxes[good]
        # RandomPerspective, border -s/2: output s x s
        size = (s, s)
        C = np.eye(3, dtype=np.float32); C[0, 2] = -img4.shape[1] / 2; C[1, 2] = -img4.shape[0] / 2
        P = np.eye(3, dtype=np.float32)
        R = np.eye(3, dtype=np.float32); sc = random.uniform(1 - SCALE, 1 + SCALE)
        R[:2] = cv2.getRotationMatrix2D(angle=0.0, center=(0, 0), scale=sc)
        S = np.eye(3, dtype=np.float32)
        T = np.eye(3, dtype=np.float32)
        T[0, 2] = random.uniform(0.5 - TRANSLATE, 0.5 + TRANSLATE) * size[0]
        T[1, 2] = random.uniform(0.5 - TRANSLATE, 0.5 + TRANSLATE) * size[1]
        M = T @ S @ R @ P @ C
        img = cv2.warpAffine(img4, M[:2], dsize=size, borderValue=(114, 114, 114))
        m = len(boxes)
        xy = np.ones((m * 4, 3), dtype=boxes.dtype)
        xy[:, :2] = boxes[:, [0, 1, 2, 3, 0, 3, 2, 1]].reshape(m * 4, 2)
        xy = (xy @ M.T)[:, :2].reshape(m, 8)
        x = xy[:, [0, 2, 4, 6]]; y = xy[:, [1, 3, 5, 7]]
        nb = np.concatenate((x.min(1), y.min(1), x.max(1), y.max(1))).reshape(4, m).T.astype(np.float32)
        nb[:, [0, 2]] = nb[:, [0, 2]].clip(0, size[0]); nb[:, [1, 3]] = nb[:, [1, 3]].clip(0, size[1])
        ob = boxes * sc
        w1, h1 = ob[:, 2] - ob[:, 0], ob[:, 3] - ob[:, 1]
        w2, h2 = nb[:, 2] - nb[:, 0], nb[:, 3] - nb[:, 1]
        ar = np.maximum(w2 / (h2 + 1e-16), h2 / (w2 + 1e-16))
        keep = (w2 > 2) & (h2 > 2) & (w2 * h2 / (w1 * h1 + 1e-16) > 0.1) & (ar < 100)
        cls, nb = cls[keep], nb[keep]
        # HSV
        r = np.random.uniform(-1, 1, 3) * list(HSV)
        if any(HSV):
            xx = np.arange(0, 256, dtype=r.dtype)
            lut_hue = ((xx + r[0] * 180) % 180).astype(np.uint8)
            lut_sat = np.clip(xx * (r[1] + 1), 0, 255).astype(np.uint8)
            lut_val = np.clip(xx * (r[2] + 1), 0, 255).astype(np.uint8)
            lut_sat[0] = 0
            hue, sat, val = cv2.split(cv2.cvtColor(img, cv2.COLOR_BGR2HSV))
            im_hsv = cv2.merge((cv2.LUT(hue, lut_hue), cv2.LUT(sat, lut_sat), cv2.LUT(val, lut_val)))
            cv2.cvtColor(im_hsv, cv2.COLOR_HSV2BGR, dst=img)
        if random.random() < FLIPLR:
            img = np.ascontiguousarray(np.fliplr(img))
            nb[:, [0, 2]] = s - nb[:, [2, 0]]
        return img, cls, nb
random.seed(seed); np.random.seed(seed)
order = list(range(n)); random.shuffle(order)
workers = [Worker() for _ in range(WORKERS)]
for d in ('images/train', 'labels/train'): os.makedirs(os.path.join(out, d), exist_ok=True)
nboxes = []
for pos, i in enumerate(order):
    w = workers[(pos // BATCH) % WORKERS]
    img, cls, b = w.sample(i)
    name = '%04d' % pos
    cv2.imwrite(os.path.join(out, 'images/train', name + '.png'), img)
    with open(os.path.join(out, 'labels/train', name + '.txt'), 'w') as f:
        for c, bb in zip(cls, b):
            cx, cy = (bb[0] + bb[2]) / 2 / IMGSZ, (bb[1] + bb[3]) / 2 / IMGSZ
            f.write('%d %.7f %.7f %.7f %.7f\n' % (int(c), cx, cy, (bb[2] - bb[0]) / IMGSZ, (bb[3] - bb[1]) / IMGSZ))
    nboxes.append(len(cls))
names = open(os.path.join(src, 'data.yaml')).read().split('names:')[1]
open(os.path.join(out, 'data.yaml'), 'w').write('path: %s\ntrain: images/train\nval: images/train\nnames:%s' % (out, names))
print('samples', n, 'boxes/sample %.3f' % np.mean(nboxes))
