# Verbs of the eval area.
target_sources(ywb PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/verb_eval_coco.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/verb_bench_eval.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/verb_benchmark.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/verb_bench_track.cpp)
