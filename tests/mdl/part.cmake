# aclmdl tests: the documented flow and every misuse, on small ONNX models
# generated at test time (fixture mdl_models) with numpy-computed outputs.
set(OA_MDL_MODELS ${CMAKE_CURRENT_BINARY_DIR}/mdl_models)
set(OA_MDL_SCRATCH ${CMAKE_CURRENT_BINARY_DIR}/mdl_scratch)
file(MAKE_DIRECTORY ${OA_MDL_SCRATCH})

add_test(NAME mdl_models COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/make_models.py ${OA_MDL_MODELS})
set_tests_properties(mdl_models PROPERTIES FIXTURES_SETUP mdl_models LABELS "sanitize;tsan")

add_executable(test_mdl_flow ${CMAKE_CURRENT_LIST_DIR}/test_mdl_flow.c)
target_link_libraries(test_mdl_flow PRIVATE ascendcl Threads::Threads m)
add_test(NAME mdl_flow COMMAND test_mdl_flow ${OA_MDL_MODELS})
set_tests_properties(mdl_flow PROPERTIES FIXTURES_REQUIRED mdl_models LABELS "sanitize;tsan" TIMEOUT 300)

add_executable(test_mdl_misuse ${CMAKE_CURRENT_LIST_DIR}/test_mdl_misuse.c)
target_link_libraries(test_mdl_misuse PRIVATE ascendcl Threads::Threads m)
add_test(NAME mdl_misuse COMMAND test_mdl_misuse ${OA_MDL_MODELS} ${OA_MDL_SCRATCH})
set_tests_properties(mdl_misuse PROPERTIES FIXTURES_REQUIRED mdl_models LABELS "sanitize" TIMEOUT 300)

add_executable(test_mdl_header_cpp ${CMAKE_CURRENT_LIST_DIR}/header_cpp.cpp)
target_link_libraries(test_mdl_header_cpp PRIVATE ascendcl)
add_test(NAME mdl_header_cpp COMMAND test_mdl_header_cpp)

# A data-dependent output shape (NonZero) returned through a runtime-allocated
# output buffer and the dataset's tensor descriptor.
add_test(NAME mdl_dynamic_output COMMAND test_mdl_flow ${OA_MDL_MODELS} --dynamic-output)
set_tests_properties(mdl_dynamic_output PROPERTIES FIXTURES_REQUIRED mdl_models LABELS "sanitize" TIMEOUT 120)

# An ONNX file's weights are held about once while loading (file pages
# released behind the copies): a 64 MiB embedding in a fresh process, plus
# the protobuf shapes that must take the plain path (checked for values).
add_executable(test_load_peak ${CMAKE_CURRENT_LIST_DIR}/test_load_peak.c ${CMAKE_SOURCE_DIR}/tests/fuzz/onnx_writer.c)
target_include_directories(test_load_peak PRIVATE ${CMAKE_SOURCE_DIR}/tests/fuzz)
target_link_libraries(test_load_peak PRIVATE ascendcl)
target_compile_options(test_load_peak PRIVATE ${OA_WARN})
add_test(NAME mdl_load_peak COMMAND test_load_peak ${OA_MDL_SCRATCH})
set_tests_properties(mdl_load_peak PROPERTIES LABELS "sanitize" TIMEOUT 300)
