#define _GNU_SOURCE
#include "CStorageShims.h"

#include <fcntl.h>
#include <unistd.h>

// sync_file_range is Linux's own, declared only with _GNU_SOURCE, which Swift's C modules
// do not define.
int cstorage_start_writeback(const char *path) {
#ifdef __linux__
    int descriptor = open(path, O_RDONLY | O_CLOEXEC);
    if (descriptor < 0) return -1;
    int code = sync_file_range(descriptor, 0, 0, SYNC_FILE_RANGE_WRITE);
    close(descriptor);
    return code;
#else
    (void)path;
    return 0;
#endif
}
