# tests/fuzz: libFuzzer targets over everything that parses untrusted bytes
# (models, configuration, compiled models, JPEG/PNG through the media API),
# their committed regression inputs, and the untrusted-model tests.
#
#  Every build:  fuzz_replay_<t>   replays tests/fuzz/regressions/<t>/* through
#                                  target <t> (plain main, no libFuzzer)
#                untrusted_models  hostile model files through the public API
#  Fuzz build (clang, -DOPENACL_FUZZ=ON, see `make fuzz`):
#                fuzz_<t>          the libFuzzer binaries (ASan+UBSan when
#                                  OPENACL_SANITIZE=address)
#                fuzz_run_<t>      CTest (label "fuzz") running fuzz_<t> for
#                                  $FUZZ_SECONDS (default 20) from the seeds
option(OPENACL_FUZZ "Build the libFuzzer targets (needs clang)" OFF)

set(OA_FUZZ_DIR ${CMAKE_CURRENT_LIST_DIR})
set(OA_FUZZ_TARGETS onnx config)
if(EXISTS ${OA_FUZZ_DIR}/fuzz_om.c)
  list(APPEND OA_FUZZ_TARGETS om)
endif()
# the AIPP configuration text of atc --insert_op_conf (graph/aipp_cfg.c)
if(EXISTS ${OA_FUZZ_DIR}/fuzz_aipp.c)
  list(APPEND OA_FUZZ_TARGETS aipp)
endif()
# JPEG/PNG decoding of the media library (src/dvpp), through its public API
if(EXISTS ${OA_FUZZ_DIR}/fuzz_dvpp.c AND OA_DVPP_SOURCES)
  list(APPEND OA_FUZZ_TARGETS dvpp)
endif()

function(oa_fuzz_link name)
  target_include_directories(${name} PRIVATE ${OA_FUZZ_DIR} ${CMAKE_SOURCE_DIR}/include)
  target_compile_options(${name} PRIVATE ${OA_WARN})
  if(name MATCHES "_dvpp$")
    # the companion library's sources compiled in (with the target's coverage
    # flags): a sanitizer build of clang cannot link the shared libraries
    # with --no-undefined, and the fuzzer wants coverage of them anyway
    target_sources(${name} PRIVATE ${OA_DVPP_SOURCES})
    target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR}/src ${OA_TURBOJPEG_INCLUDE_DIR}
                               ${OA_SPNG_INCLUDE_DIR} ${OA_YUV_INCLUDE_DIR})
    target_link_libraries(${name} PRIVATE ${OA_TURBOJPEG_LIBRARY} ${OA_SPNG_LIBRARY} ${OA_YUV_LIBRARY})
  endif()
  target_link_libraries(${name} PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,ascendcl_internal>")
  target_link_options(${name} PRIVATE -no-pie)
endfunction()

foreach(t ${OA_FUZZ_TARGETS})
  add_executable(fuzz_replay_${t} ${OA_FUZZ_DIR}/fuzz_${t}.c ${OA_FUZZ_DIR}/replay_main.c)
  oa_fuzz_link(fuzz_replay_${t})
  add_test(NAME fuzz_replay_${t} COMMAND fuzz_replay_${t} ${OA_FUZZ_DIR}/regressions/${t})
  # a fuzzed shape may ask for an impossible tensor (regressions/onnx has one
  # of 512 GiB): the library answers ACL_ERROR_BAD_ALLOC when malloc returns
  # NULL, which ASan's allocator does only when told to
  set_tests_properties(fuzz_replay_${t} PROPERTIES LABELS "fuzz-regression;sanitize" TIMEOUT 300
                       SKIP_RETURN_CODE 77
                       ENVIRONMENT "ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1")
endforeach()

add_executable(untrusted_models ${OA_FUZZ_DIR}/untrusted_models.c ${OA_FUZZ_DIR}/onnx_writer.c)
oa_fuzz_link(untrusted_models)
add_test(NAME untrusted_models COMMAND untrusted_models)
set_tests_properties(untrusted_models PROPERTIES LABELS "sanitize" TIMEOUT 300)

# Compiled-model regressions (in-process compile, load, run).
if(EXISTS ${CMAKE_SOURCE_DIR}/src/engine/compile.h)
  add_executable(om_regress ${OA_FUZZ_DIR}/om_regress.c ${OA_FUZZ_DIR}/onnx_writer.c)
  oa_fuzz_link(om_regress)
  add_test(NAME om_regress COMMAND om_regress)
  set_tests_properties(om_regress PROPERTIES LABELS "fuzz-regression;sanitize" TIMEOUT 120)
endif()

if(OPENACL_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "OPENACL_FUZZ needs clang (libFuzzer): configure with -DCMAKE_C_COMPILER=clang")
  endif()
  # Coverage feedback from the library itself, not only from the harness.
  target_compile_options(ascendcl_internal PRIVATE -fsanitize=fuzzer-no-link)
  set(OA_FUZZ_WORK ${CMAKE_BINARY_DIR}/fuzz)
  set(OA_FUZZ_SEEDS_onnx ${OA_FUZZ_DIR}/regressions/onnx /usr/share/libonnx-testdata/data ${CMAKE_SOURCE_DIR}/models)
  set(OA_FUZZ_DICT_onnx -)
  set(OA_FUZZ_NAME_onnx "*.onnx")
  set(OA_FUZZ_NAME_config "*")
  set(OA_FUZZ_NAME_om "*")
  # inputs per target in the reproducible CI run (FUZZ_MODE=ci): about 15 s each here
  set(OA_FUZZ_CI_RUNS_onnx 150000)
  set(OA_FUZZ_CI_RUNS_config 50000)
  set(OA_FUZZ_CI_RUNS_om 600000)
  set(OA_FUZZ_CI_RUNS_dvpp 100000)
  set(OA_FUZZ_SEEDS_dvpp ${OA_FUZZ_DIR}/regressions/dvpp ${OA_FUZZ_DIR}/seeds/dvpp)
  set(OA_FUZZ_DICT_dvpp -)
  set(OA_FUZZ_NAME_dvpp "*")
  set(OA_FUZZ_SEEDS_config ${OA_FUZZ_DIR}/regressions/config ${OA_FUZZ_DIR}/seeds/config)
  set(OA_FUZZ_DICT_config ${OA_FUZZ_DIR}/config.dict)
  set(OA_FUZZ_SEEDS_aipp ${OA_FUZZ_DIR}/regressions/aipp ${OA_FUZZ_DIR}/seeds/aipp)
  set(OA_FUZZ_DICT_aipp ${OA_FUZZ_DIR}/aipp.dict)
  set(OA_FUZZ_NAME_aipp "*.cfg")
  set(OA_FUZZ_CI_RUNS_aipp 100000)
  add_custom_target(fuzz_targets)
  foreach(t ${OA_FUZZ_TARGETS})
    add_executable(fuzz_${t} ${OA_FUZZ_DIR}/fuzz_${t}.c)
    add_dependencies(fuzz_targets fuzz_${t})
    oa_fuzz_link(fuzz_${t})
    target_compile_options(fuzz_${t} PRIVATE -fsanitize=fuzzer)
    target_link_options(fuzz_${t} PRIVATE -fsanitize=fuzzer)
    if(t STREQUAL "om")
      # seeds are compiled by atc (of the same build) before the run
      add_dependencies(fuzz_targets atc)
      add_test(NAME fuzz_run_${t}
        COMMAND sh ${OA_FUZZ_DIR}/run_fuzz_om.sh $<TARGET_FILE:atc> ${CMAKE_BINARY_DIR}/fuzz_om_seeds
                $<TARGET_FILE:fuzz_${t}> ${OA_FUZZ_WORK}/${t} ${OA_FUZZ_DIR}/regressions/om)
    else()
      add_test(NAME fuzz_run_${t}
        COMMAND sh ${OA_FUZZ_DIR}/run_fuzz.sh $<TARGET_FILE:fuzz_${t}> ${OA_FUZZ_WORK}/${t}
                ${OA_FUZZ_DICT_${t}} ${OA_FUZZ_SEEDS_${t}})
    endif()
    set_tests_properties(fuzz_run_${t} PROPERTIES LABELS "fuzz" RUN_SERIAL ON
                         ENVIRONMENT "FUZZ_SEED_NAME=${OA_FUZZ_NAME_${t}};FUZZ_CI_RUNS=${OA_FUZZ_CI_RUNS_${t}}")
  endforeach()
endif()
