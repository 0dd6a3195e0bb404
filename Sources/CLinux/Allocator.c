#ifdef USEDSPACE_ALLOCATOR
// The client's malloc in the musl build (Package.swift defines USEDSPACE_ALLOCATOR there).
// musl's own, mallocng, maps and unmaps a page at nearly every allocation a `usedspace
// status` makes: 80 system calls, and a start slower than static glibc's. This one keeps
// freed blocks on a free list per size class (16 B steps to 128 B, then powers of two to
// 64 KiB), carved from 256 KiB regions, and maps only larger blocks. Nothing small is given
// back: the client is short-lived, and a `watch` reuses the same few sizes for as long as it
// runs. One spin lock, not a mutex (musl's unlock alone cost more than glibc's whole free):
// the client's threads allocate rarely. AllocatorTests runs it under a stress program, which
// also forks while its threads allocate.
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

enum {
    HEADER = 16,             // before every block: keeps the 16-byte alignment malloc owes
    STEP = 16,               // classes 0 … 7: 16, 32, … 128 B
    STEPPED = 8,
    CLASSES = STEPPED + 9,   // then 256 B … 64 KiB
    REGION = 256 << 10,
    PAGE = 4096,
};
#define LARGE UINT32_MAX

struct header {
    uint64_t capacity;       // usable bytes from the pointer handed out
    uint32_t size_class;     // or LARGE: mapped on its own
    uint32_t offset;         // from the block's start to the pointer handed out
};

struct free_block { struct free_block *next; };

static int locked;
static struct free_block *free_lists[CLASSES];
static char *region_next, *region_end;

static void lock(void) {
    while (__atomic_exchange_n(&locked, 1, __ATOMIC_ACQUIRE)) sched_yield();
}

static void unlock(void) { __atomic_store_n(&locked, 0, __ATOMIC_RELEASE); }

// A fork() while another thread holds the lock would give the child a copy locked for good,
// and the child's first allocation would spin for ever. The lock is held across every fork
// (no block is half-taken then) and released on both sides.
static void hold_across_fork(void) { lock(); }
static void release_after_fork(void) { unlock(); }
__attribute__((constructor)) static void guard_forks(void) { pthread_atfork(hold_across_fork, release_after_fork, release_after_fork); }

static size_t class_capacity(uint32_t size_class) {
    return size_class < STEPPED ? (size_t)(size_class + 1) * STEP : (size_t)256 << (size_class - STEPPED);
}

// The smallest class that holds `size` (at most 64 KiB).
static uint32_t class_for(size_t size) {
    if (size <= STEPPED * STEP) return size <= STEP ? 0 : (uint32_t)((size - 1) / STEP);
    uint32_t bits = 64 - (uint32_t)__builtin_clzl(size - 1);   // 2^bits >= size, bits >= 8
    return STEPPED + bits - 8;
}

// A block of `length` (HEADER + the class's capacity) bytes, 16-byte aligned, or NULL.
static char *small_block(uint32_t size_class, size_t length) {
    lock();
    char *block = (char *)free_lists[size_class];
    if (block) {
        free_lists[size_class] = free_lists[size_class]->next;
    } else {
        if ((size_t)(region_end - region_next) < length) {
            char *region = mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (region == MAP_FAILED) {
                unlock();
                return NULL;
            }
            region_next = region;
            region_end = region + REGION;
        }
        block = region_next;
        region_next += length;
    }
    unlock();
    return block;
}

static void *allocate(size_t size, size_t alignment) {
    size_t slack = alignment > HEADER ? alignment : 0;
    if (size > SIZE_MAX - slack - HEADER - PAGE) {
        errno = ENOMEM;
        return NULL;
    }
    size_t needed = size + slack;
    char *block;
    size_t length;
    uint32_t size_class;
    if (needed <= class_capacity(CLASSES - 1)) {
        size_class = class_for(needed);
        length = HEADER + class_capacity(size_class);
        block = small_block(size_class, length);
        if (!block) {
            errno = ENOMEM;
            return NULL;
        }
    } else {
        size_class = LARGE;
        length = (needed + HEADER + PAGE - 1) & ~(size_t)(PAGE - 1);
        block = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (block == MAP_FAILED) {
            errno = ENOMEM;
            return NULL;
        }
    }
    uintptr_t start = (uintptr_t)block + HEADER;
    if (alignment > HEADER) start = (start + alignment - 1) & ~(uintptr_t)(alignment - 1);
    char *pointer = (char *)start;
    struct header *header = (struct header *)(pointer - HEADER);
    header->offset = (uint32_t)(pointer - block);
    header->capacity = length - header->offset;
    header->size_class = size_class;
    return pointer;
}

static struct header *header_of(void *pointer) { return (struct header *)((char *)pointer - HEADER); }

void *malloc(size_t size) { return allocate(size, HEADER); }

void free(void *pointer) {
    if (!pointer) return;
    struct header *header = header_of(pointer);
    char *block = (char *)pointer - header->offset;
    if (header->size_class == LARGE) {
        munmap(block, header->offset + header->capacity);
        return;
    }
    uint32_t size_class = header->size_class;
    lock();
    ((struct free_block *)block)->next = free_lists[size_class];
    free_lists[size_class] = (struct free_block *)block;
    unlock();
}

void *calloc(size_t count, size_t size) {
    if (size != 0 && count > SIZE_MAX / size) {
        errno = ENOMEM;
        return NULL;
    }
    void *pointer = malloc(count * size);
    if (pointer) memset(pointer, 0, count * size);
    return pointer;
}

void *realloc(void *pointer, size_t size) {
    if (!pointer) return malloc(size);
    size_t capacity = header_of(pointer)->capacity;
    if (size <= capacity) return pointer;
    void *moved = malloc(size);
    if (!moved) return NULL;
    memcpy(moved, pointer, capacity);
    free(pointer);
    return moved;
}

static int power_of_two(size_t value) { return value != 0 && (value & (value - 1)) == 0; }

int posix_memalign(void **result, size_t alignment, size_t size) {
    if (!power_of_two(alignment) || alignment % sizeof(void *) != 0) return EINVAL;
    void *pointer = allocate(size, alignment);
    if (!pointer) return ENOMEM;
    *result = pointer;
    return 0;
}

void *aligned_alloc(size_t alignment, size_t size) {
    if (!power_of_two(alignment)) {
        errno = EINVAL;
        return NULL;
    }
    return allocate(size, alignment);
}

void *memalign(size_t alignment, size_t size) { return aligned_alloc(alignment, size); }

size_t malloc_usable_size(void *pointer) { return pointer ? header_of(pointer)->capacity : 0; }
#endif
