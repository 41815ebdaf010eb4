#include "CStorageShims.h"

#include <sqlite3.h>

// sqlite3_config takes variable arguments, which Swift cannot pass: this file calls it.
int cstorage_configure_sqlite_for_bulk_writes(void) {
    int code = sqlite3_config(SQLITE_CONFIG_MULTITHREAD);
    if (code != SQLITE_OK) return code;
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
