# tests/perf: the performance helpers' checks (fast, deterministic).
add_executable(ompenv_test ${CMAKE_CURRENT_LIST_DIR}/ompenv_test.c)
target_link_libraries(ompenv_test PRIVATE ascendcl OpenMP::OpenMP_C ${CMAKE_DL_LIBS})
target_compile_options(ompenv_test PRIVATE ${OA_WARN})
# default: a short spin; a chosen count; passive; the user's own policy kept
add_test(NAME ompenv_default COMMAND ${CMAKE_COMMAND} -E env --unset=OMP_WAIT_POLICY
         --unset=GOMP_SPINCOUNT --unset=OPENACL_OMP_SPIN "OMPENV_TEST_EXPECT=GOMP_SPINCOUNT = '1000'"
         $<TARGET_FILE:ompenv_test>)
add_test(NAME ompenv_count COMMAND ${CMAKE_COMMAND} -E env --unset=OMP_WAIT_POLICY
         --unset=GOMP_SPINCOUNT OPENACL_OMP_SPIN=5000 "OMPENV_TEST_EXPECT=GOMP_SPINCOUNT = '5000'"
         $<TARGET_FILE:ompenv_test>)
add_test(NAME ompenv_passive COMMAND ${CMAKE_COMMAND} -E env --unset=OMP_WAIT_POLICY
         --unset=GOMP_SPINCOUNT OPENACL_OMP_SPIN=passive "OMPENV_TEST_EXPECT=OMP_WAIT_POLICY = 'PASSIVE'"
         $<TARGET_FILE:ompenv_test>)
add_test(NAME ompenv_user COMMAND ${CMAKE_COMMAND} -E env --unset=OMP_WAIT_POLICY
         GOMP_SPINCOUNT=777 OPENACL_OMP_SPIN=passive OMPENV_TEST_USER=1
         "OMPENV_TEST_EXPECT=GOMP_SPINCOUNT = '777'" $<TARGET_FILE:ompenv_test>)
set_tests_properties(ompenv_default ompenv_count ompenv_passive ompenv_user PROPERTIES TIMEOUT 30)
