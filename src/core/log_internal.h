/* Logging internals shared by src/core, src/base (aclAppLog) and src/rt
 * (aclInit's log_level key). Not for other layers: they use acl_log(). */
#ifndef OPENACL_LOG_INTERNAL_H
#define OPENACL_LOG_INTERNAL_H

/* Writes one formatted line "[LEVEL] MODULE(tid,openacl):time text" if the
 * level is enabled. */
void acl_log_emit(int level, const char *module, const char *text);

/* Threshold control: aclInit applies the config's level unless the
 * environment set one. */
void acl_log_set_level(int level);
int acl_log_get_level(void);
int acl_log_env_level_set(void);
void acl_log_reload_env(void);

#endif
