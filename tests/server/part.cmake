# tests/server: openacl-server end to end (pytest with Debian's requests,
# curl and wrk, all on 127.0.0.1, each server on a port it picks itself),
# the codec unit test, and the request decoder's fuzz target.
#
#   server_repo      builds the test model repository with atc (fixture)
#   server_protocol  health, metadata, JSON/binary inference vs numpy and the
#                    in-process acl module, datatypes, errors, repository,
#                    metrics, access log
#   server_load      1,200 concurrent requests with and without batching,
#                    queue-full storm, timeouts, disconnects, slow loris,
#                    garbage, unload under load, wrk, SIGTERM drain
#   server_short_load  a short load + unload + SIGTERM (label tsan: the
#                    ThreadSanitizer build runs it, see `make test-tsan`)
#   server_real_model  PP-OCRv4 cls (models/) vs the in-process result
#   server_deploy    deploy/: yamllint, manifest fields and cross-links, the
#                    container arguments, the image entrypoint run for real,
#                    and on the files of the .deb when `make deb` made one
#   server_codec, fuzz_replay_server_infer   unit and seed replay, every build
#                    (router, size headers, tensor decoder and encoder)
#   fuzz_run_server_infer  the libFuzzer run (`make fuzz`)
find_library(OA_TS_MHD microhttpd)
if(NOT OA_TS_MHD)
  return()
endif()
set(OA_TS_DIR ${CMAKE_CURRENT_LIST_DIR})
set(OA_TS_SRV ${CMAKE_SOURCE_DIR}/tools/server)

add_executable(server_codec ${OA_TS_DIR}/test_codec.c ${OA_TS_SRV}/codec.c)
target_include_directories(server_codec PRIVATE ${OA_TS_SRV} ${CMAKE_SOURCE_DIR}/include ${CJSON_INCLUDE_DIR})
target_link_libraries(server_codec PRIVATE ${CJSON_LIBRARY} m)
target_compile_options(server_codec PRIVATE ${OA_WARN})
add_test(NAME server_codec COMMAND server_codec)
set_tests_properties(server_codec PROPERTIES LABELS "server;sanitize" TIMEOUT 60)

add_executable(fuzz_replay_server_infer ${OA_TS_DIR}/fuzz_server_infer.c ${OA_TS_SRV}/codec.c
               ${CMAKE_SOURCE_DIR}/tests/fuzz/replay_main.c)
target_include_directories(fuzz_replay_server_infer PRIVATE ${OA_TS_SRV} ${CMAKE_SOURCE_DIR}/include
                           ${CJSON_INCLUDE_DIR})
target_link_libraries(fuzz_replay_server_infer PRIVATE ${CJSON_LIBRARY} m)
target_compile_options(fuzz_replay_server_infer PRIVATE ${OA_WARN})
add_test(NAME fuzz_replay_server_infer COMMAND fuzz_replay_server_infer ${OA_TS_DIR}/fuzz_seeds)
set_tests_properties(fuzz_replay_server_infer PROPERTIES LABELS "server;fuzz-regression;sanitize" TIMEOUT 120
                     SKIP_RETURN_CODE 77)

if(OPENACL_FUZZ AND TARGET fuzz_targets)
  add_executable(fuzz_server_infer ${OA_TS_DIR}/fuzz_server_infer.c ${OA_TS_SRV}/codec.c)
  target_include_directories(fuzz_server_infer PRIVATE ${OA_TS_SRV} ${CMAKE_SOURCE_DIR}/include ${CJSON_INCLUDE_DIR})
  target_link_libraries(fuzz_server_infer PRIVATE ${CJSON_LIBRARY} m)
  target_compile_options(fuzz_server_infer PRIVATE ${OA_WARN} -fsanitize=fuzzer)
  target_link_options(fuzz_server_infer PRIVATE -fsanitize=fuzzer)
  add_dependencies(fuzz_targets fuzz_server_infer)
  add_test(NAME fuzz_run_server_infer
    COMMAND sh ${CMAKE_SOURCE_DIR}/tests/fuzz/run_fuzz.sh $<TARGET_FILE:fuzz_server_infer>
            ${CMAKE_BINARY_DIR}/fuzz/server_infer ${OA_TS_DIR}/fuzz_infer.dict ${OA_TS_DIR}/fuzz_seeds)
  set_tests_properties(fuzz_run_server_infer PROPERTIES LABELS "fuzz" RUN_SERIAL ON
                       ENVIRONMENT "FUZZ_SEED_NAME=*;FUZZ_CI_RUNS=200000")
endif()

set(OA_TS_REPO ${CMAKE_CURRENT_BINARY_DIR}/server_repo)
add_test(NAME server_repo COMMAND /usr/bin/python3 ${OA_TS_DIR}/make_repo.py $<TARGET_FILE:atc> ${OA_TS_REPO})
set_tests_properties(server_repo PROPERTIES FIXTURES_SETUP server_repo LABELS "server;tsan" TIMEOUT 300)
set(OA_TS_ENV "OPENACL_SERVER=$<TARGET_FILE:openacl-server>;SERVER_REPO=${OA_TS_REPO};PYTHONDONTWRITEBYTECODE=1"
    "PYTHONPATH=${CMAKE_BINARY_DIR}/python;OPENACL_DEB_DIR=${CMAKE_BINARY_DIR}")
foreach(t "protocol|test_protocol.py|" "load|test_load.py|not test_short_load" "short_load|test_load.py|test_short_load"
          "deploy|test_deploy.py|")
  string(REPLACE "|" ";" parts "${t}")
  list(GET parts 0 name)
  list(GET parts 1 file)
  list(GET parts 2 expr)
  set(sel)
  if(expr)
    set(sel -k "${expr}")
  endif()
  add_test(NAME server_${name}
    COMMAND /usr/bin/python3 -m pytest -q -p no:cacheprovider ${sel} ${OA_TS_DIR}/${file})
  set(labels "server")
  if(name STREQUAL "short_load")
    set(labels "server;tsan")
  endif()
  set_tests_properties(server_${name} PROPERTIES FIXTURES_REQUIRED server_repo LABELS "${labels}" TIMEOUT 300
                       ENVIRONMENT "${OA_TS_ENV}")
endforeach()

# A real model (PP-OCRv4 cls from `make models`) against the in-process
# result; 77 (skipped) without models/ or the acl module.
add_test(NAME server_real_model COMMAND /usr/bin/python3 ${OA_TS_DIR}/test_real_model.py)
set_tests_properties(server_real_model PROPERTIES LABELS "server" TIMEOUT 300 SKIP_RETURN_CODE 77
                     ENVIRONMENT "${OA_TS_ENV};OPENACL_ATC=$<TARGET_FILE:atc>")
