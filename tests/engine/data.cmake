# Data pipeline tests (issue 3).
ywb_add_test(test_data_scan SOURCES test_data_scan.cpp LABELS unit ENGINE_INTERNAL TIMEOUT 120)
ywb_add_test(test_data_transforms SOURCES test_data_transforms.cpp LABELS unit ENGINE_INTERNAL TIMEOUT 120)
ywb_add_test(test_cut_mix SOURCES test_cut_mix.cpp LABELS unit ENGINE_INTERNAL TIMEOUT 120)
ywb_add_test(test_data_loader SOURCES test_data_loader.cpp LABELS unit ENGINE_INTERNAL TORCH_PCH TIMEOUT 300)
ywb_add_test(test_dataset_yaml SOURCES test_dataset_yaml.cpp LABELS unit TIMEOUT 60)
ywb_add_test(test_beside_ultralytics SOURCES test_beside_ultralytics.cpp LABELS unit TIMEOUT 300)
ywb_add_test(test_dataset_listing SOURCES test_dataset_listing.cpp LABELS unit TIMEOUT 120)
# Odd paths and images (issue 17, hostile files): scan, 1-epoch train and predict over them.
ywb_add_test(test_hostile_files SOURCES test_hostile_files.cpp LABELS unit ENGINE_INTERNAL TIMEOUT 180)
# Ultralytics' training shuffle order (PyTorch's RandomSampler on its constant-seeded generator).
ywb_add_test(test_sampler_order SOURCES test_sampler_order.cpp LABELS unit ENGINE_INTERNAL TIMEOUT 60)
ywb_add_test(test_ultralytics_draws SOURCES test_ultralytics_draws.cpp LABELS unit ENGINE_INTERNAL TIMEOUT 60)
# Rectangular training batches (rect=true): loader order and shapes, sample geometry, a run.
ywb_add_test(test_rect_train SOURCES test_rect_train.cpp LABELS unit ENGINE_INTERNAL TORCH_PCH TIMEOUT 180)
# The bgr augmentation (channel swap): what the model receives, its probability, the replay of Ultralytics'.
ywb_add_test(test_bgr_augment SOURCES test_bgr_augment.cpp LABELS unit ENGINE_INTERNAL TORCH_PCH TIMEOUT 120)
