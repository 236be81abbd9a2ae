# Distributed training: real Gloo process groups over loopback, several processes per test.
ywb_add_test(test_dist SOURCES test_dist.cpp LABELS unit ENGINE_INTERNAL TORCH_PCH TIMEOUT 900)
