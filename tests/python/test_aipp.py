"""AIPP through pyACL: a model compiled by atc with a static AIPP (queries)
and with a dynamic AIPP whose parameters are set with acl.mdl.create_aipp /
set_aipp_* / set_input_aipp, checked against a numpy reference of the AIPP
(RGB888 -> optional R/B swap -> crop -> (x - min) * var_reci -> padding 0)."""
import os
import subprocess

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import acl
import aclconst as C
from acltools import Model, ok

ATC = os.environ.get("OPENACL_ATC")
MIN = (10.0, 20.0, 30.5)
VAR = (0.5, 0.25, 2.0)


def _compile(tmp, cfg_text, n, h, w):
    one = numpy_helper.from_array(np.ones((1,), np.float32), "one")
    g = helper.make_graph([helper.make_node("Mul", ["x", "one"], ["y"])], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [n, 3, h, w])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [n, 3, h, w])], [one])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    onnx.save(m, os.path.join(tmp, "m.onnx"))
    with open(os.path.join(tmp, "aipp.cfg"), "w") as f:
        f.write(cfg_text)
    subprocess.run([ATC, "--model=" + os.path.join(tmp, "m.onnx"), "--framework=5", "--output=" + os.path.join(tmp, "m"),
                    "--insert_op_conf=" + os.path.join(tmp, "aipp.cfg")], check=True, capture_output=True)
    return os.path.join(tmp, "m.om")


@pytest.mark.skipif(not ATC, reason="atc not found (OPENACL_ATC)")
def test_static_aipp_queries(ctx, tmp_path):
    path = _compile(str(tmp_path), "aipp_op {\n aipp_mode: static\n input_format: RGB888_U8\n"
                    " src_image_size_w: 10\n src_image_size_h: 6\n crop: true\n load_start_pos_w: 2\n"
                    " load_start_pos_h: 1\n crop_size_w: 8\n crop_size_h: 4\n}\n", 1, 4, 8)
    m = Model(path)
    try:
        aipp_type, _, ret = acl.mdl.get_aipp_type(m.id, 0)
        assert (aipp_type, ret) == (1, 0)                                     # ACL_DATA_WITH_STATIC_AIPP
        info, ret = acl.mdl.get_first_aipp_info(m.id, 0)
        ok(ret, "get_first_aipp_info")
        assert info["srcImageSizeW"] == 10 and info["cropSizeW"] == 8 and info["loadStartPosH"] == 1
        assert acl.mdl.get_input_size_by_index(m.desc, 0) == 10 * 6 * 3
    finally:
        m.close()


@pytest.mark.skipif(not ATC, reason="atc not found (OPENACL_ATC)")
def test_dynamic_aipp_flow(ctx, tmp_path):
    n, h, w, sw, sh = 2, 4, 6, 8, 5
    path = _compile(str(tmp_path), "aipp_op {\n aipp_mode: dynamic\n max_src_image_size: %d\n}\n" % (n * sw * sh * 3),
                    n, h, w)
    m = Model(path)
    try:
        idx, ret = acl.mdl.get_input_index_by_name(m.desc, "ascend_dynamic_aipp_data")
        ok(ret, "get_input_index_by_name")
        assert acl.mdl.get_aipp_type(m.id, 0)[0:2] == (2, idx)          # ACL_DATA_WITH_DYNAMIC_AIPP
        img = np.random.default_rng(7).integers(0, 256, (n, sh, sw, 3), dtype=np.uint8)
        data = img.tobytes()
        ok(acl.rt.memcpy(m.in_ptr(0), len(data), acl.util.bytes_to_ptr(data), len(data), C.ACL_MEMCPY_HOST_TO_DEVICE))
        a = acl.mdl.create_aipp(n)
        ok(acl.mdl.set_aipp_input_format(a, 3), "set_aipp_input_format")       # ACL_RGB888_U8
        ok(acl.mdl.set_aipp_src_image_size(a, sw, sh), "set_aipp_src_image_size")
        ok(acl.mdl.set_aipp_rbuv_swap_switch(a, 1), "set_aipp_rbuv_swap_switch")
        crops = [(1, 0, 6, 4, 0, 0, 0, 0), (0, 1, 4, 3, 0, 1, 1, 1)]   # x, y, cw, ch, top, bottom, left, right
        for b, (x, y, cw, ch, t, bo, le, r) in enumerate(crops):
            ok(acl.mdl.set_aipp_crop_params(a, 1, x, y, cw, ch, b), "set_aipp_crop_params")
            ok(acl.mdl.set_aipp_padding_params(a, 1 if t + bo + le + r else 0, t, bo, le, r, b))
            ok(acl.mdl.set_aipp_dtc_pixel_min(a, *MIN, 0.0, b), "set_aipp_dtc_pixel_min")
            ok(acl.mdl.set_aipp_pixel_var_reci(a, *VAR, 1.0, b), "set_aipp_pixel_var_reci")
        ok(acl.mdl.set_input_aipp(m.id, m.inputs[0], idx, a), "set_input_aipp")
        m.execute()
        got = m.output()
        for b, (x, y, cw, ch, t, bo, le, r) in enumerate(crops):
            px = img[b, y:y + ch, x:x + cw, ::-1].astype(np.float32)        # R/B swapped
            ref = ((px - np.float32(MIN)) * np.float32(VAR)).transpose(2, 0, 1)
            ref = np.pad(ref, ((0, 0), (t, bo), (le, r)))
            np.testing.assert_array_equal(got[b], ref)
        ok(acl.mdl.destroy_aipp(a), "destroy_aipp")
    finally:
        m.close()
