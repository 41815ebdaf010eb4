#define _GNU_SOURCE
#include "CSQLiteSetup.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

// sqlite3_config takes variable arguments, which Swift cannot pass: this file calls it.
int csqlite_setup_for_bulk_writes(void) {
    int code = sqlite3_config(SQLITE_CONFIG_MULTITHREAD);
    if (code != SQLITE_OK) return code;
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

// sync_file_range is Linux's own, declared only with _GNU_SOURCE, which Swift's C modules
// do not define.
int csqlite_start_writeback(const char *path) {
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
