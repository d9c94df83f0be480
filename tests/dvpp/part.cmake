# tests/dvpp: the media library (libacl_dvpp) through its public API.
#   dvpp_api    descriptions, channels, media memory, VDEC/VENC, misuse
#   dvpp_jpeg   JPEG decode == libjpeg-turbo's own decode (every subsampling,
#               baseline/progressive, many sizes); encode round trips (PSNR)
#   dvpp_png    PNG decode == libspng's own decode
#   dvpp_vpc    resize/crop/paste/batch/colour conversion: exact checks in C,
#               then OpenCV/numpy references (check_vpc.py) with stated tolerances
#   dvpp_bad    truncated, corrupt, huge, bomb, wrong-format inputs, bad strides
#   dvpp_scale  the bilinear scaler's SIMD passes == its portable loops
# Test material: a real photograph from Debian's matplotlib data (installed by
# scripts/setup.sh with python3-matplotlib).
find_file(OA_DVPP_PHOTO grace_hopper.jpg PATHS /usr/share/matplotlib/mpl-data/sample_data NO_DEFAULT_PATH)
find_file(OA_DVPP_PHOTO_PNG Minduka_Present_Blue_Pack.png PATHS /usr/share/matplotlib/mpl-data/sample_data
          NO_DEFAULT_PATH)
if(NOT OA_DVPP_PHOTO OR NOT OA_DVPP_PHOTO_PNG)
  message(WARNING "tests/dvpp: the matplotlib sample photographs are missing (python-matplotlib-data); "
                  "the media tests are not built")
  return()
endif()

function(oa_dvpp_test name)
  add_executable(dvpp_test_${name} ${CMAKE_CURRENT_LIST_DIR}/test_dvpp_${name}.c)
  target_link_libraries(dvpp_test_${name} PRIVATE acl_dvpp ascendcl ${OA_TURBOJPEG_LIBRARY} ${OA_SPNG_LIBRARY} z m)
  target_include_directories(dvpp_test_${name} PRIVATE ${CMAKE_CURRENT_LIST_DIR} ${CMAKE_SOURCE_DIR}/tests/rt
                             ${OA_TURBOJPEG_INCLUDE_DIR} ${OA_SPNG_INCLUDE_DIR})
  target_compile_options(dvpp_test_${name} PRIVATE ${OA_WARN})
endfunction()

foreach(t api jpeg png vpc bad)
  if(EXISTS ${CMAKE_CURRENT_LIST_DIR}/test_dvpp_${t}.c)
    oa_dvpp_test(${t})
    add_test(NAME dvpp_${t} COMMAND dvpp_test_${t} ${OA_DVPP_PHOTO} ${OA_DVPP_PHOTO_PNG} ${CMAKE_CURRENT_BINARY_DIR}/dvpp_${t}_out)
    set_tests_properties(dvpp_${t} PROPERTIES LABELS "dvpp;sanitize;tsan" TIMEOUT 600
      ENVIRONMENT "ASCEND_GLOBAL_LOG_LEVEL=4")
  endif()
endforeach()

# The scaler's source compiled into its test, so both of its paths run here.
add_executable(dvpp_test_scale ${CMAKE_CURRENT_LIST_DIR}/test_dvpp_scale.c)
target_include_directories(dvpp_test_scale PRIVATE ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/include)
target_compile_definitions(dvpp_test_scale PRIVATE FUNC_VISIBILITY)
target_compile_options(dvpp_test_scale PRIVATE ${OA_WARN})
target_link_libraries(dvpp_test_scale PRIVATE m)
add_test(NAME dvpp_scale COMMAND dvpp_test_scale)
set_tests_properties(dvpp_scale PROPERTIES LABELS "dvpp;sanitize" TIMEOUT 300)

# OpenCV / numpy references over the pictures dvpp_vpc wrote
find_program(OA_DVPP_PY3 python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(TARGET dvpp_test_vpc AND OA_DVPP_PY3)
  set_tests_properties(dvpp_vpc PROPERTIES FIXTURES_SETUP dvpp_vpc_out)
  add_test(NAME dvpp_vpc_opencv COMMAND ${OA_DVPP_PY3} ${CMAKE_CURRENT_LIST_DIR}/check_vpc.py
           ${CMAKE_CURRENT_BINARY_DIR}/dvpp_vpc_out)
  set_tests_properties(dvpp_vpc_opencv PROPERTIES LABELS "dvpp" TIMEOUT 300 FIXTURES_REQUIRED dvpp_vpc_out)
endif()
