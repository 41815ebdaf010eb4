#include "CStorageShims.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

void cstorage_release_free_memory(void) {
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}
