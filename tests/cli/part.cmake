# tests/cli: openacl-run end to end on small models generated at test time
# (fixture cli_models), plus a real model from models/ when it is there.
set(OA_CLI_MODELS ${CMAKE_CURRENT_BINARY_DIR}/cli_models)
add_test(NAME cli_models COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/make_models.py ${OA_CLI_MODELS})
set_tests_properties(cli_models PROPERTIES FIXTURES_SETUP cli_models LABELS "cli;sanitize;tsan")

# One CTest per group of pytest cases: outputs, summary/devices, errors.
set(OA_CLI_ENV "OPENACL_RUN=$<TARGET_FILE:openacl-run>;CLI_MODELS=${OA_CLI_MODELS};PYTHONDONTWRITEBYTECODE=1")
foreach(group "outputs|test_out_" "summary|test_json_ or test_two_ or test_workers_ or test_help"
              "errors|test_err")
  string(REPLACE "|" ";" parts "${group}")
  list(GET parts 0 name)
  list(GET parts 1 expr)
  add_test(NAME cli_${name}
    COMMAND /usr/bin/python3 -m pytest -q -p no:cacheprovider -k "${expr}" ${CMAKE_CURRENT_LIST_DIR}/test_cli.py)
  set_tests_properties(cli_${name} PROPERTIES FIXTURES_REQUIRED cli_models LABELS "cli;sanitize;tsan" TIMEOUT 300
    ENVIRONMENT "${OA_CLI_ENV}")
endforeach()

# A real model from scripts/models.sh: its stored input in, its ONNX Runtime
# reference out (skipped, 77, when models/ has not been built).
add_test(NAME cli_real_model
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/real_model.py $<TARGET_FILE:openacl-run>
          ${CMAKE_SOURCE_DIR}/models mobilenet_v2 ${CMAKE_CURRENT_BINARY_DIR}/real_model)
set_tests_properties(cli_real_model PROPERTIES SKIP_RETURN_CODE 77 LABELS "cli" TIMEOUT 300)
