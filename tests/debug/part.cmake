# tests/debug: the debugging workflow of issue 22 — the operator dump
# (aclInit JSON, aclmdlSetDump), the profiler section and acl_prof.h,
# openacl-run --dump/--profiler and openacl-compare, on models generated at
# test time (fixture debug_models).
set(OA_DEBUG_MODELS ${CMAKE_CURRENT_BINARY_DIR}/debug_models)
set(OA_DEBUG_SCRATCH ${CMAKE_CURRENT_BINARY_DIR}/debug_scratch)
file(MAKE_DIRECTORY ${OA_DEBUG_SCRATCH})

add_test(NAME debug_models COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/make_models.py ${OA_DEBUG_MODELS})
set_tests_properties(debug_models PROPERTIES FIXTURES_SETUP debug_models LABELS "sanitize")

add_executable(test_dump_api ${CMAKE_CURRENT_LIST_DIR}/test_dump_api.c)
target_link_libraries(test_dump_api PRIVATE ascendcl Threads::Threads m)
add_test(NAME debug_dump_api COMMAND test_dump_api ${OA_DEBUG_MODELS} ${OA_DEBUG_SCRATCH})
set_tests_properties(debug_dump_api PROPERTIES FIXTURES_REQUIRED debug_models LABELS "sanitize" TIMEOUT 120)

# openacl-run --dump/--profiler, the dump against an unfused run, the index's
# coverage, openacl-compare on a corrupted and a bf16 compiled model.
add_test(NAME debug_workflow
  COMMAND /usr/bin/python3 -m pytest -q -p no:cacheprovider ${CMAKE_CURRENT_LIST_DIR}/test_debug.py)
set_tests_properties(debug_workflow PROPERTIES FIXTURES_REQUIRED debug_models LABELS "cli" TIMEOUT 600
  ENVIRONMENT "OPENACL_RUN=$<TARGET_FILE:openacl-run>;OPENACL_ATC=$<TARGET_FILE:atc>;OPENACL_COMPARE=${CMAKE_BINARY_DIR}/openacl-compare;DEBUG_MODELS=${OA_DEBUG_MODELS};LIBASCENDCL=$<TARGET_FILE:ascendcl>;OA_SANITIZE=${OPENACL_SANITIZE};PYTHONDONTWRITEBYTECODE=1")

# A bf16 ResNet-50 (models/, skipped when not built): every layer's cosine.
add_test(NAME debug_compare_resnet50_bf16
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/compare_real.py $<TARGET_FILE:atc> ${CMAKE_BINARY_DIR}/openacl-compare
          ${CMAKE_SOURCE_DIR}/models resnet50 ${OA_DEBUG_SCRATCH}/resnet50)
set_tests_properties(debug_compare_resnet50_bf16 PROPERTIES SKIP_RETURN_CODE 77 LABELS "cli;models" TIMEOUT 600
  ENVIRONMENT "OPENACL_RUN=$<TARGET_FILE:openacl-run>")
