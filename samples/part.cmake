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

# dvpp_classify: JPEG -> DVPP decode -> VPC -> classifier, when
# libacl_dvpp is built (src/dvpp). Checked against Pillow + numpy on the
# generated classifier224 and, when built, mobilenet_v2. src/dvpp/part.cmake
# comes after this file (parts are included in path order): test the folder.
if(TARGET acl_dvpp OR EXISTS ${CMAKE_SOURCE_DIR}/src/dvpp/part.cmake)
  add_executable(sample_dvpp_classify ${CMAKE_CURRENT_LIST_DIR}/dvpp_classify/dvpp_classify.c)
  target_include_directories(sample_dvpp_classify PRIVATE ${CMAKE_CURRENT_LIST_DIR}/common)
  target_link_libraries(sample_dvpp_classify PRIVATE ascendcl acl_dvpp m)
  target_compile_options(sample_dvpp_classify PRIVATE ${OA_WARN})
  set_target_properties(sample_dvpp_classify PROPERTIES OUTPUT_NAME dvpp_classify
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/samples)
  if(OPENACL_BUILD_TESTS)
    foreach(kind dvpp dvpp_real)
      set(name dvpp_classify)
      if(kind STREQUAL "dvpp_real")
        set(name dvpp_classify_real)
      endif()
      add_test(NAME sample_c_${name}
        COMMAND ${OA_SAMPLE_CHECK} ${kind} ${OA_SAMPLE_MODELS} ${CMAKE_SOURCE_DIR}/models ${OA_SAMPLE_SCRATCH}/c_${kind}
                -- $<TARGET_FILE:sample_dvpp_classify>)
      set(tests sample_c_${name})
      if(TARGET pyacl)
        add_test(NAME sample_py_${name}
          COMMAND ${OA_SAMPLE_CHECK} ${kind} ${OA_SAMPLE_MODELS} ${CMAKE_SOURCE_DIR}/models
                  ${OA_SAMPLE_SCRATCH}/py_${kind} -- /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/python/dvpp_classify.py)
        list(APPEND tests sample_py_${name})
      endif()
      set_tests_properties(${tests} PROPERTIES FIXTURES_REQUIRED sample_models SKIP_RETURN_CODE 77
        TIMEOUT 300 LABELS "samples"
        ENVIRONMENT "PYTHONPATH=${CMAKE_BINARY_DIR}/python;PYTHONDONTWRITEBYTECODE=1")
    endforeach()
    # the C sample on the generated model also runs under ASan + LSan
    set_tests_properties(sample_c_dvpp_classify PROPERTIES LABELS "samples;sanitize")
  endif()
else()
  message(STATUS "samples/dvpp_classify skipped: acl_dvpp is not built")
endif()

# The OCR pipeline sample (samples/ocr) brings its own part.
include(${CMAKE_CURRENT_LIST_DIR}/ocr/part.cmake OPTIONAL)

# JPEG -> DVPP decode -> VPC resize -> a YUV420SP AIPP model -> top-5
# (samples/aipp_dvpp), checked against numpy and the float pipeline on a
# real model (skipped, 77, without scripts/models.sh).
if(EXISTS ${CMAKE_SOURCE_DIR}/src/dvpp/part.cmake)
  add_executable(sample_aipp_dvpp ${CMAKE_CURRENT_LIST_DIR}/aipp_dvpp/aipp_dvpp.c)
  target_link_libraries(sample_aipp_dvpp PRIVATE acl_dvpp ascendcl)
  target_compile_options(sample_aipp_dvpp PRIVATE ${OA_WARN})
  set_target_properties(sample_aipp_dvpp PROPERTIES OUTPUT_NAME aipp_dvpp RUNTIME_OUTPUT_DIRECTORY
                        ${CMAKE_BINARY_DIR}/samples)
  if(OPENACL_BUILD_TESTS)
    set(aipp_check /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/aipp_dvpp/check.py $<TARGET_FILE:atc>
        $<TARGET_FILE:openacl-run> ${CMAKE_SOURCE_DIR}/models
        /usr/share/matplotlib/mpl-data/sample_data/grace_hopper.jpg)
    add_test(NAME sample_c_aipp_dvpp
      COMMAND ${aipp_check} ${OA_SAMPLE_SCRATCH}/aipp_dvpp -- $<TARGET_FILE:sample_aipp_dvpp>)
    set(tests sample_c_aipp_dvpp)
    if(TARGET pyacl)
      add_test(NAME sample_py_aipp_dvpp
        COMMAND ${aipp_check} ${OA_SAMPLE_SCRATCH}/py_aipp_dvpp --
                /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/python/aipp_dvpp.py)
      list(APPEND tests sample_py_aipp_dvpp)
    endif()
    set_tests_properties(${tests} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 LABELS "samples"
      ENVIRONMENT "PYTHONPATH=${CMAKE_BINARY_DIR}/python;PYTHONDONTWRITEBYTECODE=1")
  endif()
endif()
