#define _GNU_SOURCE
#include "CTestSupport.h"
#include <errno.h>
#include <spawn.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

int test_connect_unix_as(const char *path, uid_t uid, gid_t gid) {
    struct sockaddr_un address = { .sun_family = AF_UNIX };
    if (strlen(path) >= sizeof address.sun_path) return -ENAMETOOLONG;
    strcpy(address.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -errno;
    if (syscall(SYS_setresgid, -1, gid, -1) != 0) { int e = errno; close(fd); return -e; }
    if (syscall(SYS_setresuid, -1, uid, -1) != 0) { int e = errno; syscall(SYS_setresgid, -1, 0, -1); close(fd); return -e; }
    int result = connect(fd, (struct sockaddr *)&address, sizeof address);
    int saved = errno;
    // Back to root for this thread (the saved ids are still 0).
    syscall(SYS_setresuid, -1, 0, -1);
    syscall(SYS_setresgid, -1, 0, -1);
    if (result != 0) { close(fd); return -saved; }
    return fd;
}

int test_spawn_close_from(void *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np((posix_spawn_file_actions_t *)actions, from);
}
