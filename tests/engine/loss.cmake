# Tests of the loss area (IoU/CIoU, DFL, TaskAlignedAssigner, v8 detection loss).
ywb_add_test(test_loss SOURCES test_loss.cpp LABELS unit ENGINE_INTERNAL TORCH_PCH TIMEOUT 600)
# Parity with Ultralytics' forward and loss on its own weights and batches (every loss-* fixture).
ywb_add_test(test_parity_loss SOURCES test_parity_loss.cpp LABELS unit ENGINE_INTERNAL TORCH_PCH TIMEOUT 600)
# YOLO26's end-to-end loss on hand-built maps: reg_max 1, the one-to-one branch, the o2m/o2o schedule.
ywb_add_test(test_end_to_end_loss SOURCES test_end_to_end_loss.cpp LABELS unit ENGINE_INTERNAL TORCH_PCH TIMEOUT 120)
# cls_pw (8.4): class weights from label counts, and the class BCE weighted in every branch of the loss.
ywb_add_test(test_class_weights SOURCES test_class_weights.cpp LABELS unit ENGINE_INTERNAL TORCH_PCH TIMEOUT 120)
# The graph-ready loss (fixed shapes, issue 33) against the default on every fixture and hand batches, and the
# CPU stand-in for graph capture: no data-dependent op, one op sequence for any box count at one capacity.
ywb_add_test(test_graph_ready_loss SOURCES test_graph_ready_loss.cpp LABELS unit ENGINE_INTERNAL TORCH_PCH TIMEOUT 120)
