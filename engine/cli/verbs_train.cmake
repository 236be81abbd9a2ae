target_sources(ywb PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/train_progress.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/verb_train.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/verb_tune.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/verb_val.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/class_counts.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/verb_predict.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/augment_arg.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/verb_quickstart.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/verb_bench_train.cpp)
