#!/usr/bin/python3
"""Generates the API misuse matrix from the public headers (run by CMake at
build time, so a new declaration gets its cases without editing anything).

For every function declared in include/acl/**.h (the declarations are found
with scripts/api_coverage.py, the parameter lists parsed here) it emits:

  U  called before aclInit with plausible arguments: a function that needs
     the runtime must return ACL_ERROR_UNINITIALIZE (an unsupported stub may
     answer ACL_ERROR_FEATURE_UNSUPPORTED instead);
  F  the same after aclInit + aclFinalize;
  N  with one pointer argument NULL (every pointer parameter in turn, except
     where the header documents NULL as meaningful), the others valid;
  D  with a dangling runtime handle (a destroyed stream, event or context,
     an unloaded model id, freed device memory) in one parameter;
  X  with a foreign handle in one parameter: an event where a stream is
     expected, a stream where an event or context is expected, a context
     where a stream is expected, memory of the other device.
  S  for an unsupported stub of acl_rt.h (OA_UNSUPPORTED): every argument
     plausible, on a live runtime; it must answer exactly
     ACL_ERROR_FEATURE_UNSUPPORTED (or NULL) with a message naming it.

Every case must not crash; an aclError result must be an error whose
message (aclGetRecentErrMsg) names the call; pointer results must be NULL.
Plain objects (data buffers, tensor and model descriptions, datasets,
config handles) have no identity check, as in CANN, so they get N cases
but no D/X cases: a freed one is a use-after-free like free() twice.

usage: gen_misuse.py ROOT OUT.c
"""
import os
import re
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, '..', '..', 'scripts'))
import api_coverage  # noqa: E402

PROTO_RE = re.compile(r'ACL_FUNC_VISIBILITY\s+([^;(]*?)\b([A-Za-z_]\w*)\s*\(([^;]*?)\)\s*;', re.S)

# Functions usable without aclInit (besides the plain-object ones below).
NO_INIT = {
    'aclInit', 'aclGetRecentErrMsg', 'aclrtGetVersion', 'aclsysGetCANNVersion', 'aclsysGetVersionStr',
    'aclsysGetVersionNum', 'aclrtGetSocName', 'aclrtGetTaskIdFromExceptionInfo',
    'aclrtGetStreamIdFromExceptionInfo', 'aclrtGetThreadIdFromExceptionInfo',
    'aclrtGetDeviceIdFromExceptionInfo', 'aclrtGetErrorCodeFromExceptionInfo', 'aclrtGetLastError',
    'aclrtPeekAtLastError', 'aclrtSetExceptionInfoCallback', 'aclAppLog', 'aclGetCannAttributeList',
    'aclGetCannAttribute', 'aclDataTypeSize', 'aclFloat16ToFloat', 'aclFloatToFloat16',
}
# Model-API functions that work on plain objects (no runtime needed).
MDL_PLAIN_RE = re.compile(r'^aclmdl(Create|Destroy)(Desc|Dataset|ConfigHandle|ExecConfigHandle|AIPP)$|'
                          r'^aclmdl(GetNum|Get(Input|Output|Cur)|GetDataset|AddDataset|SetDataset|'
                          r'GetTensorRealName|GetOpAttr|GetDynamic|GetInputDynamic|SetConfigOpt|'
                          r'SetExecConfigOpt|SetAIPP|GetAippDataSize|SetExternalWeight|Bundle(Create|Destroy)'
                          r'QueryInfo|BundleGet(Query|VarWeight|Size))')

# Media-API (acl/ops/acl_dvpp.h) calls on host objects: descriptions and
# configurations, image info and size prediction. They need no runtime;
# memory, channels and every *Async call do.
DVPP_PLAIN_RE = re.compile(r'^(acldvpp|aclvdec|aclvenc)(Create|Destroy|Set|Get|Clear)(?!Channel$)\w*$|'
                           r'^acldvpp(JpegGetImageInfo|JpegGetImageInfoV2|JpegPredictDecSize|JpegPredictEncSize|'
                           r'PngGetImageInfo|PngPredictDecSize)$')

# Parameters for which NULL is documented as meaningful (no N case).
NULL_OK = {
    ('aclCreateDataBuffer', 'data'), ('aclUpdateDataBuffer', 'data'), ('aclprofCreateConfig', 'aicoreEvents'), ('aclInit', 'configPath'), ('aclFinalizeReference', 'refCount'),
    ('aclSetTensorDescName', 'name'), ('aclmdlSetDatasetTensorDesc', 'tensorDesc'),
    ('aclDestroyTensorDesc', 'desc'), ('aclrtSetExceptionInfoCallback', 'callback'),
    ('aclmdlLoadFromFileWithMem', 'workPtr'), ('aclmdlLoadFromFileWithMem', 'weightPtr'),
    ('aclmdlLoadFromMemWithMem', 'workPtr'), ('aclmdlLoadFromMemWithMem', 'weightPtr'),
    ('aclmdlExecuteV2', 'handle'), ('aclmdlExecuteAsyncV2', 'handle'),
    ('aclmdlGetOpAttr', 'opName'), ('aclmdlGetOpAttr', 'attr'), ('aclmdlGetOpAttr', 'modelDesc'),
    ('aclrtMallocWithCfg', 'cfg'), ('aclrtMallocHostWithCfg', 'cfg'), ('aclrtDestroyGroupInfo', 'groupInfo'),
}
# Types whose NULL means something (the default stream) or that are opaque user data.
# the media API's Destroy(NULL) is a documented no-op
NULL_OK |= {(fn, p) for fn, p in (
    ('acldvppDestroyPicDesc', 'picDesc'), ('acldvppDestroyBatchPicDesc', 'batchPicDesc'),
    ('acldvppDestroyRoiConfig', 'roiConfig'), ('acldvppDestroyResizeConfig', 'resizeConfig'),
    ('acldvppDestroyJpegeConfig', 'jpegeConfig'), ('acldvppDestroyChannelDesc', 'channelDesc'),
    ('acldvppDestroyBorderConfig', 'borderConfig'), ('acldvppDestroyLutMap', 'lutMap'),
    ('acldvppDestroyHist', 'hist'), ('acldvppDestroyStreamDesc', 'streamDesc'),
    ('aclvdecDestroyChannelDesc', 'channelDesc'), ('aclvdecDestroyFrameConfig', 'vdecFrameConfig'),
    ('aclvencDestroyChannelDesc', 'channelDesc'), ('aclvencDestroyFrameConfig', 'config'))}
NULL_OK_TYPES = {'aclrtStream'}
NULL_OK_NAMES = {'userData', 'args', 'aippExtend'}
# Exception info exists only inside the callback: NULL is the documented probe.
SKIP_N_TYPES = {'aclrtExceptionInfo'}

HANDLE_TYPES = {'aclrtStream', 'aclrtEvent', 'aclrtContext'}
# Structures passed by value: a zeroed compound literal.
BYVAL_STRUCTS = {'aclrtMemManagedLocation', 'dim3', 'aclmdlRICondTaskParams', 'aclrtIpcEventHandle'}
# Pointer getters whose documented answer for a NULL object is not NULL.
DOC_NONNULL = {'aclGetTensorDescName'}   # "" for NULL


def parse_params(text):
    text = ' '.join(text.split())
    if text.strip() in ('', 'void'):
        return []
    parts, depth, cur = [], 0, ''
    for ch in text:
        if ch in '([':
            depth += 1
        elif ch in ')]':
            depth -= 1
        if ch == ',' and depth == 0:
            parts.append(cur.strip())
            cur = ''
        else:
            cur += ch
    parts.append(cur.strip())
    out = []
    for p in parts:
        if p == '...':
            out.append(('...', '...', False))
            continue
        m = re.match(r'^(.*?)\b([A-Za-z_]\w*)\s*((?:\[[^\]]*\])*)$', p)
        typ, name, arr = m.group(1).strip(), m.group(2), m.group(3)
        if arr:
            # int64_t x[][2] -> pointer to rows
            dims = re.findall(r'\[([^\]]*)\]', arr)
            typ = '%s (*)[%s]' % (typ, dims[1]) if len(dims) > 1 else typ + ' *'
        out.append((typ, name, '*' in typ or bool(arr)))
    return out


def functions(root):
    decls = dict((n, h) for h, n in api_coverage.declared_functions(root))
    res = []
    for h in api_coverage.header_files(root):
        with open(h, encoding='utf-8') as f:
            text = api_coverage.strip_c(f.read())
        for m in PROTO_RE.finditer(text):
            ret = ' '.join(m.group(1).split())
            name = m.group(2)
            if name not in decls:
                continue
            res.append((name, ret, parse_params(m.group(3)), os.path.basename(h)))
    seen, uniq = set(), []
    for r in res:
        if r[0] not in seen:
            seen.add(r[0])
            uniq.append(r)
    return uniq


def base_type(t):
    return re.sub(r'\bconst\b|\*|\(.*\)|\[.*\]', '', t).strip()


def valid_value(fn, typ, name, live):
    """C expression for a valid argument (live: the runtime is up)."""
    bt = base_type(typ)
    ptr = typ.count('*')
    if typ.endswith('(*)[2]') or '(*)[' in typ:
        return '(%s)(void *)f->scratch_i64' % typ
    if bt in HANDLE_TYPES and ptr == 0:
        if not live:
            return '(%s)(uintptr_t)0x51' % bt
        return {'aclrtStream': 'f->stream', 'aclrtEvent': 'f->event', 'aclrtContext': 'f->ctx0'}[bt]
    if typ in ('aclrtCallback',):
        return 'mx_noop_cb'
    if typ in ('aclrtHostFunc',):
        return 'mx_noop_cb'
    if typ in ('aclrtExceptionInfoCallback',):
        return 'mx_noop_exc'
    if ptr == 0 and bt in BYVAL_STRUCTS:
        return '(%s){0}' % bt
    if ptr == 0:
        # scalars
        if name == 'modelId' and typ == 'uint32_t':
            return 'f->model' if live else '1u'
        if name in ('deviceId',):
            return '0'
        if name == 'threadId':
            return '(uint64_t)pthread_self()'
        if name == 'timeout':
            return '100'
        if name == 'modelSize':
            return 'f->model_size'
        if name in ('size', 'count', 'destMax', 'maxCount', 'width', 'dpitch', 'spitch', 'length'):
            return '64'
        if name in ('height', 'dimsCount', 'valueCount', 'gearCount', 'batchSize', 'numDims'):
            return '1'
        if name == 'dimRangeNum':
            return '2'
        if name in ('opNameLen',):
            return '64'
        if name == 'valueSize':
            return 'sizeof(int32_t)'
        if name == 'index' and fn in ('aclmdlGetDynamicHW', 'aclmdlGetInputDynamicGearCount',
                                      'aclmdlGetInputDynamicDims'):
            return '(size_t)-1'
        if bt == 'aclDataType':
            return 'ACL_FLOAT'
        if bt == 'aclFormat':
            return 'ACL_FORMAT_ND'
        if bt == 'aclrtMemcpyKind':
            return 'ACL_MEMCPY_DEVICE_TO_DEVICE'
        if bt in ('float', 'double'):
            return '1.0f'
        if typ.startswith('aclmdl') or typ.startswith('acl') or bt.startswith('acl'):
            return '(%s)0' % typ
        return '(%s)0' % typ
    # pointers
    if bt == 'char':
        if 'const' not in typ:
            if name == 'pkgName':
                return 'mx_str(f, "runtime")'
            return '(char *)f->scratch'
        if name in ('modelPath', 'fileName'):
            return 'f->model_path'
        if name == 'configPath':
            return 'NULL'
        return '"x"'
    if bt == 'void' and ptr == 1:
        if name in ('workPtr', 'weightPtr'):
            return 'NULL'
        if name == 'model':
            return 'f->model_mem'
        if name in ('hostPtr',):
            return 'f->host' if live else '(void *)f->scratch'
        if name in ('devPtr', 'dst', 'data'):
            return 'f->dev' if live else '(void *)f->scratch'
        if name == 'src':
            cast = 'const void *' if 'const' in typ else 'void *'
            return '(%s)((char *)f->dev + 2048)' % cast if live else '(%s)f->scratch' % cast
        if name in ('userData', 'args'):
            return 'NULL'
        return '(void *)f->scratch'
    if bt == 'void' and ptr == 2:
        return '(%s)(void *)f->scratch' % typ
    objs = {'aclDataBuffer': 'f->buf', 'aclTensorDesc': 'f->td', 'aclmdlDataset': 'f->ds',
            'aclmdlDesc': 'f->desc', 'aclmdlConfigHandle': 'f->cfg', 'aclmdlExecConfigHandle': 'f->ecfg'}
    if bt in objs and ptr == 1:
        if bt == 'aclmdlDataset' and fn in ('aclmdlExecute', 'aclmdlExecuteV2', 'aclmdlExecuteAsync',
                                           'aclmdlExecuteAsyncV2'):
            return 'f->ds_in' if name == 'input' else 'f->ds_out'
        return objs[bt]
    if bt == 'aclrtExceptionInfo':
        return 'NULL'
    return '(%s)(void *)f->scratch' % typ


def null_value(typ):
    return '(%s)NULL' % typ if typ not in HANDLE_TYPES else 'NULL'


def emit(root, out_path):
    funcs = functions(root)
    stubs = {n for n, (_, stub) in api_coverage.source_index(root).items() if stub}
    lines = ['/* generated by tests/misuse/gen_misuse.py from include/acl: do not edit */',
             '#include "misuse.h"'] + [
                 # every public header, acl/ops/*.h included (misuse.h has acl.h)
                 '#include "%s"' % os.path.relpath(h, os.path.join(root, 'include'))
                 for h in api_coverage.header_files(root)] + ['',
             '#pragma GCC diagnostic ignored "-Wdeprecated-declarations"',
             '#pragma GCC diagnostic ignored "-Wunused-parameter"',
             '#pragma GCC diagnostic ignored "-Wnonnull"',
             '#pragma GCC diagnostic ignored "-Wpragmas"',
             '#pragma GCC diagnostic ignored "-Wunknown-warning-option"',
             '#pragma GCC diagnostic ignored "-Wformat-security"',
             '#pragma GCC diagnostic ignored "-Wformat-zero-length"',
             '#pragma GCC diagnostic ignored "-Wformat"',
             '']
    cases = []
    n_case = 0

    def ret_kind(ret):
        if ret == 'aclError':
            return 'MX_RET_ERR'
        if ret == 'void':
            return 'MX_RET_VOID'
        if '*' in ret:
            return 'MX_RET_VAL' if fn_now[0] in DOC_NONNULL else 'MX_RET_PTR'
        return 'MX_RET_VAL'

    fn_now = ['']

    def add_case(fn, ret, kind, state, pname, args, note):
        nonlocal n_case
        fn_now[0] = fn
        cid = 'mx_case_%d' % n_case
        n_case += 1
        call = '%s(%s)' % (fn, ', '.join(args))
        lines.append('static void %s(mx_fix *f, mx_result *r)' % cid)
        lines.append('{')
        lines.append('    (void)f;')
        rk = ret_kind(ret)
        if rk == 'MX_RET_ERR':
            lines.append('    r->val = (long long)%s;' % call)
        elif rk == 'MX_RET_PTR':
            lines.append('    const void *p_ = (const void *)%s;' % call)
            lines.append('    r->val = p_ != NULL;')
            lines.append('    r->ptr = p_;')
        elif rk == 'MX_RET_VAL':
            lines.append('    r->val = (long long)%s;' % call)
        else:
            lines.append('    %s;' % call)
        lines.append('}')
        cases.append('    {"%s", \'%s\', %s, %s, "%s", %s, %d, "%s"},' % (
            fn, kind, state, rk, pname or '', cid, 1 if fn in stubs else 0, note))

    n_funcs = 0
    for fn, ret, params, hdr in funcs:
        n_funcs += 1
        has_va = any(p[0] == '...' for p in params)
        params = [p for p in params if p[0] != '...']
        va_tail = ['"%s"'] if has_va else []
        plain = (hdr == 'acl_base.h' and fn != 'aclGetDeviceCapability') or bool(MDL_PLAIN_RE.match(fn)) or \
            bool(DVPP_PLAIN_RE.match(fn))
        needs_init = fn not in NO_INIT and not plain
        fake = [valid_value(fn, t, n, False) for t, n, _ in params]
        live = [valid_value(fn, t, n, True) for t, n, _ in params]
        if needs_init and fn not in ('aclFinalize', 'aclFinalizeReference'):
            add_case(fn, ret, 'U', 'MX_UNINIT', None, fake + va_tail, 'before aclInit')
            add_case(fn, ret, 'F', 'MX_FINALIZED', None, fake + va_tail, 'after aclFinalize')
        if fn in ('aclFinalize', 'aclFinalizeReference'):
            add_case(fn, ret, 'U', 'MX_UNINIT', None, fake + va_tail, 'before aclInit')
            add_case(fn, ret, 'F', 'MX_FINALIZED', None, fake + va_tail, 'after aclFinalize')
        if fn in ('aclInit', 'aclFinalize', 'aclFinalizeReference'):
            continue   # their live behaviour is tested by rt_init; N would re-init the fixture
        if fn in stubs and hdr == 'acl_rt.h':
            add_case(fn, ret, 'S', 'MX_LIVE', None, live + va_tail, 'unsupported, plausible arguments')
        for i, (t, n, is_ptr) in enumerate(params):
            bt = base_type(t)
            args = list(live)
            if is_ptr or bt in ('aclrtEvent', 'aclrtContext') or t in ('aclrtCallback', 'aclrtHostFunc'):
                if (fn, n) in NULL_OK or bt in NULL_OK_TYPES or n in NULL_OK_NAMES or bt in SKIP_N_TYPES:
                    pass
                elif t == 'aclrtExceptionInfoCallback':
                    pass
                else:
                    a = list(args)
                    a[i] = null_value(t)
                    add_case(fn, ret, 'N', 'MX_LIVE', n, a + va_tail, '%s NULL' % n)
            if plain:
                continue
            dangling = {'aclrtStream': 'f->dead_stream', 'aclrtEvent': 'f->dead_event',
                        'aclrtContext': 'f->dead_ctx'}
            if bt in dangling and t.count('*') == 0:
                a = list(args)
                a[i] = dangling[bt]
                add_case(fn, ret, 'D', 'MX_LIVE', n, a + va_tail, '%s destroyed' % n)
                foreign = {'aclrtStream': [('f->event', 'an event'), ('f->ctx0', 'a context')],
                           'aclrtEvent': [('f->stream', 'a stream')],
                           'aclrtContext': [('f->stream', 'a stream')]}[bt]
                for expr, what in foreign:
                    a = list(args)
                    a[i] = expr
                    add_case(fn, ret, 'X', 'MX_LIVE', n, a + va_tail, '%s is %s' % (n, what))
                if bt == 'aclrtStream' and fn != 'aclrtStreamWaitEvent' and any(base_type(pt) in ('aclrtEvent',) or pn == 'modelId'
                                               for pt, pn, _ in params):
                    a = list(args)
                    a[i] = 'f->stream_dev1'
                    add_case(fn, ret, 'X', 'MX_LIVE', n, a + va_tail, '%s of another device' % n)
            if n == 'modelId' and t == 'uint32_t':
                a = list(args)
                a[i] = 'f->dead_model'
                add_case(fn, ret, 'D', 'MX_LIVE', n, a + va_tail, 'modelId unloaded')
                a = list(args)
                a[i] = '0xFFFFFFF0u'
                add_case(fn, ret, 'X', 'MX_LIVE', n, a + va_tail, 'modelId never loaded')
                if 'Execute' in fn or fn == 'aclmdlUnload':
                    a = list(args)
                    a[i] = 'f->model_ctx1'
                    add_case(fn, ret, 'X', 'MX_LIVE', n, a + va_tail, 'modelId of another context')
            if n in ('devPtr', 'dst', 'src', 'hostPtr') and bt == 'void' and t.count('*') == 1:
                a = list(args)
                a[i] = 'f->dead_dev' if n != 'hostPtr' else 'f->dead_host'
                add_case(fn, ret, 'D', 'MX_LIVE', n, a + va_tail, '%s freed' % n)
                a = list(args)
                a[i] = '(void *)f->scratch' if n != 'src' else '(const void *)f->scratch'
                if n in ('devPtr', 'hostPtr'):
                    add_case(fn, ret, 'X', 'MX_LIVE', n, a + va_tail, '%s not from the runtime' % n)

    lines.append('')
    lines.append('const mx_case mx_cases[] = {')
    lines += cases
    lines.append('};')
    lines.append('const int mx_n_cases = %d;' % n_case)
    lines.append('const int mx_n_funcs = %d;' % n_funcs)
    lines.append('')
    text = '\n'.join(lines)
    try:
        with open(out_path, encoding='utf-8') as f:
            if f.read() == text:
                return
    except OSError:
        pass
    with open(out_path, 'w', encoding='utf-8') as f:
        f.write(text)


if __name__ == '__main__':
    emit(sys.argv[1], sys.argv[2])
