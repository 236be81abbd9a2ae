# Tests of the export area (safetensors + ONNX export, verified with OpenCV DNN on coco128 images).
ywb_add_test(test_export SOURCES test_export.cpp LABELS unit ENGINE_INTERNAL TORCH_PCH TIMEOUT 900)
