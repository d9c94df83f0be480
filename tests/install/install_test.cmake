# Driven by CTest (see part.cmake): install, then compile consumers.
set(prefix ${BIN}/install-test/prefix)
file(REMOVE_RECURSE ${BIN}/install-test)
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BIN} --prefix ${prefix} RESULT_VARIABLE rc OUTPUT_QUIET)
if(rc)
  message(FATAL_ERROR "cmake --install failed: ${rc}")
endif()
foreach(f include/acl/acl.h include/acl/acl_base.h include/acl/acl_rt.h include/acl/acl_mdl.h
          include/acl/acl_prof.h bin/openacl-compare)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "missing installed file ${f}")
  endif()
endforeach()
file(GLOB libs ${prefix}/lib*/libascendcl.so)
if(NOT libs)
  message(FATAL_ERROR "libascendcl.so not installed")
endif()
get_filename_component(libdir "${libs}" DIRECTORY)

# 1. pkg-config, as a Makefile-based CANN sample would do it (C and C++).
set(ENV{PKG_CONFIG_PATH} ${libdir}/pkgconfig)
execute_process(COMMAND pkg-config --cflags --libs ascendcl OUTPUT_VARIABLE flags RESULT_VARIABLE rc
  OUTPUT_STRIP_TRAILING_WHITESPACE)
if(rc)
  message(FATAL_ERROR "pkg-config ascendcl failed")
endif()
separate_arguments(flags UNIX_COMMAND "${flags}")
foreach(lang c cpp)
  if(lang STREQUAL "c")
    set(cc ${C_COMPILER})
    set(std -std=c11)
  else()
    set(cc ${CXX_COMPILER})
    set(std -std=c++11)
  endif()
  execute_process(COMMAND ${cc} ${std} -Wall -Werror -o ${BIN}/install-test/consumer_${lang}
                          ${SRC}/tests/install/consumer.c ${flags} -Wl,-rpath,${libdir}
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(rc)
    message(FATAL_ERROR "consumer (${lang}) failed to build: ${err}")
  endif()
  execute_process(COMMAND ${BIN}/install-test/consumer_${lang} RESULT_VARIABLE rc OUTPUT_VARIABLE out)
  if(rc)
    message(FATAL_ERROR "consumer (${lang}) failed: ${rc} ${out}")
  endif()
endforeach()

# 2. find_package(openacl) from a CMake project.
file(WRITE ${BIN}/install-test/proj/CMakeLists.txt
"cmake_minimum_required(VERSION 3.18)\nproject(consumer C)\nfind_package(openacl REQUIRED)\nadd_executable(consumer ${SRC}/tests/install/consumer.c)\ntarget_link_libraries(consumer openacl::ascendcl)\n")
execute_process(COMMAND ${CMAKE_COMMAND} -S ${BIN}/install-test/proj -B ${BIN}/install-test/proj/b
                        -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_C_COMPILER=${C_COMPILER}
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(rc)
  message(FATAL_ERROR "find_package(openacl) configure failed: ${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BIN}/install-test/proj/b RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(rc)
  message(FATAL_ERROR "find_package(openacl) build failed: ${err}")
endif()
