# Tests of the eval area: COCO-exact evaluation, YOLO-side metrics, NMS.
ywb_add_test(test_eval_coco SOURCES test_eval_coco.cpp LABELS unit TIMEOUT 120)
ywb_add_test(test_eval_metrics SOURCES test_eval_metrics.cpp LABELS unit TIMEOUT 60)
ywb_add_test(test_eval_nms SOURCES test_eval_nms.cpp LABELS unit ENGINE_INTERNAL TORCH_PCH TIMEOUT 120)
