# tests/kernels_qops: the com.microsoft quantised ops of
# src/kernels/ref/nn_qops.c (QLinearMul, QLinearSigmoid, QLinearLeakyRelu,
# QLinearSoftmax, QLinearWhere, QLinearReduceMean) against ONNX Runtime.
#   kernels_qops_ort   small models built at test time, run by openacl
#                      (mdl_run, public API) and by ONNX Runtime
#                      (tools/ortref); integer outputs must be equal;
#                      malformed models must fail to load with a message
find_program(KQO_PYTHON NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
function(kqo_ort_test)
  if(KQO_PYTHON AND TARGET mdl_run)
    add_test(NAME kernels_qops_ort
      COMMAND ${KQO_PYTHON} ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/qops_ort.py
              --mdl-run $<TARGET_FILE:mdl_run>)
    set_tests_properties(kernels_qops_ort PROPERTIES LABELS "kernels;engine;sanitize" TIMEOUT 900
                         SKIP_RETURN_CODE 77)
  endif()
endfunction()
cmake_language(DEFER CALL kqo_ort_test)
