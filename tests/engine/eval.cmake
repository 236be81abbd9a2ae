# Tests of the eval area: COCO-exact evaluation, YOLO-side metrics, NMS.
ywb_add_test(test_eval_coco SOURCES test_eval_coco.cpp LABELS unit TIMEOUT 120)
ywb_add_test(test_eval_metrics SOURCES test_eval_metrics.cpp LABELS unit TIMEOUT 60)
ywb_add_test(test_eval_nms SOURCES test_eval_nms.cpp LABELS unit ENGINE_INTERNAL TORCH_PCH TIMEOUT 120)
# Validation parity with Ultralytics (its checkpoints and outputs in ../shared/fixtures/ultralytics).
ywb_add_test(test_val_parity SOURCES test_val_parity.cpp LABELS unit ENGINE_INTERNAL TORCH_PCH TIMEOUT 300)
if(OpenCV_FOUND OR YW_OPENCV_imgcodecs)
  target_compile_definitions(test_val_parity PRIVATE YW_TEST_IMGCODECS=1)
endif()
ywb_add_test(test_test_time_augment SOURCES test_test_time_augment.cpp LABELS unit ENGINE_INTERNAL TORCH_PCH TIMEOUT 300)
# Tracking (engine/track): assignment, Kalman filters, the trackers' rules, tracker files; BoT-SORT's camera motion.
ywb_add_test(test_track SOURCES test_track.cpp LABELS unit ENGINE_INTERNAL TIMEOUT 60)
ywb_add_test(test_track_reid SOURCES test_track_reid.cpp LABELS unit ENGINE_INTERNAL TORCH_PCH TIMEOUT 60)
ywb_add_test(test_botsort SOURCES test_botsort.cpp LABELS unit ENGINE_INTERNAL TIMEOUT 120)
