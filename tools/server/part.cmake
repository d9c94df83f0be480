# tools/server: openacl-server, the Open Inference Protocol (KServe v2 REST)
# on libmicrohttpd, through the public AscendCL API only (links the shared
# libascendcl like any application). codec.c is also built into the fuzz
# target and the unit test of tests/server.
find_path(MHD_INCLUDE_DIR microhttpd.h)
find_library(MHD_LIBRARY microhttpd)
if(NOT MHD_INCLUDE_DIR OR NOT MHD_LIBRARY)
  message(STATUS "openacl-server: libmicrohttpd not found (Debian: libmicrohttpd-dev), not built")
  return()
endif()
set(OA_SERVER_DIR ${CMAKE_CURRENT_LIST_DIR})
add_executable(openacl-server
  ${OA_SERVER_DIR}/main.c
  ${OA_SERVER_DIR}/http.c
  ${OA_SERVER_DIR}/repo.c
  ${OA_SERVER_DIR}/codec.c
  ${OA_SERVER_DIR}/metrics.c)
target_include_directories(openacl-server PRIVATE ${MHD_INCLUDE_DIR} ${CJSON_INCLUDE_DIR})
target_link_libraries(openacl-server PRIVATE ascendcl ${MHD_LIBRARY} ${CJSON_LIBRARY} Threads::Threads m)
target_compile_options(openacl-server PRIVATE ${OA_WARN})
target_compile_definitions(openacl-server PRIVATE OPENACL_SERVER_VERSION="${PROJECT_VERSION}")
# Installed like the other programs: through the toolkit tree's helper where
# the tree has one (cmake/OpenaclInstall.cmake), else next to the library.
if(COMMAND openacl_install_program)
  openacl_install_program(openacl-server)
else()
  file(RELATIVE_PATH OA_SRV_TO_LIB /prefix/${CMAKE_INSTALL_BINDIR} /prefix/${CMAKE_INSTALL_LIBDIR})
  set_target_properties(openacl-server PROPERTIES INSTALL_RPATH "$ORIGIN/${OA_SRV_TO_LIB}")
  install(TARGETS openacl-server RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
