# pytest suite of the pyACL-compatible module: every documented flow in
# Python, numpy references, small ONNX models built at test time.
if(NOT TARGET pyacl)
  return()
endif()
add_test(NAME python_acl
  COMMAND ${OA_PYTHON} -m pytest -q -p no:cacheprovider ${CMAKE_CURRENT_LIST_DIR}
          --ignore=${CMAKE_CURRENT_LIST_DIR}/test_media.py)
# acl.media (DVPP) on its own: ctest -R media
add_test(NAME python_media
  COMMAND ${OA_PYTHON} -m pytest -q -p no:cacheprovider ${CMAKE_CURRENT_LIST_DIR}/test_media.py)
set_tests_properties(python_acl python_media PROPERTIES
  ENVIRONMENT "PYTHONPATH=${CMAKE_BINARY_DIR}/python;LD_LIBRARY_PATH=${CMAKE_BINARY_DIR};PYTHONDONTWRITEBYTECODE=1;OPENACL_ATC=$<TARGET_FILE:atc>"
  TIMEOUT 300)
