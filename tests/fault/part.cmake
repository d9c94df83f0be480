# tests/fault: fault injection. fault_test links the static library with
# -Wl,--wrap for the allocation, file-read and thread-creation functions, so
# only the library's own calls (not oneDNN's, libgomp's, protobuf-c's or
# cJSON's, which are shared libraries) go through the counting wrappers of
# fault_wrap.c. The sweep is split into shards that CTest runs in parallel;
# under the ASan build LeakSanitizer checks for leaks after every fault.
set(OA_FAULT_WRAPPED malloc calloc realloc posix_memalign aligned_alloc strdup
    open fopen read fread pread mmap pthread_create)
set(OA_FAULT_LINK)
foreach(s ${OA_FAULT_WRAPPED})
  list(APPEND OA_FAULT_LINK "-Wl,--wrap=${s}")
endforeach()

add_executable(fault_test ${CMAKE_CURRENT_LIST_DIR}/fault_test.c ${CMAKE_CURRENT_LIST_DIR}/fault_wrap.c
               ${CMAKE_CURRENT_LIST_DIR}/small_net.c ${CMAKE_SOURCE_DIR}/tests/fuzz/onnx_writer.c)
target_include_directories(fault_test PRIVATE ${CMAKE_CURRENT_LIST_DIR} ${CMAKE_SOURCE_DIR}/tests/fuzz
                           ${CMAKE_SOURCE_DIR}/include)
target_link_libraries(fault_test PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,ascendcl_internal>" Threads::Threads m)
target_compile_options(fault_test PRIVATE ${OA_WARN})
target_link_options(fault_test PRIVATE -no-pie ${OA_FAULT_LINK})

set(OA_FAULT_SHARDS 4)
math(EXPR OA_FAULT_LAST "${OA_FAULT_SHARDS} - 1")
foreach(k RANGE ${OA_FAULT_LAST})
  add_test(NAME fault_sweep_${k} COMMAND fault_test --shard ${k}/${OA_FAULT_SHARDS})
  set_tests_properties(fault_sweep_${k} PROPERTIES LABELS "fault;sanitize" TIMEOUT 600)
  # the same points with every later call failing too (resources stay exhausted)
  add_test(NAME fault_sweep_persistent_${k} COMMAND fault_test --persistent --shard ${k}/${OA_FAULT_SHARDS})
  set_tests_properties(fault_sweep_persistent_${k} PROPERTIES LABELS "fault;sanitize" TIMEOUT 600)
endforeach()

if(OPENACL_SANITIZE STREQUAL "address")
  # the harness can fail: a planted leak must be reported
  add_test(NAME fault_selftest_leak COMMAND fault_test --selftest-leak --stride 100)
  set_tests_properties(fault_selftest_leak PROPERTIES LABELS "fault;sanitize" WILL_FAIL TRUE TIMEOUT 300
                       ENVIRONMENT "ASAN_OPTIONS=detect_leaks=1")
endif()
