# Tests of the export area (safetensors + ONNX export, verified with OpenCV DNN on coco128 images).
ywb_add_test(test_export SOURCES test_export.cpp LABELS unit ENGINE_INTERNAL TORCH_PCH TIMEOUT 900)
# YOLO11's export paths through OpenCV DNN, incl. Ultralytics' trained yolo11n (issue 14).
ywb_add_test(test_export_yolo11 SOURCES test_export_yolo11.cpp LABELS unit ENGINE_INTERNAL TORCH_PCH TIMEOUT 600)
# YOLO26's end-to-end ONNX graph run in ONNX Runtime (installer/install-onnxruntime.sh), the trained yolo26n
# on shapes images, small and dynamic sizes, a 640 px yolo26n from YAML; the one-to-many graph in OpenCV.
ywb_add_test(test_export_end2end SOURCES test_export_end2end.cpp LABELS unit ENGINE_INTERNAL TORCH_PCH TIMEOUT 300)
# `ywb val weights=best.onnx`: exported graphs (dynamic, fixed batch 3, YOLO26 end-to-end in ONNX Runtime)
# validated against their weights on shapes; bad files and the command line.
ywb_add_test(test_onnx_val SOURCES test_onnx_val.cpp LABELS unit ENGINE_INTERNAL TORCH_PCH TIMEOUT 300)
# `ywb benchmark`: every export of the trained yolov8n and yolo26n validated; a format that cannot run.
ywb_add_test(test_format_benchmark SOURCES test_format_benchmark.cpp LABELS unit ENGINE_INTERNAL TORCH_PCH TIMEOUT 300)
# `ywb export format=torchscript` and `ywb val`/`predict weights=best.torchscript`: the traced yolov8n and
# yolo26n (both heads) against their weights, read back by torch::jit::load alone; bad files.
ywb_add_test(test_export_torchscript SOURCES test_export_torchscript.cpp LABELS unit ENGINE_INTERNAL TORCH_PCH TIMEOUT 300)
