# Tests of the io area (safetensors, state dicts, the run record).
ywb_add_test(test_io_safetensors SOURCES test_io_safetensors.cpp LABELS unit ENGINE_INTERNAL TORCH_PCH TIMEOUT 120)
ywb_add_test(test_io_state_dict SOURCES test_io_state_dict.cpp LABELS unit ENGINE_INTERNAL TORCH_PCH TIMEOUT 120)
ywb_add_test(test_io_pt SOURCES test_io_pt.cpp LABELS unit ENGINE_INTERNAL TIMEOUT 120)
ywb_add_test(test_io_pt_fixtures SOURCES test_io_pt_fixtures.cpp LABELS unit ENGINE_INTERNAL TORCH_PCH TIMEOUT 300)
ywb_add_test(test_run_record SOURCES test_run_record.cpp LABELS unit ENGINE_INTERNAL TIMEOUT 60)
ywb_add_test(test_results_csv SOURCES test_results_csv.cpp LABELS unit ENGINE_INTERNAL TIMEOUT 60)
# Replay of the user-file parser fuzz corpora (tests/fuzz): labels, data.yaml, args YAML, COCO JSON.
ywb_add_test(test_fuzz_corpora SOURCES test_fuzz_corpora.cpp ${PROJECT_SOURCE_DIR}/tests/fuzz/fuzz_parsers.cpp
             LABELS unit ENGINE_INTERNAL TIMEOUT 120)
ywb_add_test(test_weights_fetch SOURCES test_weights_fetch.cpp LABELS unit TIMEOUT 120)
