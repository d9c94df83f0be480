# tools/quant: openacl-quant, calibration-based int8 quantisation of ONNX
# models into QDQ models (a Python tool over openacl's Python package).
# The launcher and its oaquant package are copied into the build tree, where
# the launcher finds build/python (acl + openacl) beside it; installed as
# bin/openacl-quant with oaquant in python/site-packages next to openacl.
configure_file(${CMAKE_CURRENT_LIST_DIR}/openacl_quant.py ${CMAKE_BINARY_DIR}/openacl-quant COPYONLY)
file(GLOB OA_QUANT_PY CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/oaquant/*.py)
foreach(f ${OA_QUANT_PY})
  get_filename_component(n ${f} NAME)
  configure_file(${f} ${CMAKE_BINARY_DIR}/oaquant/${n} COPYONLY)
endforeach()
install(PROGRAMS ${CMAKE_CURRENT_LIST_DIR}/openacl_quant.py DESTINATION ${CMAKE_INSTALL_BINDIR}
        RENAME openacl-quant)
install(FILES ${OA_QUANT_PY} DESTINATION ${OA_INSTALL_PYDIR}/oaquant)
