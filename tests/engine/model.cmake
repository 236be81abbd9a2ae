# Tests of the model area (YOLOv8 family built from the embedded model YAML).
ywb_add_test(test_model SOURCES test_model.cpp LABELS unit ENGINE_INTERNAL TORCH_PCH TIMEOUT 600)
ywb_add_test(test_model_cli SOURCES test_model_cli.cpp LABELS smoke TIMEOUT 300)
