# tests/aipp: AIPP compiled into a model (atc --insert_op_conf). Every input
# format, crop/padding combinations and the samples' CSC matrices against a
# numpy reference (exact), and bad configuration files refused with the line
# (aipp_atc, which also leaves the compiled models); then the description
# calls and the execute-time size check on those models (aipp_api).
# (tools/ parts are included after tests/: the targets are named, not tested)
set(OA_AIPP_SCRATCH ${CMAKE_CURRENT_BINARY_DIR}/aipp_scratch)
add_test(NAME aipp_atc
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/test_aipp.py $<TARGET_FILE:atc> $<TARGET_FILE:openacl-run>
          ${OA_AIPP_SCRATCH})
set_tests_properties(aipp_atc PROPERTIES FIXTURES_SETUP aipp_models TIMEOUT 300)

add_executable(test_aipp_api ${CMAKE_CURRENT_LIST_DIR}/test_aipp_api.c)
target_link_libraries(test_aipp_api PRIVATE ascendcl m)
target_compile_options(test_aipp_api PRIVATE ${OA_WARN})
add_test(NAME aipp_api COMMAND test_aipp_api ${OA_AIPP_SCRATCH})
set_tests_properties(aipp_api PROPERTIES FIXTURES_REQUIRED aipp_models LABELS "sanitize" TIMEOUT 300)
