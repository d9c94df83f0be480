# tests/tools: unit tests of the test tooling itself (tools/npy).
add_executable(npy_test ${CMAKE_CURRENT_LIST_DIR}/npy_test.c)
target_link_libraries(npy_test PRIVATE oa_npy)
target_compile_options(npy_test PRIVATE ${OA_WARN})
# Round trip against numpy: numpy writes, C reads and writes back, numpy compares.
find_program(OA_SYS_PYTHON NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
add_test(NAME tools_npy_roundtrip
  COMMAND ${OA_SYS_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/npy_roundtrip.py
          --bin $<TARGET_FILE:npy_test> --dir ${CMAKE_BINARY_DIR}/tests/tools/npy_roundtrip)
set_tests_properties(tools_npy_roundtrip PROPERTIES LABELS "tools;sanitize" TIMEOUT 60)

# The same round trip for tools/ortref/npy.js (skipped without Node.js).
find_program(OA_NODE node)
if(OA_NODE)
  add_test(NAME tools_npy_js_roundtrip
    COMMAND ${OA_SYS_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/npy_roundtrip.py
            --bin "${OA_NODE} ${CMAKE_CURRENT_LIST_DIR}/npy_js_cli.js"
            --dir ${CMAKE_BINARY_DIR}/tests/tools/npy_js_roundtrip)
  set_tests_properties(tools_npy_js_roundtrip PROPERTIES LABELS "tools" TIMEOUT 120)
endif()
