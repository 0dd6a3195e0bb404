#ifndef CTESTSUPPORT_H
#define CTESTSUPPORT_H
#include <sys/types.h>

/// Connects a new AF_UNIX stream socket to `path` with the calling thread's effective ids
/// switched to `uid`/`gid` for the connect only (raw setresuid/setresgid change one thread,
/// unlike glibc's wrappers), so that the peer's SO_PEERCRED shows that user. The tests run
/// as root; the daemon under test serves only its own user. Returns the descriptor, or
/// -errno.
int test_connect_unix_as(const char *path, uid_t uid, gid_t gid);

/// posix_spawn_file_actions_addclosefrom_np(actions, from) (glibc 2.34), which the Swift
/// Glibc module does not show: the spawned child gets no descriptor from `from` on.
int test_spawn_close_from(void *actions, int from);

#endif
