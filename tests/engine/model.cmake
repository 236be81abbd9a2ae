# Tests of the model area (YOLOv8, YOLO11 and YOLO26 families built from the embedded model YAMLs).
ywb_add_test(test_model SOURCES test_model.cpp LABELS unit ENGINE_INTERNAL TORCH_PCH TIMEOUT 600)
ywb_add_test(test_model_cli SOURCES test_model_cli.cpp LABELS smoke TIMEOUT 300)
ywb_add_test(test_model_yolo11 SOURCES test_model_yolo11.cpp LABELS unit ENGINE_INTERNAL TORCH_PCH TIMEOUT 600)
ywb_add_test(test_model_yolo26 SOURCES test_model_yolo26.cpp LABELS unit ENGINE_INTERNAL TORCH_PCH TIMEOUT 300)
