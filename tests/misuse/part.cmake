# tests/misuse: the API misuse matrix, generated from include/acl at build
# time by gen_misuse.py (reusing scripts/api_coverage.py's declaration
# finder): every function before aclInit, after aclFinalize, with each
# pointer NULL, with dangling and foreign handles. Runs under ASan (label
# sanitize) in four shards.
find_program(OA_MX_PY3 python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT OA_MX_PY3)
  find_program(OA_MX_PY3 python3)
endif()
file(GLOB_RECURSE OA_MX_HEADERS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/include/acl/*.h)
set(OA_MX_GEN ${CMAKE_BINARY_DIR}/gen/misuse)
file(MAKE_DIRECTORY ${OA_MX_GEN})
add_custom_command(
  OUTPUT ${OA_MX_GEN}/misuse_cases.c
  COMMAND ${OA_MX_PY3} ${CMAKE_CURRENT_LIST_DIR}/gen_misuse.py ${CMAKE_SOURCE_DIR} ${OA_MX_GEN}/misuse_cases.c
  DEPENDS ${OA_MX_HEADERS} ${CMAKE_CURRENT_LIST_DIR}/gen_misuse.py ${CMAKE_SOURCE_DIR}/scripts/api_coverage.py
  COMMENT "Generating the API misuse matrix from include/acl")

add_executable(misuse_test ${CMAKE_CURRENT_LIST_DIR}/misuse_main.c ${OA_MX_GEN}/misuse_cases.c
               ${CMAKE_SOURCE_DIR}/tests/fuzz/onnx_writer.c)
target_include_directories(misuse_test PRIVATE ${CMAKE_CURRENT_LIST_DIR} ${CMAKE_SOURCE_DIR}/tests/fuzz
                           ${CMAKE_SOURCE_DIR}/include)
target_link_libraries(misuse_test PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,ascendcl_internal>" Threads::Threads)
target_compile_options(misuse_test PRIVATE ${OA_WARN})
target_link_options(misuse_test PRIVATE -no-pie -Wl,--unresolved-symbols=ignore-in-object-files)
set(OA_MX_SHARDS 4)
math(EXPR OA_MX_LAST "${OA_MX_SHARDS} - 1")
foreach(k RANGE ${OA_MX_LAST})
  add_test(NAME api_misuse_${k} COMMAND misuse_test --shard ${k}/${OA_MX_SHARDS})
  set_tests_properties(api_misuse_${k} PROPERTIES LABELS "misuse;sanitize" TIMEOUT 600)
endforeach()

# The media library's calls (acl/ops/acl_dvpp.h) are in the matrix too: its
# objects join the statically linked runtime.
if(TARGET acl_dvpp_objects)
  target_link_libraries(misuse_test PRIVATE acl_dvpp_objects)
endif()
