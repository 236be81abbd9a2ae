# Verbs of the model area.
target_sources(ywb PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/verb_model_info.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/verb_bench_model.cpp)
