#ifndef USEDSPACE_LIBC_COMPAT_H
#define USEDSPACE_LIBC_COMPAT_H
// What glibc 2.36 has and musl 1.2.3 (the shipped client's libc, Package.swift) does not.
// Private to CLinux: its C files call these by their glibc names.
#include <stddef.h>
#include <unistd.h>

#ifdef USEDSPACE_MUSL
#ifdef __GLIBC__
#error "a glibc header was included in the musl build: musl's headers must come first (Package.swift)"
#endif
int close_range(unsigned int first, unsigned int last, int flags);
void arc4random_buf(void *bytes, size_t count);
#endif

#endif
