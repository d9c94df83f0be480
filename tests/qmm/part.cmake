# tests/qmm: the int8 matrix-product path (graph/qmatmul.c, openacl.DynQMatMul
# in kernels/ref/nn_dynqmm.c and kernels/dnnl/dn_qmatmul.c) against ONNX
# Runtime on the same files: hand-built dynamic int8 chains and the BERT-4
# encoder in ORT's dynamic form (check_qmm.py; make_dyn.py writes the form).
find_program(QMM_PYTHON NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(QMM_PYTHON)
  add_test(NAME qmm_dynamic_graphs
    COMMAND ${QMM_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_qmm.py
            --mdl-run $<TARGET_FILE:mdl_run> --only graphs)
  add_test(NAME qmm_dynamic_bert4
    COMMAND ${QMM_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_qmm.py
            --mdl-run $<TARGET_FILE:mdl_run> --only bert4)
  set_tests_properties(qmm_dynamic_graphs qmm_dynamic_bert4 PROPERTIES
    LABELS "kernels;models" SKIP_RETURN_CODE 77 TIMEOUT 600)
endif()
if(QMM_PYTHON)
  add_test(NAME qmm_qdq_graphs
    COMMAND ${QMM_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_qmm.py
            --mdl-run $<TARGET_FILE:mdl_run> --only qdq)
  set_tests_properties(qmm_qdq_graphs PROPERTIES LABELS "kernels" SKIP_RETURN_CODE 77 TIMEOUT 600)
endif()
if(QMM_PYTHON)
  add_test(NAME qmm_qoperator
    COMMAND ${QMM_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_qmm.py
            --mdl-run $<TARGET_FILE:mdl_run> --only qop)
  set_tests_properties(qmm_qoperator PROPERTIES LABELS "kernels" SKIP_RETURN_CODE 77 TIMEOUT 600)
endif()
