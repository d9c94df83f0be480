# libacl_cblas.so: CANN's matrix operations (acl/ops/acl_cblas.h) on oneDNN.
# A shared library of its own, as in CANN, that reaches libascendcl only
# through the exported openacl_ext_* services (src/rt/rt_ext.h). The objects
# are an object library so that the API misuse matrix (tests/misuse), which
# links the runtime statically, can link them too.
file(GLOB OA_CBLAS_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.c)
add_library(acl_cblas_objects OBJECT ${OA_CBLAS_SOURCES})
target_include_directories(acl_cblas_objects
  PUBLIC $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/include>
  PRIVATE ${CMAKE_SOURCE_DIR}/src ${DNNL_INCLUDE_DIR})
target_compile_definitions(acl_cblas_objects PRIVATE FUNC_VISIBILITY)
target_compile_options(acl_cblas_objects PRIVATE ${OA_WARN} -fvisibility=hidden $<$<CONFIG:Release>:-O3>)
target_link_libraries(acl_cblas_objects PUBLIC ${DNNL_LIBRARY} oa_openmp Threads::Threads m)

add_library(acl_cblas SHARED $<TARGET_OBJECTS:acl_cblas_objects>)
target_include_directories(acl_cblas
  PUBLIC $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/include> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_link_libraries(acl_cblas PRIVATE ascendcl ${DNNL_LIBRARY} oa_openmp Threads::Threads m)
target_link_options(acl_cblas PRIVATE -Wl,--no-undefined)
set_target_properties(acl_cblas PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION 0 INSTALL_RPATH "$ORIGIN")

if(COMMAND openacl_install_library)
  openacl_install_library(acl_cblas)
else()
  install(TARGETS acl_cblas LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
