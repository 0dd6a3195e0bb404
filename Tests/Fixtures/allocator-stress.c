// Stress program for Sources/CLinux/Allocator.c (AllocatorTests): built with it, it replaces
// the C library's malloc for the whole process. Threads allocate, check and free blocks of
// random sizes and alignments through every entry point; each block is filled with a pattern
// of its own, checked before it is resized or freed, so that two live blocks that overlap,
// a resize that loses bytes, or a calloc that is not zero is caught. Meanwhile the main
// thread forks, and each child allocates and frees: a child that inherited the allocator's
// lock held by another thread would never finish. Prints "ok" and exits 0, or says what broke
// and exits 1.
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { THREADS = 4, SLOTS = 512, OPERATIONS = 100000, FORKS = 300 };

struct slot { unsigned char *bytes; size_t size; unsigned char pattern; };

static void fail(const char *what, size_t size) {
    fprintf(stderr, "allocator-stress: %s (size %zu)\n", what, size);
    exit(1);
}

static uint64_t next_random(uint64_t *state) {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

static size_t random_size(uint64_t *state) {
    uint64_t kind = next_random(state) % 100;
    if (kind < 70) return next_random(state) % 257;               // most: small
    if (kind < 95) return next_random(state) % (70 << 10);        // around the largest class
    return next_random(state) % (600 << 10);                      // mapped on their own
}

static void fill(struct slot *slot) { memset(slot->bytes, slot->pattern, slot->size); }

static void check(const struct slot *slot, size_t count) {
    for (size_t i = 0; i < count; i++)
        if (slot->bytes[i] != slot->pattern) fail("a live block was overwritten", slot->size);
}

static void allocate(struct slot *slot, uint64_t *state) {
    size_t size = random_size(state);
    size_t alignment = 0;
    switch (next_random(state) % 4) {
    case 0:
        slot->bytes = malloc(size);
        break;
    case 1:
        slot->bytes = calloc(1, size);
        if (slot->bytes)
            for (size_t i = 0; i < size; i++)
                if (slot->bytes[i] != 0) fail("calloc returned bytes that are not zero", size);
        break;
    case 2:
        alignment = (size_t)8 << (next_random(state) % 10);       // 8 … 4096
        if (posix_memalign((void **)&slot->bytes, alignment, size) != 0) slot->bytes = NULL;
        break;
    default:
        alignment = (size_t)16 << (next_random(state) % 9);       // 16 … 4096
        slot->bytes = aligned_alloc(alignment, size);
        break;
    }
    if (!slot->bytes) fail("an allocation failed", size);
    if ((uintptr_t)slot->bytes % 16 != 0) fail("a block is not 16-byte aligned", size);
    if (alignment && (uintptr_t)slot->bytes % alignment != 0) fail("a block is not aligned as asked", size);
    if (malloc_usable_size(slot->bytes) < size) fail("malloc_usable_size is less than asked", size);
    slot->size = size;
    slot->pattern = (unsigned char)(next_random(state) | 1);
    fill(slot);
}

static void *run(void *argument) {
    uint64_t state = 0x9E3779B97F4A7C15ull * ((uintptr_t)argument + 1);
    static __thread struct slot slots[SLOTS];
    for (int operation = 0; operation < OPERATIONS; operation++) {
        struct slot *slot = &slots[next_random(&state) % SLOTS];
        if (!slot->bytes) {
            allocate(slot, &state);
            continue;
        }
        check(slot, slot->size);
        if (next_random(&state) % 4 == 0) {
            size_t size = random_size(&state);
            unsigned char *moved = realloc(slot->bytes, size);
            if (!moved) fail("realloc failed", size);
            slot->bytes = moved;
            check(slot, size < slot->size ? size : slot->size);
            slot->size = size;
            fill(slot);
        } else {
            free(slot->bytes);
            slot->bytes = NULL;
        }
    }
    for (int i = 0; i < SLOTS; i++) {
        if (slots[i].bytes) check(&slots[i], slots[i].size);
        free(slots[i].bytes);
        slots[i].bytes = NULL;
    }
    return NULL;
}

// A child of fork() while the threads allocate: it allocates and frees, and must exit within
// 10 s (one that inherited a held lock spins for ever, and is killed).
static void fork_and_allocate(void) {
    pid_t child = fork();
    if (child < 0) fail("fork failed", 0);
    if (child == 0) {
        for (size_t size = 1; size < (200 << 10); size = size * 3 + 1) {
            void *block = malloc(size);
            if (!block) _exit(2);
            memset(block, 0x5a, size);
            free(block);
        }
        _exit(0);
    }
    struct timespec pause = {0, 1000000};
    for (int waited = 0; waited < 10000; waited++) {
        int status;
        pid_t done = waitpid(child, &status, WNOHANG);
        if (done == child) {
            if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) fail("a child of fork() failed to allocate", 0);
            return;
        }
        nanosleep(&pause, NULL);
    }
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    fail("a child of fork() never finished allocating: it inherited a held lock", 0);
}

int main(void) {
    // Ours, not the C library's: its blocks have power-of-two capacities (glibc's 20 is 24).
    void *probe = malloc(20);
    if (malloc_usable_size(probe) != 32) fail("this is not Allocator.c's malloc", 20);
    free(probe);
    free(NULL);
    volatile size_t huge = SIZE_MAX;
    errno = 0;
    if (malloc(huge) != NULL || errno != ENOMEM) fail("malloc(SIZE_MAX) did not fail with ENOMEM", huge);
    errno = 0;
    if (calloc(huge / 2, 4) != NULL || errno != ENOMEM) fail("an overflowing calloc did not fail with ENOMEM", huge);
    void *pointer;
    if (posix_memalign(&pointer, 24, 16) != EINVAL) fail("posix_memalign took an alignment that is no power of two", 16);
    pthread_t threads[THREADS];
    for (uintptr_t i = 0; i < THREADS; i++)
        if (pthread_create(&threads[i], NULL, run, (void *)i) != 0) fail("pthread_create failed", 0);
    for (int i = 0; i < FORKS; i++) fork_and_allocate();
    for (int i = 0; i < THREADS; i++) pthread_join(threads[i], NULL);
    printf("ok: %d threads, %d operations each, %d forks\n", THREADS, OPERATIONS, FORKS);
    return 0;
}
