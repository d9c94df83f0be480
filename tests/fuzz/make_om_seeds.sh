#!/bin/sh
# Seeds for fuzz_om: compiled models made by atc from small ONNX models (the
# backend node tests that cover common kernels, control flow and a batch-gear
# model), each prefixed with the byte 0x01 (fuzz_om: reseal after mutation).
#   make_om_seeds.sh ATC OUTDIR
set -e
atc=$1; out=$2
data=/usr/share/libonnx-testdata/data/node
mkdir -p "$out"
[ -f "$out/.done" ] && exit 0
work=$(mktemp -d)
one() {   # source test, seed name, extra atc flags...
    m=$data/$1/model.onnx; name=$2; shift 2
    [ -f "$m" ] || return 0
    if "$atc" --model="$m" --framework=5 --output="$work/$name" "$@" > "$work/log" 2>&1; then
        printf '\001' > "$out/$name.seed"
        cat "$work/$name.om" >> "$out/$name.seed"
    else
        echo "atc could not compile $name (skipped): $(tail -n 1 "$work/log")"
    fi
}
for t in test_add test_relu test_conv_with_strides_padding test_matmul_2d test_gemm_default_no_bias \
         test_softmax_axis_1 test_maxpool_2d_default test_averagepool_2d_default test_batchnorm_example \
         test_lstm_defaults test_transpose_default test_concat_2d_axis_0 test_gather_0 test_reshape_reduced_dims \
         test_if test_loop11 test_resize_upsample_scales_nearest test_layer_normalization_2d_axis0; do
    one $t $t
done
one test_relu relu_batch_gears --input_shape="x:-1,4,5" --dynamic_batch_size="1,3,6"
touch "$out/.done"
rm -rf "$work"
ls "$out" | wc -l
