# The pyACL-compatible `acl` extension module, built for Debian's
# /usr/bin/python3 into ${CMAKE_BINARY_DIR}/python together with the pure
# Python `openacl` helper package, so tests run with PYTHONPATH=<build>/python.
# Skipped (with a message) when Python headers or numpy are missing, and in
# sanitizer builds (an instrumented module cannot load into a plain python).
if(OPENACL_SANITIZE)
  message(STATUS "python: acl module not built in a sanitizer build")
  return()
endif()

set(OA_PYTHON /usr/bin/python3 CACHE FILEPATH "Python interpreter the acl module is built for")
if(EXISTS ${OA_PYTHON} AND NOT DEFINED Python3_EXECUTABLE)
  set(Python3_EXECUTABLE ${OA_PYTHON})
endif()
find_package(Python3 3.8 COMPONENTS Interpreter Development.Module NumPy)
if(NOT Python3_FOUND OR NOT Python3_NumPy_FOUND)
  message(STATUS "python: Python 3 headers or numpy not found, the acl module is not built")
  return()
endif()

file(GLOB OA_PY_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/src/*.c)
Python3_add_library(pyacl MODULE WITH_SOABI ${OA_PY_SOURCES})
# acl.blas and acl.media bind the companion libraries (src/cblas, src/dvpp),
# which are always built; their part.cmake files come after this one (parts
# are included in path order), and a target may be linked before it exists.
target_link_libraries(pyacl PRIVATE ascendcl acl_cblas acl_dvpp Python3::NumPy Threads::Threads)
target_compile_definitions(pyacl PRIVATE OPENACL_PY_MEDIA=1)
target_compile_options(pyacl PRIVATE ${OA_WARN} -fvisibility=hidden)
set_target_properties(pyacl PROPERTIES
  OUTPUT_NAME acl
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/python)

# The pure-Python extras, copied next to the module (re-copied on change).
file(GLOB OA_PY_PACKAGE CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/openacl/*.py)
foreach(f ${OA_PY_PACKAGE})
  get_filename_component(n ${f} NAME)
  configure_file(${f} ${CMAKE_BINARY_DIR}/python/openacl/${n} COPYONLY)
endforeach()

# `make install`: <prefix>/python/site-packages, as CANN's pyACL (set_env.sh
# puts it on PYTHONPATH); the module finds runtime/lib64 relative to itself.
set_target_properties(pyacl PROPERTIES INSTALL_RPATH "$ORIGIN/${OA_PY_TO_LIB}")
install(TARGETS pyacl LIBRARY DESTINATION ${OA_INSTALL_PYDIR})
install(FILES ${OA_PY_PACKAGE} DESTINATION ${OA_INSTALL_PYDIR}/openacl)
