# bench/dvpp (DVPP against OpenCV): its own fragment lives in the folder;
# the top level only globs bench/*part.cmake.
include(${CMAKE_CURRENT_LIST_DIR}/dvpp/part.cmake)
