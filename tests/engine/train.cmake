ywb_add_test(test_train_parts SOURCES test_train_parts.cpp LABELS unit ENGINE_INTERNAL TORCH_PCH)
