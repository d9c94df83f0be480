# `make deb` (cpack -G DEB in the build folder): one Debian package holding
# the install tree of cmake/OpenaclInstall.cmake under /opt/openacl, so an
# image gets openacl with `apt install ./openacl_<version>_<arch>.deb` and
# `. /opt/openacl/set_env.sh`. Depends lists the Debian packages that own
# the libraries this build linked (found with dpkg -S at configure time),
# so a build against other library versions names those.
set(OPENACL_DEB_PREFIX /opt/openacl CACHE PATH "Where the Debian package installs the toolkit tree")

# Package owning a library file (following links to the soname file), or "".
function(oa_deb_owner lib out)
  set(${out} "" PARENT_SCOPE)
  find_program(OA_DPKG dpkg)
  if(NOT OA_DPKG OR NOT EXISTS "${lib}")
    return()
  endif()
  get_filename_component(real "${lib}" REALPATH)
  execute_process(COMMAND ${OA_DPKG} -S "${real}" OUTPUT_VARIABLE o RESULT_VARIABLE rc ERROR_QUIET)
  if(rc EQUAL 0 AND o MATCHES "^([^:, ]+)")
    set(${out} "${CMAKE_MATCH_1}" PARENT_SCOPE)
  endif()
endfunction()

set(oa_deb_libs ${DNNL_LIBRARY} ${CJSON_LIBRARY} ${PROTOBUFC_LIBRARY})
if(OA_LIBOMP)
  list(APPEND oa_deb_libs ${OA_LIBOMP})
elseif(OpenMP_gomp_LIBRARY)
  list(APPEND oa_deb_libs ${OpenMP_gomp_LIBRARY})
endif()
# fallbacks: Debian 12's names
set(oa_deb_fallback libdnnl2 libcjson1 libprotobuf-c1 libomp5)
# The companion libraries' and the server's own dependencies (found by their
# part.cmake files, which are included before this one).
foreach(v OA_TURBOJPEG_LIBRARY OA_SPNG_LIBRARY OA_YUV_LIBRARY MHD_LIBRARY)
  if(${v})
    list(APPEND oa_deb_libs ${${v}})
  endif()
endforeach()
list(APPEND oa_deb_fallback libturbojpeg0 libspng0 libyuv0 libmicrohttpd12)
set(oa_deb_depends "libc6")
set(i 0)
foreach(lib ${oa_deb_libs})
  oa_deb_owner("${lib}" pkg)
  if(NOT pkg)
    list(GET oa_deb_fallback ${i} pkg)
  endif()
  string(APPEND oa_deb_depends ", ${pkg}")
  math(EXPR i "${i} + 1")
endforeach()
if(TARGET pyacl)
  math(EXPR oa_py_next "${Python3_VERSION_MINOR} + 1")
  set(oa_deb_recommends
    "python3 (>= ${Python3_VERSION_MAJOR}.${Python3_VERSION_MINOR}), python3 (<< ${Python3_VERSION_MAJOR}.${oa_py_next}), python3-numpy")
endif()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME openacl)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "AscendCL (CANN) API on the CPU: libascendcl, atc, pyACL")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "openacl runs Ascend applications and ONNX or compiled models on the CPU.
A CANN-style toolkit tree under ${OPENACL_DEB_PREFIX}: runtime/include/acl,
runtime/lib64 (and stub/), bin/atc, bin/openacl-run, the pyACL-compatible
acl module and set_env.sh (source it).")
set(CPACK_PACKAGING_INSTALL_PREFIX ${OPENACL_DEB_PREFIX})
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "openacl maintainers")
set(CPACK_DEBIAN_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "${oa_deb_depends}")
if(oa_deb_recommends)
  set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "${oa_deb_recommends}")
endif()
message(STATUS "openacl: Debian package depends on ${oa_deb_depends}")
include(CPack)
