# tests/perf: the performance helpers' checks (fast, deterministic).
# ompenv_test links libascendcl alone (an Ascend application), ompenv_omp_test
# libascendcl and then the runtime (an OpenMP application)
add_executable(ompenv_test ${CMAKE_CURRENT_LIST_DIR}/ompenv_test.c)
target_link_libraries(ompenv_test PRIVATE ascendcl ${CMAKE_DL_LIBS})
add_executable(ompenv_omp_test ${CMAKE_CURRENT_LIST_DIR}/ompenv_test.c)
target_link_libraries(ompenv_omp_test PRIVATE ascendcl oa_openmp ${CMAKE_DL_LIBS})
target_compile_options(ompenv_test PRIVATE ${OA_WARN})
target_compile_options(ompenv_omp_test PRIVATE ${OA_WARN})
# default: a short spin; a chosen count; passive; the user's own policy kept
# (each as the runtime reports it: libomp's KMP_BLOCKTIME in ms, libgomp's
# GOMP_SPINCOUNT in pause loops)
if(OPENACL_OPENMP STREQUAL "llvm")
  set(OA_OMPENV_DEFAULT "KMP_BLOCKTIME='1'")
  set(OA_OMPENV_COUNT "KMP_BLOCKTIME='2'")       # 60000 loops: 1.5 ms, rounded up
  set(OA_OMPENV_PASSIVE "OMP_WAIT_POLICY='PASSIVE'")
  set(OA_OMPENV_USER_VAR "KMP_BLOCKTIME=7")
  set(OA_OMPENV_USER "KMP_BLOCKTIME='7'")
else()
  set(OA_OMPENV_DEFAULT "GOMP_SPINCOUNT = '20000'")
  set(OA_OMPENV_COUNT "GOMP_SPINCOUNT = '60000'")
  set(OA_OMPENV_PASSIVE "OMP_WAIT_POLICY = 'PASSIVE'")
  set(OA_OMPENV_USER_VAR "GOMP_SPINCOUNT=777")
  set(OA_OMPENV_USER "GOMP_SPINCOUNT = '777'")
endif()
set(OA_OMPENV_UNSET --unset=OMP_WAIT_POLICY --unset=GOMP_SPINCOUNT --unset=KMP_BLOCKTIME)
# (the gnu runtime's order is what the ThreadSanitizer builds exercise:
# label tsan)
foreach(v ompenv ompenv_omp)
  add_test(NAME ${v}_default COMMAND ${CMAKE_COMMAND} -E env ${OA_OMPENV_UNSET} --unset=OPENACL_OMP_SPIN
           "OMPENV_TEST_EXPECT=${OA_OMPENV_DEFAULT}" $<TARGET_FILE:${v}_test>)
  add_test(NAME ${v}_count COMMAND ${CMAKE_COMMAND} -E env ${OA_OMPENV_UNSET} OPENACL_OMP_SPIN=60000
           "OMPENV_TEST_EXPECT=${OA_OMPENV_COUNT}" $<TARGET_FILE:${v}_test>)
  add_test(NAME ${v}_passive COMMAND ${CMAKE_COMMAND} -E env ${OA_OMPENV_UNSET} OPENACL_OMP_SPIN=passive
           "OMPENV_TEST_EXPECT=${OA_OMPENV_PASSIVE}" $<TARGET_FILE:${v}_test>)
  add_test(NAME ${v}_user COMMAND ${CMAKE_COMMAND} -E env ${OA_OMPENV_UNSET} ${OA_OMPENV_USER_VAR}
           OPENACL_OMP_SPIN=passive OMPENV_TEST_USER=1 "OMPENV_TEST_EXPECT=${OA_OMPENV_USER}"
           $<TARGET_FILE:${v}_test>)
  set_tests_properties(${v}_default ${v}_count ${v}_passive ${v}_user PROPERTIES TIMEOUT 30 LABELS "tsan")
endforeach()

# core/par.c: the team's waiting adapts to an oversubscribed host, unless the
# user chose a policy.
add_executable(par_adapt_test ${CMAKE_CURRENT_LIST_DIR}/par_adapt_test.c)
target_link_libraries(par_adapt_test PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,ascendcl_internal>" ${CMAKE_DL_LIBS})
target_compile_options(par_adapt_test PRIVATE ${OA_WARN})
target_link_options(par_adapt_test PRIVATE -no-pie)
add_test(NAME par_adapt COMMAND ${CMAKE_COMMAND} -E env ${OA_OMPENV_UNSET} --unset=OPENACL_OMP_SPIN
         --unset=OPENACL_OMP_ADAPT $<TARGET_FILE:par_adapt_test> expect-adapt)
add_test(NAME par_adapt_user COMMAND ${CMAKE_COMMAND} -E env ${OA_OMPENV_UNSET} OPENACL_OMP_SPIN=60000
         $<TARGET_FILE:par_adapt_test> expect-fixed)
# one busy sample alone keeps the spin; OPENACL_OMP_ADAPT_SAMPLES=1 (the
# earlier rule) sleeps from it
add_test(NAME par_adapt_blip COMMAND ${CMAKE_COMMAND} -E env ${OA_OMPENV_UNSET} --unset=OPENACL_OMP_SPIN
         --unset=OPENACL_OMP_ADAPT --unset=OPENACL_OMP_ADAPT_SAMPLES $<TARGET_FILE:par_adapt_test> expect-blip)
add_test(NAME par_adapt_blip_one COMMAND ${CMAKE_COMMAND} -E env ${OA_OMPENV_UNSET} --unset=OPENACL_OMP_SPIN
         --unset=OPENACL_OMP_ADAPT OPENACL_OMP_ADAPT_SAMPLES=1 $<TARGET_FILE:par_adapt_test> expect-adapt 1)
set_tests_properties(par_adapt par_adapt_user par_adapt_blip par_adapt_blip_one PROPERTIES TIMEOUT 60
                     SKIP_RETURN_CODE 77)

# The engine's shape cache (static programs per input shape of dynamic models);
# the models are written by make_models.py (onnx from Debian's python3).
add_executable(shape_cache_test ${CMAKE_CURRENT_LIST_DIR}/shape_cache_test.c)
target_link_libraries(shape_cache_test PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,ascendcl_internal>" m)
target_link_options(shape_cache_test PRIVATE -no-pie)
target_compile_options(shape_cache_test PRIVATE ${OA_WARN})
set(OA_PERF_MODELS ${CMAKE_CURRENT_BINARY_DIR}/perf_models)
add_test(NAME shape_cache COMMAND sh -c "mkdir -p '${OA_PERF_MODELS}' && /usr/bin/python3 \
  '${CMAKE_CURRENT_LIST_DIR}/make_models.py' '${OA_PERF_MODELS}' && '$<TARGET_FILE:shape_cache_test>' '${OA_PERF_MODELS}'")
set_tests_properties(shape_cache PROPERTIES TIMEOUT 60 LABELS "sanitize")

# bfloat16 execution of marked nodes (same model folder).
add_executable(bf16_test ${CMAKE_CURRENT_LIST_DIR}/bf16_test.c)
target_link_libraries(bf16_test PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,ascendcl_internal>" m)
target_link_options(bf16_test PRIVATE -no-pie)
target_compile_options(bf16_test PRIVATE ${OA_WARN})
add_test(NAME bf16 COMMAND sh -c "mkdir -p '${OA_PERF_MODELS}' && /usr/bin/python3 \\
  '${CMAKE_CURRENT_LIST_DIR}/make_models.py' '${OA_PERF_MODELS}' && '$<TARGET_FILE:bf16_test>' '${OA_PERF_MODELS}'")
set_tests_properties(bf16 PROPERTIES TIMEOUT 60 LABELS "sanitize")

# The SiLU pass behind convolutions ending in SiLU, against double precision.
add_executable(silu_test ${CMAKE_CURRENT_LIST_DIR}/silu_test.c)
target_link_libraries(silu_test PRIVATE ascendcl_internal m)
target_compile_options(silu_test PRIVATE ${OA_WARN})
add_test(NAME silu COMMAND silu_test)
set_tests_properties(silu PROPERTIES TIMEOUT 30 LABELS "sanitize")
