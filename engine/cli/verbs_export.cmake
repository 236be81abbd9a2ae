# Verbs of the export area.
target_sources(ywb PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/verb_export.cpp)
