# tests/cblas: libacl_cblas (acl/ops/acl_cblas.h). Numeric results of every
# call and type combination against a C reference, every argument error, and
# ordering on streams. Each test is one process linked like an application
# (libacl_cblas + libascendcl); all run again under ASan+UBSan (sanitize).
set(OA_CBLAS_TESTS numeric args stream)
foreach(t ${OA_CBLAS_TESTS})
  add_executable(cblas_test_${t} ${CMAKE_CURRENT_LIST_DIR}/test_cblas_${t}.c)
  target_link_libraries(cblas_test_${t} PRIVATE acl_cblas ascendcl Threads::Threads m)
  target_include_directories(cblas_test_${t} PRIVATE ${CMAKE_CURRENT_LIST_DIR} ${CMAKE_SOURCE_DIR}/tests/rt)
  target_compile_options(cblas_test_${t} PRIVATE ${OA_WARN})
  add_test(NAME cblas_${t} COMMAND cblas_test_${t})
  set_tests_properties(cblas_${t} PROPERTIES LABELS "cblas;sanitize" TIMEOUT 300
    ENVIRONMENT "ASCEND_GLOBAL_LOG_LEVEL=4")
endforeach()

# The API symbol test links every declared function, acl_cblas.h's included.
if(TARGET api_symbols)
  target_link_libraries(api_symbols PRIVATE acl_cblas)
endif()
