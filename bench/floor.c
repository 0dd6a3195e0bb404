/* The least a publish can cost in usedspace's shape, in C: what bench/floor.sh measures
 * against i3status, to tell the design's own cost from the code's.
 *
 *   floor daemon PATH SOCKET [threads]  samples PATH every second (timerfd + statvfs) and,
 *       when the used blocks moved, sends one line to every client of SOCKET. With
 *       `threads`, as usedspaced does: a sampling thread wakes the loop through an eventfd
 *       (statvfs may hang; the loop must not).
 *   floor watch SOCKET  connects, and writes an i3bar block to stdout for every line read.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/statvfs.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <unistd.h>

#define MAX_CLIENTS 16

static const char *watched;
static int clients[MAX_CLIENTS], client_count;
static int wake_fd;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long long shared_used, shared_total;

static int sample(unsigned long long *used, unsigned long long *total) {
    struct statvfs s;
    if (statvfs(watched, &s) != 0) return -1;
    *used = (unsigned long long)(s.f_blocks - s.f_bfree) * s.f_frsize;
    *total = (unsigned long long)s.f_blocks * s.f_frsize;
    return 0;
}

static void send_all(unsigned long long used, unsigned long long total) {
    char line[128];
    int n = snprintf(line, sizeof line, "update %llu %llu\n", used, total);
    for (int i = 0; i < client_count; i++) (void)!write(clients[i], line, (size_t)n);
}

static int make_timer(void) {
    int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
    struct itimerspec spec = {.it_interval = {1, 0}, .it_value = {1, 0}};
    timerfd_settime(fd, 0, &spec, NULL);
    return fd;
}

static void *sampling_thread(void *unused) {
    (void)unused;
    int timer = make_timer();
    unsigned long long last = 0;
    for (;;) {
        uint64_t ticks;
        if (read(timer, &ticks, sizeof ticks) < 0) continue;
        unsigned long long used, total;
        if (sample(&used, &total) != 0 || used == last) continue;
        last = used;
        pthread_mutex_lock(&lock);
        shared_used = used;
        shared_total = total;
        pthread_mutex_unlock(&lock);
        uint64_t one = 1;
        (void)!write(wake_fd, &one, sizeof one);
    }
    return NULL;
}

static int run_daemon(const char *socket_path, int threaded) {
    int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    strncpy(address.sun_path, socket_path, sizeof address.sun_path - 1);
    unlink(socket_path);
    if (bind(listener, (struct sockaddr *)&address, sizeof address) != 0 || listen(listener, 16) != 0) {
        perror("floor: listen");
        return 1;
    }
    int epoll = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event event = {.events = EPOLLIN, .data.fd = listener};
    epoll_ctl(epoll, EPOLL_CTL_ADD, listener, &event);
    int source;
    if (threaded) {
        wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        source = wake_fd;
        pthread_t thread;
        pthread_create(&thread, NULL, sampling_thread, NULL);
    } else {
        source = make_timer();
    }
    event.data.fd = source;
    epoll_ctl(epoll, EPOLL_CTL_ADD, source, &event);
    unsigned long long last = 0;
    for (;;) {
        struct epoll_event ready[4];
        int count = epoll_wait(epoll, ready, 4, -1);
        for (int i = 0; i < count; i++) {
            if (ready[i].data.fd == listener) {
                int client = accept4(listener, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
                if (client >= 0 && client_count < MAX_CLIENTS) clients[client_count++] = client;
                continue;
            }
            uint64_t ticks;
            if (read(source, &ticks, sizeof ticks) < 0) continue;
            unsigned long long used, total;
            if (threaded) {
                pthread_mutex_lock(&lock);
                used = shared_used;
                total = shared_total;
                pthread_mutex_unlock(&lock);
            } else if (sample(&used, &total) != 0 || used == last) {
                continue;
            }
            last = used;
            send_all(used, total);
        }
    }
}

static int run_watch(const char *socket_path) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    strncpy(address.sun_path, socket_path, sizeof address.sun_path - 1);
    if (connect(fd, (struct sockaddr *)&address, sizeof address) != 0) {
        perror("floor: connect");
        return 1;
    }
    setvbuf(stdout, NULL, _IOFBF, 4096);
    printf("{\"version\":1}\n[\n");
    fflush(stdout);
    char buffer[256];
    for (;;) {
        struct pollfd poller = {.fd = fd, .events = POLLIN};
        if (poll(&poller, 1, -1) < 0) continue;
        ssize_t n = read(fd, buffer, sizeof buffer - 1);
        if (n <= 0) return 0;
        buffer[n] = 0;
        unsigned long long used, total;
        if (sscanf(buffer, "update %llu %llu", &used, &total) != 2 || total == 0) continue;
        printf("[{\"name\":\"usedspace\",\"full_text\":\"%.1f%%\"}],\n", 100.0 * (double)used / (double)total);
        fflush(stdout);
    }
}

int main(int argc, char **argv) {
    if (argc >= 4 && strcmp(argv[1], "daemon") == 0) {
        watched = argv[2];
        return run_daemon(argv[3], argc >= 5 && strcmp(argv[4], "threads") == 0);
    }
    if (argc == 3 && strcmp(argv[1], "watch") == 0) return run_watch(argv[2]);
    fprintf(stderr, "usage: floor daemon PATH SOCKET [threads] | floor watch SOCKET\n");
    return 2;
}
