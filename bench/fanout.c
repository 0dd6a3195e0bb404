// Fan-out load generator for usedspaced: N subscribers on the daemon's socket, and
// publishes triggered by writing and removing a file on the watched tmpfs. Measures when
// each subscriber receives each update (CLOCK_MONOTONIC, epoll), counts lost updates, and
// reads the daemon's VmRSS before and after the subscribers connect.
//
//   fanout SOCKET DAEMON_PID SUBSCRIBERS ROUNDS TRIGGER_FILE TRIGGER_BYTES
//
// Built and run by bench/fanout.sh; prints "key value" lines.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    int fd;
    char buffer[8192];
    size_t used;
    int awaiting;        // body lines still to come in the current frame
    int frames;          // complete frames: the subscription's "ok", then one per update
    int64_t received_at; // when the last frame completed
} subscriber;

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static long rss_kib(int pid) {
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    FILE *f = fopen(path, "r");
    long value = -1;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "VmRSS:", 6) == 0) value = strtol(line + 6, 0, 10);
    if (f) fclose(f);
    return value;
}

static int cmp(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int64_t percentile(int64_t *v, int n, double p) {
    if (n == 0) return -1;
    int i = (int)(p * (n - 1) + 0.5);
    return v[i];
}

// Reads what is available, counting complete frames; -1 on EOF or error.
static int drain(subscriber *s) {
    for (;;) {
        ssize_t n = read(s->fd, s->buffer + s->used, sizeof s->buffer - s->used);
        if (n == 0) return -1;
        if (n < 0) return errno == EAGAIN ? 0 : -1;
        s->used += n;
        char *start = s->buffer, *nl;
        while ((nl = memchr(start, '\n', s->buffer + s->used - start))) {
            if (s->awaiting > 0) {
                if (--s->awaiting == 0) { s->frames++; s->received_at = now_ns(); }
            } else if (strncmp(start, "ok ", 3) == 0 || strncmp(start, "update ", 7) == 0) {
                s->awaiting = atoi(strchr(start, ' ') + 1);
                if (s->awaiting == 0) { s->frames++; s->received_at = now_ns(); }
            } else {
                fprintf(stderr, "unexpected line: %.*s\n", (int)(nl - start), start);
                return -1;
            }
            start = nl + 1;
        }
        memmove(s->buffer, start, s->buffer + s->used - start);
        s->used -= start - s->buffer;
    }
}

int main(int argc, char **argv) {
    if (argc != 7) { fprintf(stderr, "usage: fanout SOCKET DAEMON_PID SUBSCRIBERS ROUNDS TRIGGER_FILE TRIGGER_BYTES\n"); return 2; }
    const char *socket_path = argv[1];
    int daemon = atoi(argv[2]), count = atoi(argv[3]), rounds = atoi(argv[4]);
    const char *trigger = argv[5];
    long trigger_bytes = atol(argv[6]);
    struct rlimit limit = {count + 64, count + 64};
    setrlimit(RLIMIT_NOFILE, &limit);

    long rss_before = rss_kib(daemon);
    subscriber *subs = calloc(count, sizeof *subs);
    int epoll = epoll_create1(0);
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    strncpy(address.sun_path, socket_path, sizeof address.sun_path - 1);
    for (int i = 0; i < count; i++) {
        int fd = socket(AF_UNIX, SOCK_STREAM, 0);
        if (connect(fd, (struct sockaddr *)&address, sizeof address) != 0) { perror("connect"); return 1; }
        if (write(fd, "subscribe format=json\n", 22) != 22) { perror("write"); return 1; }
        fcntl(fd, F_SETFL, O_NONBLOCK);
        subs[i].fd = fd;
        struct epoll_event event = {.events = EPOLLIN, .data.u32 = i};
        epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event);
    }
    // Wait for every subscription's first answer.
    int answered = 0;
    int64_t deadline = now_ns() + 30LL * 1000000000;
    while (answered < count && now_ns() < deadline) {
        struct epoll_event events[256];
        int n = epoll_wait(epoll, events, 256, 1000);
        for (int k = 0; k < n; k++)
            if (drain(&subs[events[k].data.u32]) < 0) { fprintf(stderr, "subscriber %u closed\n", events[k].data.u32); return 1; }
        answered = 0;
        for (int i = 0; i < count; i++) if (subs[i].frames >= 1) answered++;
    }
    if (answered < count) { fprintf(stderr, "only %d of %d subscriptions answered\n", answered, count); return 1; }
    usleep(500000);
    long rss_after = rss_kib(daemon);
    printf("subscribers %d\nrss_before_kib %ld\nrss_after_kib %ld\n", count, rss_before, rss_after);
    fflush(stdout);

    int64_t *spread = calloc((size_t)count * rounds, sizeof *spread);
    int64_t *from_trigger = calloc((size_t)count * rounds, sizeof *from_trigger);
    int samples = 0, lost = 0;
    for (int round = 1; round <= rounds; round++) {
        int64_t t0 = now_ns();
        if (round % 2) {
            int fd = open(trigger, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            char block[65536] = {1};
            for (long written = 0; written < trigger_bytes; written += sizeof block) if (write(fd, block, sizeof block) < 0) break;
            close(fd);
        } else {
            unlink(trigger);
        }
        int done = 0;
        int64_t until = t0 + 10LL * 1000000000;
        while (done < count && now_ns() < until) {
            struct epoll_event events[256];
            int n = epoll_wait(epoll, events, 256, 100);
            for (int k = 0; k < n; k++) {
                subscriber *s = &subs[events[k].data.u32];
                if (drain(s) < 0) { fprintf(stderr, "subscriber closed\n"); return 1; }
            }
            done = 0;
            for (int i = 0; i < count; i++) if (subs[i].frames >= round + 1) done++;
        }
        int64_t first = INT64_MAX;
        for (int i = 0; i < count; i++) if (subs[i].frames >= round + 1 && subs[i].received_at < first) first = subs[i].received_at;
        for (int i = 0; i < count; i++) {
            if (subs[i].frames < round + 1) { lost++; subs[i].frames = round + 1; continue; }
            if (subs[i].frames > round + 1) fprintf(stderr, "subscriber %d: %d updates by round %d\n", i, subs[i].frames - 1, round);
            spread[samples] = subs[i].received_at - first;
            from_trigger[samples] = subs[i].received_at - t0;
            samples++;
        }
        usleep(300000);
    }
    qsort(spread, samples, sizeof *spread, cmp);
    qsort(from_trigger, samples, sizeof *from_trigger, cmp);
    printf("rounds %d\ndeliveries %d\nlost %d\n", rounds, samples, lost);
    printf("spread_p50_ms %.3f\nspread_p99_ms %.3f\nspread_max_ms %.3f\n",
           percentile(spread, samples, 0.5) / 1e6, percentile(spread, samples, 0.99) / 1e6, percentile(spread, samples, 1.0) / 1e6);
    printf("from_change_p50_ms %.3f\nfrom_change_p99_ms %.3f\n",
           percentile(from_trigger, samples, 0.5) / 1e6, percentile(from_trigger, samples, 0.99) / 1e6);
    return 0;
}
