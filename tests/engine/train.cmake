ywb_add_test(test_train_parts SOURCES test_train_parts.cpp LABELS unit ENGINE_INTERNAL TORCH_PCH)
ywb_add_test(test_trainer SOURCES test_trainer.cpp LABELS unit ENGINE_INTERNAL TORCH_PCH TIMEOUT 900)
ywb_add_test(test_learns SOURCES test_learns.cpp LABELS train TIMEOUT 1800)
target_compile_definitions(test_learns PRIVATE YWB_LEARN_EPOCHS=80)
