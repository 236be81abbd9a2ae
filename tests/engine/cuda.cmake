# The GPU path: its CPU-testable parts (unit) and the tests that need a CUDA device (label cuda: each skips
# with the reason where there is none; installer/gpu-check.sh runs them on a GPU machine).
# The two that include <torch/torch.h> take the folder's precompiled header (without it: 66 and 71 s to compile
# on a 2-core AVX2 EPYC, the two slowest files of the build).
ywb_add_test(test_cuda_parts SOURCES test_cuda_parts.cpp LABELS unit ENGINE_INTERNAL TORCH_PCH TIMEOUT 120)
ywb_add_test(test_cuda SOURCES test_cuda.cpp LABELS cuda ENGINE_INTERNAL TORCH_PCH TIMEOUT 600)
ywb_add_test(test_cuda_train SOURCES test_cuda_train.cpp LABELS cuda ENGINE_INTERNAL TIMEOUT 600)
