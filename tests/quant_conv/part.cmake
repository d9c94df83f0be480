# tests/quant_conv: the int8 convolution path (graph/qdq_conv.c,
# kernels/dnnl/dn_qconv.c, kernels/ref/nn_qlinear.c) on small hand-built QDQ
# and QOperator graphs, against ONNX Runtime (tools/ortref) through the
# public API (tests/models' mdl_run); skipped (77) without onnxruntime-node.
add_test(NAME quant_conv_nets
  COMMAND ${OA_SYS_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/qdq_nets.py --mdl-run $<TARGET_FILE:mdl_run>)
set_tests_properties(quant_conv_nets PROPERTIES LABELS "kernels" SKIP_RETURN_CODE 77 TIMEOUT 600)

# Real models: openacl-quant's QDQ file of each, openacl vs ORT on it
# (cosine >= 0.999, same top-1), and for ResNet-50 the compiled (atc) int8
# model's size and outputs. Skipped (77) without the model set or the tool.
foreach(m resnet50 mobilenet_v2)
  set(oa_qargs)
  if(m STREQUAL "resnet50")
    set(oa_qargs --atc $<TARGET_FILE:atc>)
  endif()
  add_test(NAME quant_conv_model_${m}
    COMMAND ${OA_SYS_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/qdq_models.py --mdl-run $<TARGET_FILE:mdl_run>
            --name ${m} ${oa_qargs})
  set_tests_properties(quant_conv_model_${m} PROPERTIES LABELS "models" SKIP_RETURN_CODE 77 TIMEOUT 900)
endforeach()

# The same graphs and a tiny EfficientNet-like network run by the fast
# implementations (oneDNN, kernels/x86) and by OPENACL_FORCE_REF=1, compared
# with each other: byte for byte where every int8 op has a bit-exact fast
# form, within a step where oneDNN may round a tie the other way. Needs no
# ONNX Runtime, so the reference path runs wherever the tests do.
add_test(NAME quant_conv_ref_vs_simd
  COMMAND ${OA_SYS_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/ref_vs_simd.py --mdl-run $<TARGET_FILE:mdl_run>)
set_tests_properties(quant_conv_ref_vs_simd PROPERTIES LABELS "kernels" TIMEOUT 600)

# The qdq_affine pass (graph/qdq_affine.c): which scalar affines between
# quantised tensors it folds and which it must leave, outputs unchanged by it
# and within one step of ORT (tools/ortref); skipped (77) without onnxruntime-node.
add_test(NAME quant_conv_affine
  COMMAND ${OA_SYS_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/qdq_affine.py --mdl-run $<TARGET_FILE:mdl_run>)
set_tests_properties(quant_conv_affine PROPERTIES LABELS "kernels" SKIP_RETURN_CODE 77 TIMEOUT 600)

# The layout pass (graph/layout.c) asks a QLinearConv about its fused
# residual as input 9, and a convolution before QLinearGlobalAveragePool
# writes channels-last: no reorder in an int8 bottleneck block; reads atc's
# JSON dump of the compiled block, needs no ONNX Runtime.
add_test(NAME quant_conv_layout_residual
  COMMAND ${OA_SYS_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/layout_residual.py --atc $<TARGET_FILE:atc>)
set_tests_properties(quant_conv_layout_residual PROPERTIES LABELS "kernels" TIMEOUT 300)

# kernels/dnnl/dn_qpw.c's 1x1 loop against oneDNN's primitive on the same
# bytes (bench/qpw_bench: exit 3 on any differing byte, 77 without AVX-512
# VNNI): odd planes (tiles' tails), whole groups and the 1-16 / 17-32
# channel rests, chunks of wide layers, clamps, the residual chain, 1 to 3
# threads. Arguments: C M H W CLIP TURNS THREADS.
foreach(args "16;96;29;31;0;3;1" "24;144;13;17;1;3;3" "96;24;13;11;2;3;2" "192;32;7;9;2;3;1"
             "40;240;9;13;0;3;2" "8;80;13;11;1;3;1" "64;1024;5;7;1;3;3")
  string(REPLACE ";" "_" oa_qpw_name "${args}")
  add_test(NAME quant_conv_qpw_bytes_${oa_qpw_name} COMMAND qpw_bench ${args})
  set_tests_properties(quant_conv_qpw_bytes_${oa_qpw_name} PROPERTIES LABELS "kernels" SKIP_RETURN_CODE 77 TIMEOUT 60)
endforeach()

# The qdq_table pass (graph/qdq_table.c) and openacl.QTable: elementwise
# chains between quantised tensors (SiLU as ONNX Runtime's quantiser writes
# it, int8 bytes, a Tanh chain, float and graph-output readers) become
# 256-entry tables, bit for bit what the chain computes with the pass off and
# by the reference kernel, within one step of ORT (tools/ortref); chains of
# per-channel constants or of two quantised tensors stay. Skipped (77)
# without onnxruntime-node.
add_test(NAME quant_conv_table
  COMMAND ${OA_SYS_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/qdq_table.py --mdl-run $<TARGET_FILE:mdl_run>)
set_tests_properties(quant_conv_table PROPERTIES LABELS "kernels" SKIP_RETURN_CODE 77 TIMEOUT 600)
