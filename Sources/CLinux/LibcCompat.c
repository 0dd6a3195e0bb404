#include "LibcCompat.h"

#ifdef USEDSPACE_MUSL
#include <errno.h>
#include <stdlib.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <unistd.h>

int close_range(unsigned int first, unsigned int last, int flags) {
    return (int)syscall(SYS_close_range, first, last, flags);
}

// The Embedded standard library's random numbers (Hasher's seed) come from here. Like
// glibc's, it never returns short: a kernel without getrandom(2) (before 3.17) aborts.
void arc4random_buf(void *bytes, size_t count) {
    unsigned char *next = bytes;
    while (count > 0) {
        ssize_t got = getrandom(next, count, 0);
        if (got < 0) {
            if (errno == EINTR) continue;
            abort();
        }
        next += got;
        count -= (size_t)got;
    }
}
#endif
