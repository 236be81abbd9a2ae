# Tests of the eval area: COCO-exact evaluation, YOLO-side metrics, NMS.
ywb_add_test(test_eval_coco SOURCES test_eval_coco.cpp LABELS unit TIMEOUT 120)
