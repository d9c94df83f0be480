# tests/atc: the offline compiler and compiled models. The fixture builds
# small ONNX models with numpy references and compiles them with atc; the
# tests run every kind of gear through the public API, every atc flag error,
# the compiled-model reader on damaged files, and a real model (skipped, 77,
# without scripts/models.sh).
set(OA_ATC_MODELS ${CMAKE_CURRENT_BINARY_DIR}/atc_models)
add_test(NAME atc_models
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/make_models.py $<TARGET_FILE:atc> ${OA_ATC_MODELS})
set_tests_properties(atc_models PROPERTIES FIXTURES_SETUP atc_models LABELS "sanitize" TIMEOUT 300)

add_executable(test_atc_api ${CMAKE_CURRENT_LIST_DIR}/test_atc_api.c)
target_link_libraries(test_atc_api PRIVATE ascendcl Threads::Threads m)
target_compile_options(test_atc_api PRIVATE ${OA_WARN})
add_test(NAME atc_api COMMAND test_atc_api ${OA_ATC_MODELS})
set_tests_properties(atc_api PROPERTIES FIXTURES_REQUIRED atc_models LABELS "sanitize" TIMEOUT 300)
