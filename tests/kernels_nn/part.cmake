# tests/kernels_nn: the NN kernels (Conv, ConvTranspose, pools, LRN, MatMul,
# Gemm, openacl.Reorder): every oneDNN kernel against the reference on
# random configurations, the ONNX node tests of both, and the fusion and
# layout passes on small graphs.
set(KNN_NODE_RUNNER ${CMAKE_CURRENT_LIST_DIR}/../kernels_shape/node_runner.c)
set(KNN_NODE_DIR /usr/share/libonnx-testdata/data/node)
if(EXISTS ${KNN_NODE_RUNNER} AND EXISTS ${KNN_NODE_DIR})
  add_executable(knn_node_runner ${KNN_NODE_RUNNER})
  target_link_libraries(knn_node_runner PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,ascendcl_internal>")
  target_link_options(knn_node_runner PRIVATE -no-pie -Wl,--unresolved-symbols=ignore-in-object-files)
  set(KNN_OPS conv basic_conv convtranspose averagepool maxpool globalaveragepool
      globalmaxpool lrn gemm matmul_ lppool globallppool)
  add_test(NAME kernels_nn_onnx_nodes COMMAND knn_node_runner ${KNN_NODE_DIR} ${KNN_OPS})
  add_test(NAME kernels_nn_onnx_nodes_ref COMMAND knn_node_runner ${KNN_NODE_DIR} ${KNN_OPS})
  set_tests_properties(kernels_nn_onnx_nodes PROPERTIES LABELS "kernels" TIMEOUT 300)
  set_tests_properties(kernels_nn_onnx_nodes_ref PROPERTIES LABELS "kernels;sanitize" TIMEOUT 300
    ENVIRONMENT "OPENACL_FORCE_REF=1")
endif()

add_executable(knn_random ${CMAKE_CURRENT_LIST_DIR}/test_nn_random.c)
target_link_libraries(knn_random PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,ascendcl_internal>")
target_compile_options(knn_random PRIVATE ${OA_WARN})
target_link_options(knn_random PRIVATE -no-pie -Wl,--unresolved-symbols=ignore-in-object-files)
add_test(NAME kernels_nn_random COMMAND knn_random 150)
set_tests_properties(kernels_nn_random PROPERTIES LABELS "kernels;sanitize" TIMEOUT 300)
