// The C library as every module of ours sees it, and the Linux interfaces Swift cannot call
// directly. Embedded Swift has no Glibc module, so this is the one C module in both builds:
// the libc headers, plus small functions for what Swift cannot import (errno, a macro;
// variadic open, fcntl and ioctl; SIG_IGN, a cast) and for what needs _GNU_SOURCE (accept4,
// eventfd, struct ucred, signalfd, timerfd, pidfd).
#pragma once
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>

/// The process's environment, `environ` (a global Swift 6 cannot read without a data race
/// check; <unistd.h> declares it only with _GNU_SOURCE).
char *const *clinux_environment(void);

/// The program's arguments, argv[0] first, as main received them (Embedded Swift has no
/// CommandLine): kept by a constructor, which glibc calls with main's arguments.
int clinux_argument_count(void);
char *const *clinux_arguments(void);

/// errno of the calling thread (a macro in C).
static inline int clinux_errno(void) { return errno; }

/// open(2) with its mode argument (open is variadic in C).
int clinux_open(const char *path, int flags, unsigned int mode);

/// fcntl(2) with an int argument, or none (0) for the commands that take none.
int clinux_fcntl(int fd, int command, int argument);

/// The columns of the terminal on `fd` (ioctl TIOCGWINSZ), 0 when it is none or does not say.
int clinux_terminal_columns(int fd);

/// Sets `signal` to be ignored (SIG_IGN), or to its default action (SIG_DFL).
void clinux_ignore_signal(int signal);
void clinux_default_signal(int signal);

/// accept4(2) without the peer address. Flags: SOCK_CLOEXEC, SOCK_NONBLOCK.
int clinux_accept4(int fd, int flags);

/// eventfd(2). Flags: O_CLOEXEC, O_NONBLOCK (equal to EFD_CLOEXEC, EFD_NONBLOCK).
int clinux_eventfd(unsigned int initial, int flags);

/// The peer's credentials of a connected Unix socket (SO_PEERCRED): 0, or -1 with errno set.
int clinux_peer_credentials(int fd, int *pid, unsigned int *uid, unsigned int *gid);

/// A signalfd(2) for the given signals (which the caller blocks), non-blocking, close-on-exec.
int clinux_signalfd(const int *signals, int count);

/// Reads one pending signal from a signalfd: its number, 0 when none is pending, -1 on error.
int clinux_signalfd_read(int fd);

/// Starts `/bin/sh -c command` in a new session with default signal handling and an empty
/// signal mask, stdin/stdout/stderr on /dev/null, and the given environment; returns its
/// pid, or -1 with errno set.
int clinux_spawn_detached_shell(const char *command, char *const environment[]);

/// Sets the calling thread's timer slack (prctl PR_SET_TIMERSLACK), letting the kernel
/// coalesce its wakeups with others'.
int clinux_set_timer_slack(unsigned long nanoseconds);

/// A timerfd(2) on CLOCK_MONOTONIC, non-blocking, close-on-exec.
int clinux_timerfd_create(void);

/// A timerfd(2) on CLOCK_MONOTONIC, close-on-exec, whose read blocks until it expires.
int clinux_timerfd_create_blocking(void);

/// Arms a timerfd to expire once at `nanoseconds` of CLOCK_MONOTONIC, or disarms it when
/// `nanoseconds` is 0. 0, or -1 with errno set.
int clinux_timerfd_set(int fd, unsigned long long nanoseconds);

/// realpath(3) into `resolved` (PATH_MAX bytes), by what the kernel says an O_PATH descriptor
/// of `path` is (/proc/self/fd): three system calls that succeed, where realpath makes a
/// readlink that fails (EINVAL) for every component that is not a link. Falls back to
/// realpath when /proc cannot say. 0, or -1 with errno set.
int clinux_resolve_path(const char *path, char *resolved);

/// Socket types and flags, and the resource limit, as plain ints: glibc declares them as
/// enums (imported with a rawValue), musl as macros.
static const int clinux_sock_stream = SOCK_STREAM;
static const int clinux_sock_dgram = SOCK_DGRAM;
static const int clinux_sock_cloexec = SOCK_CLOEXEC;
static const int clinux_sock_nonblock = SOCK_NONBLOCK;
static const int clinux_rlimit_nofile = RLIMIT_NOFILE;

/// Starts a detached thread running `run(context)` on a stack of `stack_size` bytes;
/// 0, or pthread_create's error number. (pthread_t is an integer in glibc, a pointer in musl.)
int clinux_start_detached_thread(void *(*run)(void *), void *context, size_t stack_size);

/// pipe2(2) with O_CLOEXEC.
int clinux_pipe_cloexec(int ends[2]);

/// For a forked child that may be left behind, stuck in a filesystem that hangs: it must
/// hold none of its parent's descriptors (whoever reads the parent's stdout, or waits on any
/// pipe of the parent's, would wait for it too). Puts /dev/null on 0, 1 and 2, `keep` on 3,
/// closes everything else; returns 3, or -1. Async-signal-safe.
int clinux_isolate_descriptors(int keep);

/// The exit status bit of clinux_fork_file_reader's child for a failed read (without it,
/// the open failed); the low 7 bits are the errno.
#define CLINUX_READER_FAILED_READ 0x80

/// Forks a child that copies the file at `path` to `output` (at most `limit` + 1 bytes)
/// and exits with 0, or with the errno of the open (or CLINUX_READER_FAILED_READ | errno).
/// The child makes only async-signal-safe calls, so any process may use this, threads and
/// all. Returns the child's pid, or -1 with errno set.
int clinux_fork_file_reader(const char *path, int output, long limit);

/// pidfd_open(2): a descriptor that polls readable once process `pid` has exited (a bar
/// whose blocks we follow). -1 with errno set.
int clinux_pidfd_open(int pid);

/// flock(2) with LOCK_EX | LOCK_NB on a file created at `path` (mode 0600), held for as
/// long as the returned descriptor is open: -1 when another process holds it.
int clinux_try_lock(const char *path);

/// What a filesystem probe answers for one request: the path resolved (realpath), its
/// device and inode (stat), and statvfs of it; or the call that failed and its errno.
struct clinux_probe_answer {
    /// 0: everything answered; 1: realpath failed; 2: stat; 3: statvfs.
    int failed_call;
    int error;
    unsigned long long device;
    unsigned long long inode;
    unsigned long long block_size;
    unsigned long long fragment_size;
    unsigned long long blocks;
    unsigned long long free_blocks;
    unsigned long long available_blocks;
    unsigned long long files;
    unsigned long long free_files;
    unsigned long long fsid;
    unsigned long long flags;
    unsigned int path_length;
    char path[4096];
};

/// The first byte of an answer's path (Swift sees `path` as a tuple of 4096 elements).
static inline const char *clinux_probe_answer_path(const struct clinux_probe_answer *answer) { return answer->path; }

/// Forks a filesystem probe for `path`: a child that, for every byte written to
/// `*requests`, writes one struct clinux_probe_answer to `*answers`, and exits when
/// `*requests` is closed. The calls that can hang on a dead network or FUSE filesystem
/// (realpath, stat, statvfs) are made in it, so a caller's thread never is stuck in one (a
/// process cannot exit while one of its threads is). The child runs C code only, with no
/// descriptor of the parent's but its two pipes. Returns the child's pid and sets the
/// caller's ends (close-on-exec), or -1 with errno set.
int clinux_probe_start(const char *path, int *requests, int *answers);

// Quotas: the btrfs subvolume, the project id, quotactl_fd(2).
#include "CLinuxQuota.h"
#include "CLinuxRounding.h"
