/* AscendCL profiling API (openacl): names, values and signatures of CANN's
 * acl_prof.h for the session calls (init, config, start, stop, finalize).
 * acl/acl.h does not include this header, as in CANN.
 *
 * What openacl records: every node a model runs, timed on the CPU, written
 * when the session stops into the folder given to aclprofInit:
 *   op_trace.json   a Chrome trace (chrome://tracing, Perfetto), one event
 *                   per node call and per model run
 *   op_summary.csv  per node: calls, total / mean / max / min time in
 *                   microseconds and its share of all node time, most
 *                   expensive first (msprof's op summary, aggregated)
 * The same files come from the `profiler` section of the aclInit JSON
 * ({"switch": "on", "output": DIR}); one session records at a time.
 *
 * Order: aclInit, aclprofInit, aclprofCreateConfig, aclprofStart, ... runs
 * ..., aclprofStop, aclprofDestroyConfig, aclprofFinalize. aclFinalize
 * stops and writes a session still running. Thread rules: the calls are
 * internally locked and may come from any thread; models run on other
 * threads while a session starts or stops are recorded or not, never
 * corrupted. */
#ifndef INC_EXTERNAL_ACL_PROF_H_
#define INC_EXTERNAL_ACL_PROF_H_

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* dataTypeConfig bits (CANN's values); openacl records node times for any
 * non-zero combination. */
#define ACL_PROF_ACL_API 0x0001ULL
#define ACL_PROF_TASK_TIME 0x0002ULL
#define ACL_PROF_AICORE_METRICS 0x0004ULL
#define ACL_PROF_AICPU 0x0008ULL
#define ACL_PROF_L2CACHE 0x0010ULL
#define ACL_PROF_HCCL_TRACE 0x0020ULL
#define ACL_PROF_TRAINING_TRACE 0x0040ULL
#define ACL_PROF_MSPROFTX 0x0080ULL
#define ACL_PROF_RUNTIME_API 0x0100ULL
#define ACL_PROF_TASK_TIME_L0 0x0800ULL
#define ACL_PROF_OP_ATTR 0x4000ULL

#define ACL_PROF_MAX_OP_NAME_LEN 257
#define ACL_PROF_MAX_OP_TYPE_LEN 65

typedef enum {
    ACL_AICORE_ARITHMETIC_UTILIZATION = 0,
    ACL_AICORE_PIPE_UTILIZATION = 1,
    ACL_AICORE_MEMORY_BANDWIDTH = 2,
    ACL_AICORE_L0B_AND_WIDTH = 3,
    ACL_AICORE_RESOURCE_CONFLICT_RATIO = 4,
    ACL_AICORE_MEMORY_UB = 5,
    ACL_AICORE_L2_CACHE = 6,
    ACL_AICORE_NONE = 0xFF
} aclprofAicoreMetrics;

typedef struct aclprofConfig aclprofConfig;
typedef struct aclprofAicoreEvents aclprofAicoreEvents;

/* Sets the result folder (`length` bytes of profilerResultPath, which must
 * name an existing writable folder). After aclInit; once until
 * aclprofFinalize (else ACL_ERROR_REPEAT_INITIALIZE). */
ACL_FUNC_VISIBILITY aclError aclprofInit(const char *profilerResultPath, size_t length);

/* Stops a running session (writing its files) and forgets the folder.
 * ACL_ERROR_PROF_NOT_RUN without aclprofInit. */
ACL_FUNC_VISIBILITY aclError aclprofFinalize(void);

/* A new configuration for the listed devices (each < the device count;
 * deviceIdList may be NULL only when deviceNums is 0), released with
 * aclprofDestroyConfig. aicoreMetrics must be one of aclprofAicoreMetrics;
 * aicoreEvents must be NULL (CANN reserves it). NULL on a bad argument, with
 * the reason in aclGetRecentErrMsg. */
ACL_FUNC_VISIBILITY aclprofConfig *aclprofCreateConfig(uint32_t *deviceIdList, uint32_t deviceNums,
                                                       aclprofAicoreMetrics aicoreMetrics,
                                                       const aclprofAicoreEvents *aicoreEvents,
                                                       uint64_t dataTypeConfig);

/* Releases a configuration (not one a running session started with:
 * ACL_ERROR_INVALID_PARAM). NULL: ACL_ERROR_INVALID_PARAM, as in CANN. */
ACL_FUNC_VISIBILITY aclError aclprofDestroyConfig(const aclprofConfig *profilerConfig);

/* Starts recording. ACL_ERROR_UNINITIALIZE before aclprofInit,
 * ACL_ERROR_PROF_ALREADY_RUN while a session (this API's, the aclInit
 * JSON's or OPENACL_PROFILE's) records. */
ACL_FUNC_VISIBILITY aclError aclprofStart(const aclprofConfig *profilerConfig);

/* Stops the session started with this configuration and writes its files;
 * ACL_ERROR_PROF_NOT_RUN when none runs, ACL_ERROR_INVALID_PARAM for another
 * configuration, ACL_ERROR_WRITE_FILE when a file cannot be written. */
ACL_FUNC_VISIBILITY aclError aclprofStop(const aclprofConfig *profilerConfig);

#ifdef __cplusplus
}
#endif
#endif
