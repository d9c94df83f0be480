# The installed tree, laid out like a CANN toolkit so that Huawei's sample
# build files and set_env.sh habits work unchanged (docs/porting.md):
#   <prefix>/runtime/include/acl/...      headers (INC_PATH/runtime/include)
#   <prefix>/runtime/lib64/               every library an application links
#   <prefix>/runtime/lib64/stub/          what `-L stub -lascendcl` needs
#   <prefix>/bin/                         atc, openacl-run
#   <prefix>/python/site-packages/        the pyACL-compatible `acl` module
#   <prefix>/set_env.sh                   sourced: ASCEND_TOOLKIT_HOME, PATH, ...
# Included by the top-level CMakeLists.txt before any part.cmake, so the
# parts (and the companion libraries libacl_cblas, libacl_dvpp) install
# through openacl_install_library() and the OA_INSTALL_* folders.

# The default prefix: a folder of its own (CANN's own default is
# /usr/local/Ascend/ascend-toolkit/latest; openacl does not take it, so the
# two can live side by side). `make install PREFIX=...` or
# `cmake --install build --prefix ...` choose another.
if(CMAKE_INSTALL_PREFIX_INITIALIZED_TO_DEFAULT)
  set(CMAKE_INSTALL_PREFIX /opt/openacl CACHE PATH "Install prefix (a CANN-style toolkit tree)" FORCE)
endif()

set(OA_INSTALL_INCLUDEDIR runtime/include)
set(OA_INSTALL_LIBDIR runtime/lib64)
set(OA_INSTALL_STUBDIR runtime/lib64/stub)
set(OA_INSTALL_BINDIR bin)
set(OA_INSTALL_PYDIR python/site-packages)
set(OA_INSTALL_CMAKEDIR share/cmake/openacl)
# GNUInstallDirs' names point into the same tree for the parts that use them
# (normal variables: they shadow the cache entries in this one directory
# scope, where every part.cmake is included).
set(CMAKE_INSTALL_INCLUDEDIR ${OA_INSTALL_INCLUDEDIR})
set(CMAKE_INSTALL_LIBDIR ${OA_INSTALL_LIBDIR})
set(CMAKE_INSTALL_BINDIR ${OA_INSTALL_BINDIR})
foreach(d INCLUDEDIR LIBDIR BINDIR)
  set(CMAKE_INSTALL_FULL_${d} ${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_${d}})
endforeach()
# What an installed program or module writes as its RUNPATH: the library
# folder relative to its own folder, so the tree can move.
file(RELATIVE_PATH OA_BIN_TO_LIB /p/${OA_INSTALL_BINDIR} /p/${OA_INSTALL_LIBDIR})
file(RELATIVE_PATH OA_PY_TO_LIB /p/${OA_INSTALL_PYDIR} /p/${OA_INSTALL_LIBDIR})
file(RELATIVE_PATH OA_STUB_TO_LIB /p/${OA_INSTALL_STUBDIR} /p/${OA_INSTALL_LIBDIR})
string(REGEX REPLACE "/$" "" OA_STUB_TO_LIB "${OA_STUB_TO_LIB}")

# openacl_install_library(<target>)
# Installs a shared library of openacl (libascendcl, its OpenMP-settings
# library, and the companion libraries such as libacl_cblas / libacl_dvpp)
# into runtime/lib64 with RUNPATH $ORIGIN, so it finds its siblings
# wherever the tree lies, and adds to runtime/lib64/stub the links a
# linker needs there: lib<name>.so and the soname (a linker pointed at
# stub/ resolves a library's DT_NEEDED siblings through that $ORIGIN,
# i.e. inside stub/). The stub entries are the real libraries, so a
# program that also runs with stub/ on LD_LIBRARY_PATH works.
set(OA_STUB_BUILD_DIR ${CMAKE_BINARY_DIR}/install-stub)
file(MAKE_DIRECTORY ${OA_STUB_BUILD_DIR})
function(openacl_install_library target)
  if(NOT TARGET ${target})
    message(FATAL_ERROR "openacl_install_library: ${target} is not a target")
  endif()
  get_target_property(type ${target} TYPE)
  if(NOT type STREQUAL "SHARED_LIBRARY")
    message(FATAL_ERROR "openacl_install_library: ${target} is a ${type}, not a shared library")
  endif()
  set_target_properties(${target} PROPERTIES INSTALL_RPATH "$ORIGIN")
  install(TARGETS ${target} EXPORT openaclTargets
    LIBRARY DESTINATION ${OA_INSTALL_LIBDIR}
    RUNTIME DESTINATION ${OA_INSTALL_BINDIR})
  get_target_property(out ${target} OUTPUT_NAME)
  if(NOT out)
    set(out ${target})
  endif()
  set(names lib${out}.so)
  get_target_property(sover ${target} SOVERSION)
  if(NOT "${sover}" STREQUAL "" AND NOT "${sover}" MATCHES "NOTFOUND$")   # "0" is a version
    list(APPEND names lib${out}.so.${sover})
  endif()
  foreach(n ${names})
    # made at configure time (dangling until the install), installed as links
    file(CREATE_LINK ${OA_STUB_TO_LIB}/${n} ${OA_STUB_BUILD_DIR}/${n} SYMBOLIC)
    install(FILES ${OA_STUB_BUILD_DIR}/${n} DESTINATION ${OA_INSTALL_STUBDIR})
  endforeach()
  set_property(GLOBAL APPEND PROPERTY OPENACL_INSTALLED_LIBRARIES ${target})
endfunction()

# openacl_install_program(<target>): an executable into bin/ that finds
# runtime/lib64 relative to itself (no LD_LIBRARY_PATH needed).
function(openacl_install_program target)
  set_target_properties(${target} PROPERTIES INSTALL_RPATH "$ORIGIN/${OA_BIN_TO_LIB}")
  install(TARGETS ${target} RUNTIME DESTINATION ${OA_INSTALL_BINDIR})
endfunction()
