# tests/models: openacl vs ONNX Runtime on real models (label "models").
# mdl_run drives openacl through the public API only; check_model.py makes
# inputs, gets ORT's outputs (tools/ortref) and compares. Each test exits 77
# (skipped) when scripts/models.sh has not built the model set.
add_executable(mdl_run ${CMAKE_CURRENT_LIST_DIR}/mdl_run.c)
# --no-as-needed: every API reference is weak, which alone would not keep
# libascendcl as a dependency.
target_link_libraries(mdl_run PRIVATE -Wl,--no-as-needed ascendcl -Wl,--as-needed oa_npy)
target_compile_options(mdl_run PRIVATE ${OA_WARN})

find_program(OA_SYS_PYTHON NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
set(OA_REAL_MODELS resnet50 mobilenet_v2 mobilenet_v3_large efficientnet_b0 shufflenet_v2_x1_0
    bert4 mlp ocr_det ocr_rec ocr_cls ocr_cls_b8 ocr_det_dyn ocr_rec_dyn ocr_cls_dyn vad)
foreach(m ${OA_REAL_MODELS})
  add_test(NAME models_${m}
    COMMAND ${OA_SYS_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_model.py
            --mdl-run $<TARGET_FILE:mdl_run> --name ${m})
  set_tests_properties(models_${m} PROPERTIES LABELS "models" SKIP_RETURN_CODE 77 TIMEOUT 900)
endforeach()

# The opt-in torchvision sweep (scripts/models.sh --set torchvision, into
# models/tv/): label "models_tv"; each skips while the set is not built.
set(OA_TV_MODELS alexnet vgg11 resnet18 resnext50_32x4d wide_resnet50_2 densenet121 googlenet
    inception_v3 mobilenet_v2 mobilenet_v3_small mnasnet0_5 regnet_x_400mf regnet_y_400mf
    efficientnet_b0 efficientnet_v2_s convnext_tiny swin_t squeezenet1_0 shufflenet_v2_x0_5
    fcn_resnet50 deeplabv3_mobilenet_v3_large lraspp_mobilenet_v3_large
    # --tier 2: the remaining variants
    vgg16_bn resnet34 resnet101 densenet169 mobilenet_v3_large mnasnet1_0 regnet_y_1_6gf
    efficientnet_b3 squeezenet1_1 shufflenet_v2_x1_0 convnext_small deeplabv3_resnet50)
foreach(m ${OA_TV_MODELS})
  add_test(NAME models_tv_${m}
    COMMAND ${OA_SYS_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_model.py
            --mdl-run $<TARGET_FILE:mdl_run> --models ${CMAKE_SOURCE_DIR}/models/tv --name ${m})
  set_tests_properties(models_tv_${m} PROPERTIES LABELS "models_tv" SKIP_RETURN_CODE 77 TIMEOUT 900)
endforeach()

# The harness must be able to fail: ORT stands in for openacl, perturbed.
add_test(NAME models_harness_selftest
  COMMAND ${OA_SYS_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/harness_selftest.py)
set_tests_properties(models_harness_selftest PROPERTIES LABELS "models" SKIP_RETURN_CODE 77 TIMEOUT 120)
