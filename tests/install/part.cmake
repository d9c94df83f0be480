# Installs the build into a scratch prefix and uses it as a CANN user would
# (tests/install/install_test.sh): the toolkit tree, -lascendcl from stub/,
# atc and openacl-run with nothing set, set_env.sh, a sample-shaped CMake
# project (DDK_PATH / NPU_HOST_LIB, no RPATH) and a pyACL sample against a
# model compiled by the installed atc, pkg-config and find_package(openacl).
# The make targets the README names must exist (make_targets).
add_test(NAME install_consumer
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/install_test.sh ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR}
          ${CMAKE_C_COMPILER} ${CMAKE_CXX_COMPILER})
set_tests_properties(install_consumer PROPERTIES LABELS "install" TIMEOUT 600)
add_test(NAME make_targets COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/make_targets.sh ${CMAKE_SOURCE_DIR})
set_tests_properties(make_targets PROPERTIES LABELS "install" TIMEOUT 60)
add_test(NAME deb_package COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/deb_test.sh ${CMAKE_BINARY_DIR})
set_tests_properties(deb_package PROPERTIES LABELS "install" TIMEOUT 300 SKIP_RETURN_CODE 77)
