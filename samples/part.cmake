# Samples: each one brings its own part.cmake.
include(${CMAKE_CURRENT_LIST_DIR}/ocr/part.cmake OPTIONAL)
