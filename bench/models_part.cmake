# bench (models): openacl's side of the real-model benchmark against ONNX
# Runtime (bench/models.sh runs it with tools/ortref side by side).
add_executable(mdl_bench ${CMAKE_CURRENT_LIST_DIR}/mdl_bench.c)
# --no-as-needed: the API references are weak (see mdl_bench.c).
target_link_libraries(mdl_bench PRIVATE -Wl,--no-as-needed ascendcl -Wl,--as-needed oa_npy m Threads::Threads)
target_compile_options(mdl_bench PRIVATE ${OA_WARN})
