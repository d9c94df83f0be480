# Samples: one small program per documented flow, C and Python. The C
# samples are plain targets over the public API; every sample, C and Python,
# is also a CTest that runs it on models generated at test time
# (samples/models/make_models.py) and checks its output files
# (samples/check_sample.py). Two more run on scripts/models.sh's real models
# and are skipped (77) when those are not built.
set(OA_SAMPLE_MODELS ${CMAKE_BINARY_DIR}/samples/models)
set(OA_SAMPLE_SCRATCH ${CMAKE_BINARY_DIR}/samples/scratch)
set(OA_SAMPLE_CHECK /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/check_sample.py)

foreach(s sync_infer async_callback multi_batch mem_pool multi_device dump_profile)
  add_executable(sample_${s} ${CMAKE_CURRENT_LIST_DIR}/${s}/${s}.c)
  target_include_directories(sample_${s} PRIVATE ${CMAKE_CURRENT_LIST_DIR}/common)
  target_link_libraries(sample_${s} PRIVATE ascendcl Threads::Threads)
  target_compile_options(sample_${s} PRIVATE ${OA_WARN})
  set_target_properties(sample_${s} PROPERTIES OUTPUT_NAME ${s} RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/samples)
endforeach()

if(OPENACL_BUILD_TESTS)
  add_test(NAME sample_models
    COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/models/make_models.py ${OA_SAMPLE_MODELS})
  set_tests_properties(sample_models PROPERTIES FIXTURES_SETUP sample_models LABELS "samples;sanitize;tsan")

  # name | check kind | C sample
  foreach(t "sync_infer|sync" "async_callback|async" "multi_batch|batch" "mem_pool|pool"
            "multi_device|devices" "dump_profile|dump" "sync_infer_real|sync_real|sync_infer" "multi_batch_real|batch_real|multi_batch")
    string(REPLACE "|" ";" t "${t}")
    list(GET t 0 name)
    list(GET t 1 kind)
    list(LENGTH t n)
    set(exe ${name})
    if(n GREATER 2)
      list(GET t 2 exe)
    endif()
    add_test(NAME sample_c_${name}
      COMMAND ${OA_SAMPLE_CHECK} ${kind} ${OA_SAMPLE_MODELS} ${CMAKE_SOURCE_DIR}/models ${OA_SAMPLE_SCRATCH}/c
              -- $<TARGET_FILE:sample_${exe}>)
    # real models are too slow under the sanitizers: generated ones only there
    if(n GREATER 2)
      set(labels "samples")
    else()
      set(labels "samples;sanitize;tsan")
    endif()
    set_tests_properties(sample_c_${name} PROPERTIES FIXTURES_REQUIRED sample_models SKIP_RETURN_CODE 77
      TIMEOUT 300 LABELS "${labels}")
    # the Python twins (no mem_pool in Python), when the acl module is built
    if(TARGET pyacl AND NOT exe STREQUAL "mem_pool" AND NOT exe STREQUAL "dump_profile")
      add_test(NAME sample_py_${name}
        COMMAND ${OA_SAMPLE_CHECK} ${kind} ${OA_SAMPLE_MODELS} ${CMAKE_SOURCE_DIR}/models ${OA_SAMPLE_SCRATCH}/py
                -- /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/python/${exe}.py)
      set_tests_properties(sample_py_${name} PROPERTIES FIXTURES_REQUIRED sample_models SKIP_RETURN_CODE 77
        TIMEOUT 300 LABELS "samples"
        ENVIRONMENT "PYTHONPATH=${CMAKE_BINARY_DIR}/python;PYTHONDONTWRITEBYTECODE=1")
    endif()
  endforeach()
endif()

# The OCR pipeline sample (samples/ocr) brings its own part.
include(${CMAKE_CURRENT_LIST_DIR}/ocr/part.cmake OPTIONAL)
