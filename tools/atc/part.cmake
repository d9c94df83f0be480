# tools/atc: the offline compiler (ATC's flag names): ONNX in, an openacl
# compiled model (.om, docs/om-format.md) out. It runs the library's own
# pipeline, so it links the internal archive whole (kernel registry).
add_executable(atc ${CMAKE_CURRENT_LIST_DIR}/atc.c)
target_link_libraries(atc PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,ascendcl_internal>")
target_compile_definitions(atc PRIVATE OPENACL_BUILDING=1)
target_compile_options(atc PRIVATE ${OA_WARN})
# bin/; its RUNPATH finds libascendcl_ompenv (and nothing else of ours: the
# pipeline is linked in) relative to itself.
openacl_install_program(atc)
