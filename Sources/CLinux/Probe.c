#define _GNU_SOURCE
#include "CLinux.h"
#include "LibcCompat.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

static int probe_write_all(int fd, const char *bytes, size_t count) {
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

static void probe_answer(const char *path, struct clinux_probe_answer *answer) {
    memset(answer, 0, sizeof *answer);
    char resolved[PATH_MAX];
    if (!realpath(path, resolved)) {
        answer->failed_call = 1;
        answer->error = errno;
        return;
    }
    answer->path_length = (unsigned int)strlen(resolved);
    memcpy(answer->path, resolved, answer->path_length);
    struct stat status;
    if (stat(resolved, &status) != 0) {
        answer->failed_call = 2;
        answer->error = errno;
        return;
    }
    answer->device = status.st_dev;
    answer->inode = status.st_ino;
    struct statvfs info;
    if (statvfs(resolved, &info) != 0) {
        answer->failed_call = 3;
        answer->error = errno;
        return;
    }
    answer->block_size = info.f_bsize;
    answer->fragment_size = info.f_frsize;
    answer->blocks = info.f_blocks;
    answer->free_blocks = info.f_bfree;
    answer->available_blocks = info.f_bavail;
    answer->files = info.f_files;
    answer->free_files = info.f_ffree;
    answer->fsid = info.f_fsid;
    answer->flags = info.f_flag;
}

int clinux_probe_start(const char *path, int *requests, int *answers) {
    int request_pipe[2], answer_pipe[2];
    if (pipe2(request_pipe, O_CLOEXEC) != 0) return -1;
    if (pipe2(answer_pipe, O_CLOEXEC) != 0) {
        close(request_pipe[0]);
        close(request_pipe[1]);
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        int saved = errno;
        close(request_pipe[0]); close(request_pipe[1]);
        close(answer_pipe[0]); close(answer_pipe[1]);
        errno = saved;
        return -1;
    }
    if (pid == 0) {
        // Its requests on 3, its answers on 4, nothing else of the parent's.
        int in = fcntl(request_pipe[0], F_DUPFD, 10), out = fcntl(answer_pipe[1], F_DUPFD, 10);
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) { dup2(null, 0); dup2(null, 1); dup2(null, 2); }
        if (in < 0 || out < 0 || dup2(in, 3) < 0 || dup2(out, 4) < 0) _exit(1);
        close_range(5, ~0U, 0);
        prctl(PR_SET_NAME, "usedspace-probe", 0, 0, 0);
        static struct clinux_probe_answer answer;
        for (;;) {
            char request;
            ssize_t count = read(3, &request, 1);
            if (count == 0) _exit(0);
            if (count < 0) {
                if (errno == EINTR) continue;
                _exit(1);
            }
            probe_answer(path, &answer);
            if (probe_write_all(4, (const char *)&answer, sizeof answer) != 0) _exit(0);
        }
    }
    close(request_pipe[0]);
    close(answer_pipe[1]);
    *requests = request_pipe[1];
    *answers = answer_pipe[0];
    return pid;
}
