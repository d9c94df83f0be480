# tests/api: API conformance. Part of it is generated from the public
# headers at build time (tests/api/gen_api_tests.py), so new declarations
# are covered automatically:
#   api_symbols      address of every declared function, linked against
#                    libascendcl.so and the companion libraries: a declared-but-missing or unexported
#                    function fails the link (built by the test itself, so
#                    a missing function fails this test, not everyone's build)
#   api_headers_c/cxx  all headers compile as C11 (-pedantic) and as C++
#   api_error_table  every error constant maps back to its name
#   api_base         acl_base.h behaviour (buffers, descriptors, fp16, log)
find_program(OA_PY3 python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT OA_PY3)
  find_program(OA_PY3 python3)
endif()
file(GLOB_RECURSE OA_PUBLIC_HEADERS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/include/acl/*.h)
set(OA_API_GEN ${CMAKE_BINARY_DIR}/gen/api)
add_custom_command(
  OUTPUT ${OA_API_GEN}/api_symbols.c ${OA_API_GEN}/api_error_table.c
         ${OA_API_GEN}/api_headers.c ${OA_API_GEN}/api_headers.cpp
  COMMAND ${OA_PY3} ${CMAKE_CURRENT_LIST_DIR}/gen_api_tests.py ${CMAKE_SOURCE_DIR} ${OA_API_GEN}
  DEPENDS ${OA_PUBLIC_HEADERS} ${CMAKE_CURRENT_LIST_DIR}/gen_api_tests.py ${CMAKE_SOURCE_DIR}/scripts/api_coverage.py
  COMMENT "Generating API conformance tests from include/acl")

add_executable(api_symbols EXCLUDE_FROM_ALL ${OA_API_GEN}/api_symbols.c)
target_link_libraries(api_symbols PRIVATE ascendcl)
# the companion libraries (libacl_dvpp, ...) export what include/acl/ops declares
foreach(oa_companion acl_dvpp acl_cblas)
  if(TARGET ${oa_companion})
    target_link_libraries(api_symbols PRIVATE ${oa_companion})
  endif()
endforeach()
add_test(NAME api_symbols
  COMMAND sh -c "\"${CMAKE_COMMAND}\" --build \"${CMAKE_BINARY_DIR}\" --target api_symbols && \"$<TARGET_FILE:api_symbols>\"")
set_tests_properties(api_symbols PROPERTIES LABELS "api" TIMEOUT 600 RUN_SERIAL ON)

add_executable(api_headers_c EXCLUDE_FROM_ALL ${OA_API_GEN}/api_headers.c)
target_include_directories(api_headers_c PRIVATE ${CMAKE_SOURCE_DIR}/include)
set_target_properties(api_headers_c PROPERTIES C_STANDARD 11 C_EXTENSIONS OFF)
target_compile_options(api_headers_c PRIVATE -Wall -Wextra -pedantic -Werror -Wno-unused-const-variable)
add_executable(api_headers_cxx EXCLUDE_FROM_ALL ${OA_API_GEN}/api_headers.cpp)
target_include_directories(api_headers_cxx PRIVATE ${CMAKE_SOURCE_DIR}/include)
target_compile_options(api_headers_cxx PRIVATE -Wall -Wextra -Werror)
add_test(NAME api_headers
  COMMAND sh -c "\"${CMAKE_COMMAND}\" --build \"${CMAKE_BINARY_DIR}\" --target api_headers_c api_headers_cxx && \"$<TARGET_FILE:api_headers_c>\" && \"$<TARGET_FILE:api_headers_cxx>\"")
set_tests_properties(api_headers PROPERTIES LABELS "api" TIMEOUT 600 RUN_SERIAL ON)

add_executable(api_error_table ${OA_API_GEN}/api_error_table.c)
target_link_libraries(api_error_table PRIVATE ascendcl_internal)
add_test(NAME api_error_table COMMAND api_error_table)
set_tests_properties(api_error_table PROPERTIES LABELS "api")

add_executable(api_test_base ${CMAKE_CURRENT_LIST_DIR}/test_base.c)
target_link_libraries(api_test_base PRIVATE ascendcl Threads::Threads m)
target_include_directories(api_test_base PRIVATE ${CMAKE_SOURCE_DIR}/tests/rt)
target_compile_options(api_test_base PRIVATE ${OA_WARN})
add_test(NAME api_base COMMAND api_test_base)
set_tests_properties(api_base PROPERTIES LABELS "api;sanitize;tsan" TIMEOUT 120
  ENVIRONMENT "ASCEND_SLOG_PRINT_TO_STDOUT=1;ASCEND_GLOBAL_LOG_LEVEL=0")
