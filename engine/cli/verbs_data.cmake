target_sources(ywb PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/verb_dataset_check.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/verb_preview.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/verb_bench_loader.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/verb_dataset_init.cpp)
