# tests/kernels_dnnl: checks of the oneDNN-side helper passes (kernels/dnnl).
add_executable(kdn_silu_fast ${CMAKE_CURRENT_LIST_DIR}/silu_fast.c)
target_link_libraries(kdn_silu_fast PRIVATE ascendcl_internal m)
target_compile_options(kdn_silu_fast PRIVATE ${OA_WARN})
add_test(NAME kernels_dnnl_silu_fast COMMAND kdn_silu_fast)
set_tests_properties(kernels_dnnl_silu_fast PROPERTIES TIMEOUT 30 LABELS "kernels;sanitize")
