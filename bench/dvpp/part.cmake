# bench/dvpp: DVPP (libacl_dvpp) against OpenCV in the same process, one
# thread each: JPEG decode + resize of a 1920x1080 picture to 224x224, and a
# batch crop-and-paste of 8 regions. A benchmark, not a test: run it with
# bench/dvpp/run.sh (figures in BENCHMARKS.md, "DVPP"). OpenCV is only the
# peer, so the target is skipped when it (libopencv-dev) is not installed.
# src/dvpp/part.cmake comes after this file (parts are included in path
# order): test for the folder, not the target.
if(NOT TARGET acl_dvpp AND NOT EXISTS ${CMAKE_SOURCE_DIR}/src/dvpp/part.cmake)
  message(STATUS "bench/dvpp skipped: acl_dvpp is not built")
  return()
endif()
find_package(OpenCV QUIET COMPONENTS core imgproc imgcodecs)
if(NOT OpenCV_FOUND)
  message(STATUS "bench/dvpp skipped: OpenCV not found (apt-get install libopencv-dev for the DVPP benchmark)")
  return()
endif()
add_executable(dvpp_bench ${CMAKE_CURRENT_LIST_DIR}/dvpp_bench.c ${CMAKE_CURRENT_LIST_DIR}/opencv_peer.cpp)
target_include_directories(dvpp_bench PRIVATE ${OpenCV_INCLUDE_DIRS})
target_link_libraries(dvpp_bench PRIVATE ascendcl acl_dvpp ${OpenCV_LIBS} m)
target_compile_options(dvpp_bench PRIVATE ${OA_WARN})
set_target_properties(dvpp_bench PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
