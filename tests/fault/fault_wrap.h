/* Fault injection by link-time wrapping (-Wl,--wrap=SYM): every call the
 * library makes to an allocation, file-read or thread-creation function goes
 * through a counting wrapper that makes the Nth call of its class fail the
 * way the real function fails (NULL/ENOMEM, -1/EMFILE or EIO, EAGAIN).
 * oneDNN, libgomp, protobuf-c and cJSON are shared libraries and keep the
 * real functions. */
#ifndef OPENACL_TESTS_FAULT_WRAP_H
#define OPENACL_TESTS_FAULT_WRAP_H

enum { FW_ALLOC, FW_IO, FW_THREAD, FW_CLASSES };

/* Starts counting from 0 with call number `fail_at` of class `cls` failing
 * (0: none fails). Counting is off until fw_arm. */
void fw_arm(int cls, long fail_at);
/* Persistent mode: call fail_at and every later call of the class fail
 * (memory stays exhausted), instead of only call fail_at. */
void fw_set_persistent(int on);
void fw_disarm(void);
/* Calls of class cls counted since the last fw_arm. */
long fw_count(int cls);
/* Number of failures injected since the last fw_arm (0 or 1). */
long fw_injected(void);
const char *fw_class_name(int cls);

#endif
