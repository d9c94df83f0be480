# tests/engine: the engine (import, passes, planner, executor) and the ONNX
# backend test data run through the engine API.
add_library(oa_onnx_testdata STATIC ${CMAKE_CURRENT_LIST_DIR}/../common/onnx_testdata.c)
target_include_directories(oa_onnx_testdata PUBLIC ${CMAKE_CURRENT_LIST_DIR}/../common)
target_compile_options(oa_onnx_testdata PRIVATE ${OA_WARN})
target_link_libraries(oa_onnx_testdata PUBLIC m)

# The whole archive is linked so every K_REGISTER'ed kernel is present.
function(oa_engine_test_exe name)
  add_executable(${name} ${ARGN})
  target_link_libraries(${name} PRIVATE oa_onnx_testdata "$<LINK_LIBRARY:WHOLE_ARCHIVE,ascendcl_internal>")
  target_compile_options(${name} PRIVATE ${OA_WARN})
  target_link_options(${name} PRIVATE -no-pie)
endfunction()

oa_engine_test_exe(engine_runner ${CMAKE_CURRENT_LIST_DIR}/engine_runner.c)
oa_engine_test_exe(engine_unit_test ${CMAKE_CURRENT_LIST_DIR}/engine_unit_test.c)

add_test(NAME engine_unit COMMAND engine_unit_test)
set_tests_properties(engine_unit PROPERTIES LABELS "engine;sanitize;tsan" TIMEOUT 120)

oa_engine_test_exe(engine_fuzz ${CMAKE_CURRENT_LIST_DIR}/engine_fuzz.c)

set(OA_ONNX_TESTDATA /usr/share/libonnx-testdata/data)
file(GLOB OA_ONNX_TEST_MODELS ${OA_ONNX_TESTDATA}/*/test_*/model.onnx)
if(OA_ONNX_TEST_MODELS)
  # Mutations of every backend-test model: load (and run when it loads) must
  # refuse or succeed, never crash. Most useful in the sanitizer builds.
  add_test(NAME engine_fuzz COMMAND engine_fuzz --iters 20 ${OA_ONNX_TEST_MODELS})
  set_tests_properties(engine_fuzz PROPERTIES LABELS "engine;sanitize;fuzz" TIMEOUT 600
                       SKIP_RETURN_CODE 77)
endif()
if(EXISTS ${OA_ONNX_TESTDATA}/node)
  # Fails on any crash/timeout or when the node pass rate drops below the floor.
  add_test(NAME onnx_backend_engine
    COMMAND engine_runner --data ${OA_ONNX_TESTDATA} --timeout 60
            --results ${CMAKE_BINARY_DIR}/onnx_backend_engine_results.txt --min-node-pass 95)
  set_tests_properties(onnx_backend_engine PROPERTIES LABELS "engine;onnx" TIMEOUT 900)
endif()

# Developer tool: a real model through the engine API with timings and a
# comparison against reference outputs (see tests/models for the model set).
# (tools/npy's part is included after this one, so its source is compiled in here.)
if(EXISTS ${CMAKE_SOURCE_DIR}/tools/npy/npy.c)
  oa_engine_test_exe(engine_model_check ${CMAKE_CURRENT_LIST_DIR}/engine_model_check.c
                     ${CMAKE_SOURCE_DIR}/tools/npy/npy.c)
  target_include_directories(engine_model_check PRIVATE ${CMAKE_SOURCE_DIR}/tools/npy)
endif()

# Concat in place (graph/plan.h): the planner on hand-built graphs, then
# models with numpy references (make_concat_nets.py, compiled ones by atc)
# with and without OPENACL_NO_CONCAT_INPLACE.
oa_engine_test_exe(concat_inplace_test ${CMAKE_CURRENT_LIST_DIR}/concat_inplace_test.c)
set(OA_CONCAT_NETS ${CMAKE_CURRENT_BINARY_DIR}/concat_nets)
add_test(NAME engine_concat_nets
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/make_concat_nets.py $<TARGET_FILE:atc> ${OA_CONCAT_NETS})
set_tests_properties(engine_concat_nets PROPERTIES FIXTURES_SETUP concat_nets LABELS "engine;sanitize" TIMEOUT 300)
add_test(NAME engine_concat_inplace COMMAND concat_inplace_test ${OA_CONCAT_NETS})
set_tests_properties(engine_concat_inplace PROPERTIES FIXTURES_REQUIRED concat_nets
  LABELS "engine;sanitize" TIMEOUT 300)
