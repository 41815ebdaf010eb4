#include "CStorageShims.h"

#include <sqlite3.h>
#include <stddef.h>

// The header read through the file object SQLite holds for the connection (its xRead method),
// never through a descriptor of our own: see CStorageShims.h.
int cstorage_file_header(sqlite3 *db, unsigned int *change_counter, int *write_ahead_log) {
    sqlite3_file *file = NULL;
    int code = sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &file);
    if (code != SQLITE_OK) return code;
    if (file == NULL || file->pMethods == NULL) return SQLITE_ERROR;
    unsigned char header[28];
    code = file->pMethods->xRead(file, header, (int)sizeof header, 0);
    // A file shorter than its header (empty, new) has no counter yet.
    if (code != SQLITE_OK) return code;
    *change_counter = ((unsigned int)header[24] << 24) | ((unsigned int)header[25] << 16) |
                      ((unsigned int)header[26] << 8) | (unsigned int)header[27];
    *write_ahead_log = header[18] == 2 || header[19] == 2;
    return SQLITE_OK;
}
