# bench (models): openacl's side of the real-model benchmark against ONNX
# Runtime (bench/models.sh runs it with tools/ortref side by side).
add_executable(mdl_bench ${CMAKE_CURRENT_LIST_DIR}/mdl_bench.c)
# --no-as-needed: the API references are weak (see mdl_bench.c).
target_link_libraries(mdl_bench PRIVATE -Wl,--no-as-needed ascendcl -Wl,--as-needed oa_npy m Threads::Threads)
target_compile_options(mdl_bench PRIVATE ${OA_WARN})
# conv_impls: every oneDNN implementation of one convolution shape, timed
# side by side (which one the rule in kernels/dnnl/dn_conv.c should pick).
add_executable(conv_impls ${CMAKE_CURRENT_LIST_DIR}/conv_impls.c)
target_include_directories(conv_impls PRIVATE ${DNNL_INCLUDE_DIR})
target_link_libraries(conv_impls PRIVATE ${DNNL_LIBRARY})
target_compile_options(conv_impls PRIVATE ${OA_WARN})
# qconv_wino: oneDNN's int8 Winograd F(2x2,3x3) against the direct int8
# primitive on one 3x3 layer, time and error (docs/quantization.md, 7).
add_executable(qconv_wino ${CMAKE_CURRENT_LIST_DIR}/qconv_wino.c)
target_include_directories(qconv_wino PRIVATE ${DNNL_INCLUDE_DIR})
target_link_libraries(qconv_wino PRIVATE ${DNNL_LIBRARY} m)
target_compile_options(qconv_wino PRIVATE ${OA_WARN})

# qconv_mm: an int8 1x1 (or im2col 3x3) layer as oneDNN's convolution and as
# its int8 matmul, with or without the folded residual's post-op chain
add_executable(qconv_mm ${CMAKE_CURRENT_LIST_DIR}/qconv_mm.c)
target_include_directories(qconv_mm PRIVATE ${DNNL_INCLUDE_DIR})
target_link_libraries(qconv_mm PRIVATE ${DNNL_LIBRARY} m)
target_compile_options(qconv_mm PRIVATE ${OA_WARN})

# qpw_bench: an int8 1x1 layer as oneDNN's convolution and as
# kernels/dnnl/dn_qpw.c's VNNI loop, timed side by side on the same bytes
add_executable(qpw_bench ${CMAKE_CURRENT_LIST_DIR}/qpw_bench.c ${CMAKE_SOURCE_DIR}/src/kernels/dnnl/dn_qpw.c)
target_include_directories(qpw_bench PRIVATE ${DNNL_INCLUDE_DIR} ${CMAKE_SOURCE_DIR}/src)
target_link_libraries(qpw_bench PRIVATE ${DNNL_LIBRARY} oa_openmp m)
target_compile_options(qpw_bench PRIVATE ${OA_WARN})
