#define _GNU_SOURCE 1
#include "CLinux.h"
#include "LibcCompat.h"
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

int clinux_open(const char *path, int flags, unsigned int mode) { return open(path, flags, (mode_t)mode); }

static int argument_count;
static char **arguments;

#ifndef USEDSPACE_MUSL
// glibc calls the functions of .init_array with main's argc, argv and envp (static too).
__attribute__((constructor)) static void keep_arguments(int count, char **values, char **environment) {
    (void)environment;
    argument_count = count;
    arguments = values;
}
#else
// musl calls them with none. Before main, environ is still the envp of the initial stack,
// which Linux's ELF loader lays out, on x86-64 and aarch64 alike, as argc, argv[0] …
// argv[argc - 1], NULL, envp: so argc is the first n for which the slot n + 2 below environ
// holds n (the others hold pointers).
__attribute__((constructor)) static void keep_arguments(void) {
    long count = 0;
    while ((long)environ[-2 - count] != count) count++;
    argument_count = (int)count;
    arguments = environ - 1 - count;
}
#endif

int clinux_argument_count(void) { return argument_count; }

char *const *clinux_arguments(void) { return arguments; }

char *const *clinux_environment(void) { return environ; }

int clinux_fcntl(int fd, int command, int argument) { return fcntl(fd, command, argument); }

int clinux_terminal_columns(int fd) {
    struct winsize size = {0};
    if (!isatty(fd) || ioctl(fd, TIOCGWINSZ, &size) != 0) return 0;
    return size.ws_col;
}

void clinux_ignore_signal(int signal_number) { signal(signal_number, SIG_IGN); }

void clinux_default_signal(int signal_number) { signal(signal_number, SIG_DFL); }

int clinux_accept4(int fd, int flags) { return accept4(fd, 0, 0, flags); }

int clinux_eventfd(unsigned int initial, int flags) { return eventfd(initial, flags); }

#include <sys/timerfd.h>

int clinux_timerfd_create(void) { return timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK); }

int clinux_timerfd_create_blocking(void) { return timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC); }

int clinux_timerfd_set(int fd, unsigned long long nanoseconds) {
    struct itimerspec when = {0};
    when.it_value.tv_sec = (time_t)(nanoseconds / 1000000000ULL);
    when.it_value.tv_nsec = (long)(nanoseconds % 1000000000ULL);
    return timerfd_settime(fd, nanoseconds == 0 ? 0 : TFD_TIMER_ABSTIME, &when, 0);
}

int clinux_peer_credentials(int fd, int *pid, unsigned int *uid, unsigned int *gid) {
    struct ucred credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    *pid = credentials.pid;
    *uid = credentials.uid;
    *gid = credentials.gid;
    return 0;
}

#include <fcntl.h>
#include <signal.h>
#include <errno.h>
#include <spawn.h>
#include <sys/signalfd.h>
#include <unistd.h>

int clinux_signalfd(const int *signals, int count) {
    sigset_t set;
    sigemptyset(&set);
    for (int i = 0; i < count; i++) sigaddset(&set, signals[i]);
    return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

int clinux_signalfd_read(int fd) {
    struct signalfd_siginfo info;
    ssize_t n = read(fd, &info, sizeof info);
    if (n == (ssize_t)sizeof info) return (int)info.ssi_signo;
    return n < 0 ? -1 : 0;
}

int clinux_spawn_detached_shell(const char *command, char *const environment[]) {
    posix_spawnattr_t attributes;
    posix_spawn_file_actions_t actions;
    posix_spawnattr_init(&attributes);
    posix_spawn_file_actions_init(&actions);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setsigdefault(&attributes, &all);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    char *const argv[] = {"/bin/sh", "-c", (char *)command, 0};
    pid_t pid = -1;
    int result = posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, environment);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    if (result != 0) {
        errno = result;
        return -1;
    }
    return pid;
}

#include <sys/prctl.h>

int clinux_set_timer_slack(unsigned long nanoseconds) { return prctl(PR_SET_TIMERSLACK, nanoseconds, 0, 0, 0); }


int clinux_start_detached_thread(void *(*run)(void *), void *context, size_t stack_size) {
    pthread_attr_t attributes;
    int result = pthread_attr_init(&attributes);
    if (result != 0) return result;
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attributes, stack_size);
    pthread_t thread;
    result = pthread_create(&thread, &attributes, run, context);
    pthread_attr_destroy(&attributes);
    return result;
}

int clinux_pipe_cloexec(int ends[2]) { return pipe2(ends, O_CLOEXEC); }

int clinux_isolate_descriptors(int keep) {
    int moved = fcntl(keep, F_DUPFD, 10);
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
        dup2(null, 0);
        dup2(null, 1);
        dup2(null, 2);
    }
    if (moved < 0 || dup2(moved, 3) < 0) return -1;
    close_range(4, ~0U, 0);
    return 3;
}

static int write_all(int fd, const char *bytes, size_t count) {
    while (count > 0) {
        ssize_t written = write(fd, bytes, count);
        if (written < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        bytes += written;
        count -= (size_t)written;
    }
    return 0;
}

int clinux_fork_file_reader(const char *path, int output, long limit) {
    pid_t pid = fork();
    if (pid != 0) return pid;
    int out = clinux_isolate_descriptors(output);
    if (out < 0) _exit(CLINUX_READER_FAILED_READ | EBADF);
    int fd;
    do fd = open(path, O_RDONLY | O_CLOEXEC); while (fd < 0 && errno == EINTR);
    if (fd < 0) _exit(errno & 0x7f);
    char buffer[16384];
    long total = 0;
    for (;;) {
        ssize_t count = read(fd, buffer, sizeof buffer);
        if (count < 0) {
            if (errno == EINTR) continue;
            _exit(CLINUX_READER_FAILED_READ | (errno & 0x7f));
        }
        if (count == 0) _exit(0);
        if (write_all(out, buffer, (size_t)count) != 0) _exit(CLINUX_READER_FAILED_READ | EPIPE);
        total += count;
        if (total > limit) _exit(0);
    }
}

#include <sys/syscall.h>
#include <sys/file.h>

int clinux_pidfd_open(int pid) {
    return (int)syscall(SYS_pidfd_open, pid, 0);
}

int clinux_try_lock(const char *path) {
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return -1;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int clinux_resolve_path(const char *path, char *resolved) {
    int descriptor = open(path, O_PATH | O_CLOEXEC);
    if (descriptor < 0) return -1;
    char link[40];
    snprintf(link, sizeof link, "/proc/self/fd/%d", descriptor);
    ssize_t length = readlink(link, resolved, PATH_MAX - 1);
    close(descriptor);
    static const char deleted[] = " (deleted)";
    size_t suffix = sizeof deleted - 1;
    // Not an absolute path (no /proc, or an object outside this namespace's tree), cut
    // short, or maybe a directory deleted since: realpath knows.
    if (length <= 0 || length >= PATH_MAX - 1 || resolved[0] != '/' ||
        ((size_t)length >= suffix && memcmp(resolved + length - suffix, deleted, suffix) == 0)) {
        return realpath(path, resolved) ? 0 : -1;
    }
    resolved[length] = 0;
    return 0;
}
