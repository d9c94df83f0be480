# Installs the library into a scratch prefix and builds a program the way a
# CANN application would: #include "acl/acl.h", link with -lascendcl, found
# through pkg-config and through find_package(openacl).
add_test(NAME install_consumer
  COMMAND ${CMAKE_COMMAND} -DSRC=${CMAKE_SOURCE_DIR} -DBIN=${CMAKE_BINARY_DIR}
          -DC_COMPILER=${CMAKE_C_COMPILER} -DCXX_COMPILER=${CMAKE_CXX_COMPILER}
          -P ${CMAKE_CURRENT_LIST_DIR}/install_test.cmake)
set_tests_properties(install_consumer PROPERTIES LABELS "install" TIMEOUT 300)
