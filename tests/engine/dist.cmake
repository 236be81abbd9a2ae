# Distributed training: real Gloo process groups over loopback, several processes per test.
ywb_add_test(test_dist SOURCES test_dist.cpp LABELS unit ENGINE_INTERNAL TORCH_PCH TIMEOUT 900)
# A world=2 job through the launcher: a rank SIGKILLed, then the launcher; resume finishes it (issue 17).
ywb_add_test(test_kill_dist SOURCES test_kill_dist.cpp LABELS unit ENGINE_INTERNAL TIMEOUT 600)
# Whole `ywb train world=2` jobs: launcher, pause/continue, resume relaunch, a lost rank.
ywb_add_test(test_dist_train SOURCES test_dist_train.cpp LABELS unit ENGINE_INTERNAL TIMEOUT 900)
