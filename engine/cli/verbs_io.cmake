# Verbs of the io area.
target_sources(ywb PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/verb_weights_info.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/verb_weights_list.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/weights_arg.cpp)
