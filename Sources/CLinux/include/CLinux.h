// Linux interfaces that Swift's Glibc module leaves out because they need _GNU_SOURCE:
// accept4(2), eventfd(2), struct ucred (SO_PEERCRED). Only plain C types cross this
// header, so it does not clash with the Glibc module's view of the system headers.
#pragma once

/// accept4(2) without the peer address. Flags: SOCK_CLOEXEC, SOCK_NONBLOCK.
int clinux_accept4(int fd, int flags);

/// eventfd(2). Flags: O_CLOEXEC, O_NONBLOCK (equal to EFD_CLOEXEC, EFD_NONBLOCK).
int clinux_eventfd(unsigned int initial, int flags);

/// The peer's credentials of a connected Unix socket (SO_PEERCRED): 0, or -1 with errno set.
int clinux_peer_credentials(int fd, int *pid, unsigned int *uid, unsigned int *gid);
