# bench/ortc: ONNX Runtime measured from C (ort_bench dlopen()s the
# libonnxruntime.so.1 of npm onnxruntime-node and uses ORT's C API table),
# the peer of mdl_bench for bench/run_models.py --ort-runner c.
add_executable(ort_bench ${CMAKE_CURRENT_LIST_DIR}/ort_bench.c)
target_compile_definitions(ort_bench PRIVATE
  ORTC_DEFAULT_LIB="${CMAKE_SOURCE_DIR}/third_party/npm/node_modules/onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime.so.1")
target_link_libraries(ort_bench PRIVATE oa_npy ${CMAKE_DL_LIBS} m Threads::Threads)
# --pair-openacl dlopen()s libascendcl: only its header types are compiled in
target_include_directories(ort_bench PRIVATE ${CMAKE_SOURCE_DIR}/include)
target_compile_options(ort_bench PRIVATE ${OA_WARN})

if(OPENACL_BUILD_TESTS)
  find_program(OA_SYS_PYTHON NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
  # Outputs of ORT from C against numpy on small generated models and against
  # tools/ortref's (Node) reference outputs of the real models that
  # scripts/models.sh built; exits 77 (skipped) without the npm library.
  add_test(NAME ortc_check
    COMMAND ${OA_SYS_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_ortc.py --ort-bench $<TARGET_FILE:ort_bench>)
  set_tests_properties(ortc_check PROPERTIES LABELS "bench;ortc" SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()
