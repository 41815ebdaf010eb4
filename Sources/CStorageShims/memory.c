#define _GNU_SOURCE
#include "CStorageShims.h"

#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif
#if defined(__GLIBC__)
#include <malloc.h>
#endif

void cstorage_release_free_memory(void) {
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

void cstorage_map_large_allocations(void) {
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
}

void *cstorage_allocate_table(unsigned long bytes) {
    const unsigned long huge = 2UL << 20;
    void *table = NULL;
    unsigned long size = (bytes + huge - 1) / huge * huge;
    if (size == 0) size = huge;
    if (posix_memalign(&table, huge, size) != 0) return NULL;
#ifdef MADV_HUGEPAGE
    madvise(table, size, MADV_HUGEPAGE);
#endif
    memset(table, 0, size);
    return table;
}

void cstorage_free_table(void *table) { free(table); }
