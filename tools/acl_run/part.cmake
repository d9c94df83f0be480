# tools/acl_run: openacl-run, the runner/benchmark CLI with msame / ais_bench
# flags. Public API only (links the shared libascendcl) plus tools/npy.
add_executable(openacl-run
  ${CMAKE_CURRENT_LIST_DIR}/acl_run.c
  ${CMAKE_CURRENT_LIST_DIR}/args.c
  ${CMAKE_CURRENT_LIST_DIR}/data.c
  ${CMAKE_CURRENT_LIST_DIR}/debug_json.c)
target_link_libraries(openacl-run PRIVATE ascendcl oa_npy Threads::Threads m)
target_compile_options(openacl-run PRIVATE ${OA_WARN})
target_compile_definitions(openacl-run PRIVATE OPENACL_RUN_VERSION="${PROJECT_VERSION}")
# bin/, finding runtime/lib64 relative to itself (cmake/OpenaclInstall.cmake).
openacl_install_program(openacl-run)
