# tests/kernels_shape: the reference data-movement kernels (shape_*, index_*,
# resize*, cast*, einsum*) called directly through the registry.
add_executable(ksh_unit_test ${CMAKE_CURRENT_LIST_DIR}/unit_test.c)
target_link_libraries(ksh_unit_test PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,ascendcl_internal>")
target_compile_options(ksh_unit_test PRIVATE ${OA_WARN})
# The whole archive is linked so every K_REGISTER'ed kernel is present; parts
# of the library still in progress may leave symbols these tests never call.
target_link_options(ksh_unit_test PRIVATE -no-pie)
add_test(NAME kernels_shape_unit COMMAND ksh_unit_test)
set_tests_properties(kernels_shape_unit PROPERTIES LABELS "kernels;sanitize" TIMEOUT 120)

# Random shapes/attributes/values: refusals must be error codes, never crashes.
add_executable(ksh_fuzz_test ${CMAKE_CURRENT_LIST_DIR}/fuzz_test.c)
target_link_libraries(ksh_fuzz_test PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,ascendcl_internal>")
target_compile_options(ksh_fuzz_test PRIVATE ${OA_WARN})
target_link_options(ksh_fuzz_test PRIVATE -no-pie)
add_test(NAME kernels_shape_fuzz COMMAND ksh_fuzz_test 20000)
set_tests_properties(kernels_shape_fuzz PROPERTIES LABELS "kernels;sanitize" TIMEOUT 300
  ENVIRONMENT "ASCEND_GLOBAL_LOG_LEVEL=4")

# ONNX backend node tests of these ops, run without the engine.
add_executable(ksh_node_runner ${CMAKE_CURRENT_LIST_DIR}/node_runner.c)
target_link_libraries(ksh_node_runner PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,ascendcl_internal>")
target_compile_options(ksh_node_runner PRIVATE ${OA_WARN})
target_link_options(ksh_node_runner PRIVATE -no-pie)
set(KSH_NODE_DIR /usr/share/libonnx-testdata/data/node)
if(EXISTS ${KSH_NODE_DIR})
  add_test(NAME kernels_shape_onnx_nodes
    COMMAND ksh_node_runner ${KSH_NODE_DIR} -x STRING
      reshape flatten squeeze unsqueeze transpose concat split slice gather scatter
      expand tile edge_pad reflect_pad constant_pad shape size constantofshape range
      where nonzero top_k onehot resize upsample depthtospace spacetodepth cast
      eyelike trilu reversesequence compress einsum unique nonmaxsuppression gridsample)
  set_tests_properties(kernels_shape_onnx_nodes PROPERTIES LABELS "kernels;sanitize" TIMEOUT 300)
endif()
