# tools/npy: the .npy reader/writer used by openacl's C tests and tools
# (static, never linked into libascendcl).
add_library(oa_npy STATIC ${CMAKE_CURRENT_LIST_DIR}/npy.c)
target_include_directories(oa_npy PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_compile_options(oa_npy PRIVATE ${OA_WARN})
