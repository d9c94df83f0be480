# tools/compare: openacl-compare, the layer-by-layer comparison of a compiled
# model with its original ONNX model (a Python tool over openacl-run --dump).
# Copied beside openacl-run in the build tree so it finds it there.
configure_file(${CMAKE_CURRENT_LIST_DIR}/openacl_compare.py ${CMAKE_BINARY_DIR}/openacl-compare COPYONLY)
install(PROGRAMS ${CMAKE_CURRENT_LIST_DIR}/openacl_compare.py DESTINATION ${CMAKE_INSTALL_BINDIR}
        RENAME openacl-compare)
