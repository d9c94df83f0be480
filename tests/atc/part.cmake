# tests/atc: the offline compiler and compiled models. The fixture builds
# small ONNX models with numpy references and compiles them with atc; the
# tests run every kind of gear through the public API, every atc flag error,
# the compiled-model reader on damaged files, bfloat16 compiles, and a real
# model (skipped, 77, without scripts/models.sh).
set(OA_ATC_MODELS ${CMAKE_CURRENT_BINARY_DIR}/atc_models)
add_test(NAME atc_models
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/make_models.py $<TARGET_FILE:atc> ${OA_ATC_MODELS})
set_tests_properties(atc_models PROPERTIES FIXTURES_SETUP atc_models LABELS "sanitize" TIMEOUT 300)

add_executable(test_atc_api ${CMAKE_CURRENT_LIST_DIR}/test_atc_api.c)
target_link_libraries(test_atc_api PRIVATE ascendcl Threads::Threads m)
target_compile_options(test_atc_api PRIVATE ${OA_WARN})
add_test(NAME atc_api COMMAND test_atc_api ${OA_ATC_MODELS})
set_tests_properties(atc_api PROPERTIES FIXTURES_REQUIRED atc_models LABELS "sanitize" TIMEOUT 300)

# The reader on damaged images (bit flips, resealed mutants, truncation,
# moved sections, huge counts, newer versions): white-box, internal archive.
add_executable(om_fuzz ${CMAKE_CURRENT_LIST_DIR}/om_fuzz.c)
target_link_libraries(om_fuzz PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,ascendcl_internal>")
target_compile_options(om_fuzz PRIVATE ${OA_WARN})
add_test(NAME atc_om_fuzz COMMAND om_fuzz ${OA_ATC_MODELS})
set_tests_properties(atc_om_fuzz PROPERTIES FIXTURES_REQUIRED atc_models LABELS "sanitize" TIMEOUT 600
  ENVIRONMENT "ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=1;ASCEND_GLOBAL_LOG_LEVEL=4")

# atc's command line: every flag error, --mode=1 JSON, the progress display.
add_test(NAME atc_cli
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/test_atc_cli.py $<TARGET_FILE:atc> ${OA_ATC_MODELS}
          ${CMAKE_CURRENT_BINARY_DIR}/atc_cli_scratch)
set_tests_properties(atc_cli PROPERTIES FIXTURES_REQUIRED atc_models TIMEOUT 300)

# A real model (mobilenet_v2, batch gears 1,2,4) run by openacl-run per gear
# against ONNX Runtime per sample; 77 (skipped) without scripts/models.sh.
# (tools/ parts are included after tests/: the targets are named, not tested)
add_test(NAME atc_real_model
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/real_model.py $<TARGET_FILE:atc>
          $<TARGET_FILE:openacl-run> ${CMAKE_CURRENT_BINARY_DIR}/atc_real_scratch)
set_tests_properties(atc_real_model PROPERTIES LABELS "models" SKIP_RETURN_CODE 77 TIMEOUT 900)

# bfloat16 compiled models (atc --precision_mode=allow_fp32_to_bf16) through
# openacl-run: recorded precision, smaller weights, bf16 results equal to the
# ONNX model's bf16 path at 2 and 1 threads, OPENACL_PRECISION ignored, float32
# fallback without bf16 (ONEDNN_MAX_CPU_ISA) or with OPENACL_FORCE_REF. The
# test net always (77 where the CPU has no bf16), mobilenet_v2 with the model
# set (77 without scripts/models.sh).
add_test(NAME atc_bf16
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/bf16_run.py $<TARGET_FILE:atc> $<TARGET_FILE:openacl-run>
          ${OA_ATC_MODELS} ${CMAKE_CURRENT_BINARY_DIR}/atc_bf16_scratch)
set_tests_properties(atc_bf16 PROPERTIES FIXTURES_REQUIRED atc_models LABELS "sanitize" SKIP_RETURN_CODE 77
  TIMEOUT 300)
add_test(NAME atc_bf16_real
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/bf16_run.py $<TARGET_FILE:atc> $<TARGET_FILE:openacl-run>
          ${OA_ATC_MODELS} ${CMAKE_CURRENT_BINARY_DIR}/atc_bf16_scratch --real)
set_tests_properties(atc_bf16_real PROPERTIES FIXTURES_REQUIRED atc_models LABELS "models" SKIP_RETURN_CODE 77
  TIMEOUT 300)
