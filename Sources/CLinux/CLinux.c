#define _GNU_SOURCE 1
#include "CLinux.h"
#include <sys/eventfd.h>
#include <sys/socket.h>

int clinux_accept4(int fd, int flags) { return accept4(fd, 0, 0, flags); }

int clinux_eventfd(unsigned int initial, int flags) { return eventfd(initial, flags); }

int clinux_peer_credentials(int fd, int *pid, unsigned int *uid, unsigned int *gid) {
    struct ucred credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    *pid = credentials.pid;
    *uid = credentials.uid;
    *gid = credentials.gid;
    return 0;
}
