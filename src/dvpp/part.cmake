# src/dvpp: libacl_dvpp.so, the media-processing companion library of
# acl/ops/acl_dvpp.h. Like CANN's it is a shared object of its own, linked
# next to libascendcl; it reaches the runtime only through src/rt/rt_ext.h.
# Codecs and pixel work come from Debian's libraries: libjpeg-turbo's
# TurboJPEG API, libspng and libyuv (docs/dvpp.md says why each).
find_path(OA_TURBOJPEG_INCLUDE_DIR turbojpeg.h REQUIRED)
find_library(OA_TURBOJPEG_LIBRARY turbojpeg REQUIRED)
find_path(OA_SPNG_INCLUDE_DIR spng.h REQUIRED)
find_library(OA_SPNG_LIBRARY spng REQUIRED)
find_path(OA_YUV_INCLUDE_DIR libyuv.h REQUIRED)
find_library(OA_YUV_LIBRARY yuv REQUIRED)

# The objects are an object library as well, so that the API misuse matrix
# (tests/misuse), which links the runtime statically, can link them too.
file(GLOB OA_DVPP_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.c)
add_library(acl_dvpp_objects OBJECT ${OA_DVPP_SOURCES})
target_include_directories(acl_dvpp_objects
  PUBLIC $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/include>
  PRIVATE ${CMAKE_SOURCE_DIR}/src ${OA_TURBOJPEG_INCLUDE_DIR} ${OA_SPNG_INCLUDE_DIR} ${OA_YUV_INCLUDE_DIR})
# Only ACL_FUNC_VISIBILITY functions are exported, as in libascendcl.
target_compile_definitions(acl_dvpp_objects PRIVATE FUNC_VISIBILITY)
target_compile_options(acl_dvpp_objects PRIVATE ${OA_WARN} -fvisibility=hidden $<$<CONFIG:Release>:-O3>)
target_link_libraries(acl_dvpp_objects PUBLIC ${OA_TURBOJPEG_LIBRARY} ${OA_SPNG_LIBRARY} ${OA_YUV_LIBRARY} m)

add_library(acl_dvpp SHARED $<TARGET_OBJECTS:acl_dvpp_objects>)
target_include_directories(acl_dvpp
  PUBLIC $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/include> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_link_libraries(acl_dvpp PRIVATE ascendcl ${OA_TURBOJPEG_LIBRARY} ${OA_SPNG_LIBRARY} ${OA_YUV_LIBRARY} m)
target_link_options(acl_dvpp PRIVATE -Wl,--no-undefined)
set_target_properties(acl_dvpp PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION 0 INSTALL_RPATH "$ORIGIN")

if(COMMAND openacl_install_library)
  openacl_install_library(acl_dvpp)
else()
  install(TARGETS acl_dvpp LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
