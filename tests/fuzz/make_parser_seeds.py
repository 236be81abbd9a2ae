#!/usr/bin/env python3
"""Seeds for the user-file parser fuzzers (fuzz_labels, fuzz_data_yaml, fuzz_args_yaml, fuzz_coco_json).

    make_parser_seeds.py SHARED OUT [--args-yaml RUN/args.yaml]

SHARED is the read-only reference folder (../shared). Writes OUT/labels, OUT/data_yaml, OUT/args_yaml and
OUT/coco_json: real files from SHARED (coco128 labels, the coco128 and shapes data.yaml, small slices of the
coco-eval fixtures), an args.yaml of a real run when given, and hand-made cases of each rejected kind.
Label seeds start with one byte that picks nc (1 + byte % 100): 'O' (79) = the 80 COCO classes.
"""
import json
import os
import sys


def write(folder, name, data):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def labels(shared, out):
    d = os.path.join(out, "labels")
    src = os.path.join(shared, "datasets/coco128/labels/train2017")
    for name in sorted(os.listdir(src))[:6]:
        with open(os.path.join(src, name), "rb") as f:
            write(d, "coco128-" + name, b"O" + f.read())
    hand = {
        "polygon": "0 0.1 0.1 0.5 0.1 0.5 0.6 0.1 0.6\n",
        "duplicate": "1 0.5 0.5 0.2 0.2\n1 0.5 0.5 0.2 0.2\n",
        "zero-area": "2 0.5 0.5 0 0.3\n",
        "class-out-of-range": "80 0.5 0.5 0.2 0.2\n",
        "nan": "0 nan 0.5 0.2 0.2\n",
        "outside": "0 1.5 0.5 0.2 0.2\n",
        "fields": "0 0.5 0.5 0.2\n",
        "crlf-blank": "0 0.5 0.5 0.2 0.2\r\n\r\n   \n3 0.25 0.25 0.1 0.1\r\n",
        "fraction-class": "1.5 0.5 0.5 0.2 0.2\n",
        "hex-exp": "0x1 5e-1 0.5e0 0x0.4p0 0.2\n",
        "bom": "\ufeff0 0.5 0.5 0.2 0.2\n",
    }
    for name, text in hand.items():
        write(d, name, "O" + text)


def data_yaml(shared, out):
    d = os.path.join(out, "data_yaml")
    # The real files name their own folders; the fuzz folder has images/train, images/val, images/test.
    with open(os.path.join(shared, "datasets/coco128/data.yaml")) as f:
        text = f.read().replace("train2017", "train").replace("val2017", "val")
    write(d, "coco128", text)
    with open(os.path.join(shared, "fixtures/ultralytics/shapes/data.yaml")) as f:
        write(d, "shapes", f.read())
    write(d, "list-names", "path: .\ntrain: [images/train, images/test]\nval: images/val\nnames: [a, b, c]\n")
    write(d, "txt-lists", "train: train.txt\nval: val.txt\ntest: images/test\nnc: 2\nnames: {0: x, 1: y}\n")
    write(d, "nc-only", "path: ./\ntrain: images/train\nval: images/val\nnc: 3\n")
    write(d, "gap", "train: images/train\nval: images/val\nnames: {0: a, 2: c}\n")
    write(d, "nc-mismatch", "train: images/train\nval: images/val\nnc: 5\nnames: [a]\n")
    write(d, "missing-val", "train: images/train\nnames: [a]\n")
    write(d, "broken", "train: [images/train\nval: images/val\nnames: [a]\n")
    write(d, "nc-huge", "train: images/train\nval: images/val\nnc: 10000000000\n")
    write(d, "flow", "{path: ., train: images/train, val: images/val, names: {0: 'a b', 1: \"c\"}}\n")


def args_yaml(shared, out, run_args):
    d = os.path.join(out, "args_yaml")
    if run_args:
        with open(run_args) as f:
            write(d, "real-run-args", f.read())
    write(d, "ultralytics-style", "task: detect\nmode: train\nmodel: yolov8n.pt\ndata: coco128.yaml\n"
          "epochs: 3\nbatch: 16\nimgsz: 640\npretrained: null\nlr0: 0.01\nmosaic: 1.0\ncopy_paste: 0.0\n"
          "optimizer: SGD\namp: true\nclose_mosaic: 10\nname: exp\n")
    write(d, "out-of-range", "lr0: -1\n")
    write(d, "bad-bool", "amp: maybe\n")
    write(d, "bad-int", "epochs: 1.5\n")
    write(d, "choice", "optimizer: Lion\n")
    write(d, "imgsz", "imgsz: 100\n")
    write(d, "nested", "hsv_h: [1, 2]\nnames: {a: 1}\n")
    write(d, "key-mapping", "{a: 1}: 2\n")
    write(d, "not-utf8", b"name: \xf6\xf6\n")
    write(d, "quoted", "name: \"run \\u00e9 #1\"\nproject: 'a: b'\n")


def coco_json(shared, out):
    d = os.path.join(out, "coco_json")
    for fixture, n_images in (("padilla-100", 2), ("coco128-synthetic", 2)):
        base = os.path.join(shared, "fixtures/coco-eval", fixture)
        with open(os.path.join(base, "ground_truth.json")) as f:
            gt = json.load(f)
        with open(os.path.join(base, "detections.json")) as f:
            dt = json.load(f)
        images = gt["images"][:n_images]
        ids = {im["id"] for im in images}
        anns = [a for a in gt["annotations"] if a["image_id"] in ids][:6]
        used = {a["category_id"] for a in anns}
        small = {"images": [{"id": im["id"], "width": im.get("width"), "height": im.get("height")}
                            for im in images],
                 "annotations": anns,
                 "categories": [c for c in gt["categories"] if c["id"] in used]}
        dets = [x for x in dt if x["image_id"] in ids][:8]
        write(d, fixture, json.dumps(small) + "\n#####\n" + json.dumps(dets))
    write(d, "string-ids", json.dumps({"images": [{"id": "img_b"}, {"id": "img_a"}],
                                       "annotations": [{"id": 1, "image_id": "img_a", "category_id": 1,
                                                        "bbox": [1, 2, 30, 40], "iscrowd": False}],
                                       "categories": [{"id": 1, "name": "x"}]})
          + "\n#####\n" + json.dumps([{"image_id": "img_a", "category_id": 1, "bbox": [1, 2, 30, 41],
                                       "score": 0.9}]))
    write(d, "crowd-no-area", json.dumps({"images": [{"id": 7}],
                                          "annotations": [{"id": 3, "image_id": 7, "category_id": 2,
                                                           "bbox": [0, 0, 10, 10], "iscrowd": 1}],
                                          "categories": [{"id": 2}]})
          + "\n#####\n" + json.dumps({"annotations": [{"image_id": 7, "category_id": 2,
                                                       "bbox": [0, 0, 10, 10], "score": 1}]}))
    write(d, "results-as-gt", "[]\n#####\n{}")
    write(d, "truncated", '{"images": [{"id": 1}], "annotations": [')


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    shared, out = sys.argv[1], sys.argv[2]
    run_args = sys.argv[4] if len(sys.argv) > 4 and sys.argv[3] == "--args-yaml" else None
    labels(shared, out)
    data_yaml(shared, out)
    args_yaml(shared, out, run_args)
    coco_json(shared, out)


if __name__ == "__main__":
    main()
