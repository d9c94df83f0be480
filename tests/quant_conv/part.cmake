# tests/quant_conv: the int8 convolution path (graph/qdq_conv.c,
# kernels/dnnl/dn_qconv.c, kernels/ref/nn_qlinear.c) on small hand-built QDQ
# and QOperator graphs, against ONNX Runtime (tools/ortref) through the
# public API (tests/models' mdl_run); skipped (77) without onnxruntime-node.
add_test(NAME quant_conv_nets
  COMMAND ${OA_SYS_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/qdq_nets.py --mdl-run $<TARGET_FILE:mdl_run>)
set_tests_properties(quant_conv_nets PROPERTIES LABELS "kernels" SKIP_RETURN_CODE 77 TIMEOUT 600)
