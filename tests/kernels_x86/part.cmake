# tests/kernels_x86: the hand-written x86 vector kernels (src/kernels/x86)
# against the reference implementations of the same ops, byte for byte where
# the arithmetic is the same; skipped (77) on a CPU without AVX-512.
add_executable(kx86_vs_ref ${CMAKE_CURRENT_LIST_DIR}/x86_vs_ref.c)
target_link_libraries(kx86_vs_ref PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,ascendcl_internal>" m)
target_compile_options(kx86_vs_ref PRIVATE ${OA_WARN})
add_test(NAME kernels_x86_vs_ref COMMAND kx86_vs_ref)
set_tests_properties(kernels_x86_vs_ref PROPERTIES TIMEOUT 120 LABELS "kernels;sanitize" SKIP_RETURN_CODE 77)

# the bf16 squeeze-excite steps (kernels/x86/x86_scale.c) against plain C
add_executable(kx86_scale_bf16 ${CMAKE_CURRENT_LIST_DIR}/scale_bf16.c)
target_link_libraries(kx86_scale_bf16 PRIVATE ascendcl_internal m)
target_compile_options(kx86_scale_bf16 PRIVATE ${OA_WARN})
add_test(NAME kernels_x86_scale_bf16 COMMAND kx86_scale_bf16)
set_tests_properties(kernels_x86_scale_bf16 PROPERTIES TIMEOUT 30 LABELS "kernels;sanitize" SKIP_RETURN_CODE 77)
