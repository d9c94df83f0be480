# tests/stress: many threads x streams x models with callbacks, every output
# checked, memory sampled while running. The CTest is a short run (label
# tsan, so `make test-tsan` runs it under ThreadSanitizer); `make stress`
# runs the long one (see the Makefile).
add_executable(stress_test ${CMAKE_CURRENT_LIST_DIR}/stress_test.c ${CMAKE_SOURCE_DIR}/tests/fault/small_net.c
               ${CMAKE_SOURCE_DIR}/tests/fuzz/onnx_writer.c)
target_include_directories(stress_test PRIVATE ${CMAKE_SOURCE_DIR}/tests/fault ${CMAKE_SOURCE_DIR}/tests/fuzz
                           ${CMAKE_SOURCE_DIR}/include)
target_link_libraries(stress_test PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,ascendcl_internal>" Threads::Threads m)
target_compile_options(stress_test PRIVATE ${OA_WARN})
target_link_options(stress_test PRIVATE -no-pie)

add_test(NAME stress_short COMMAND stress_test --threads 8 --streams 4 --models 3 --rounds 60
                                   --max-rss-growth-mb 64)
set_tests_properties(stress_short PROPERTIES LABELS "stress;tsan" TIMEOUT 600)
