# tests/rt: the runtime — init/config, devices and contexts, streams,
# events, memory, host callbacks, the internal API used by the model layer,
# and a many-threads x many-streams ordering test. Each test is one process;
# all run again under ASan+UBSan and TSan (labels sanitize;tsan).
set(OA_RT_TESTS init device_ctx stream event mem callback internal concurrency rt_ext rt_cann limits)
foreach(t ${OA_RT_TESTS})
  if(EXISTS ${CMAKE_CURRENT_LIST_DIR}/test_${t}.c)
    add_executable(rt_test_${t} ${CMAKE_CURRENT_LIST_DIR}/test_${t}.c)
    target_link_libraries(rt_test_${t} PRIVATE ascendcl_internal Threads::Threads)
    target_include_directories(rt_test_${t} PRIVATE ${CMAKE_CURRENT_LIST_DIR})
    target_compile_options(rt_test_${t} PRIVATE ${OA_WARN} -Wno-deprecated-declarations)
    add_test(NAME rt_${t} COMMAND rt_test_${t})
    set_tests_properties(rt_${t} PROPERTIES LABELS "rt;sanitize;tsan" TIMEOUT 120
      ENVIRONMENT "ASCEND_GLOBAL_LOG_LEVEL=4")
  endif()
endforeach()

# OpenMP thread binding with libomp and oneDNN's libgomp both loaded
# (src/core/par.c): a 2-thread team must not end up on one CPU.
find_program(OA_RT_PY3 python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(OA_RT_PY3)
  add_test(NAME rt_omp_bind COMMAND ${OA_RT_PY3} ${CMAKE_CURRENT_LIST_DIR}/omp_bind.py --mdl-run $<TARGET_FILE:mdl_run>)
  set_tests_properties(rt_omp_bind PROPERTIES LABELS "rt" SKIP_RETURN_CODE 77 TIMEOUT 120)
endif()
