#ifndef CSTORAGESHIMS_H
#define CSTORAGESHIMS_H

// The C calls GameStore needs and Swift cannot make: SQLite's variadic sqlite3_config
// (sqlite_config.c), Linux's sync_file_range (writeback.c), glibc's malloc_trim and huge pages
// (memory.c); and a read of the database header through SQLite's own file object, its method
// table walked as sqlite3.h declares it (sqlite_file_header.c).

/// Sets SQLite's process-wide options before its first use: multi-thread mode (each
/// connection is used by one thread at a time, so SQLite need not lock on every call) and no
/// memory statistics (which take a global lock on every allocation). Returns 0 when applied,
/// or SQLite's error code when it was too late (SQLite already in use): it then keeps its
/// defaults, which are only slower.
int cstorage_configure_sqlite_for_bulk_writes(void);

struct sqlite3;

/// Reads the header of the connection's main database file through the handle SQLite holds
/// (no descriptor of its own, whose closing would release the process's locks on the file):
/// the file change counter (bytes 24–27), which every transaction that writes the file in a
/// rollback-journal mode raises by one, and whether the file is in WAL mode (bytes 18–19),
/// where it does not. Returns 0 (SQLITE_OK), or SQLite's error code (a file shorter than its
/// header: SQLITE_IOERR_SHORT_READ).
int cstorage_file_header(struct sqlite3 *db, unsigned int *change_counter, int *write_ahead_log);

/// Starts writing the file's changed pages to the disk without waiting for them (Linux; does
/// nothing elsewhere), so that a later fsync has less left to wait for. Returns 0, or -1 with
/// errno set.
int cstorage_start_writeback(const char *path);

/// Gives the memory the allocator holds free back to the system (glibc; does nothing
/// elsewhere), so that work after a large one does not add to its peak.
void cstorage_release_free_memory(void);

/// Allocations of 1 MB and more are mapped on their own and given back when freed, whatever
/// was freed before (glibc otherwise raises that bound to the largest mapped block freed, up
/// to 32 MB, and serves blocks below it from the heaps, where growing buffers leave holes).
void cstorage_map_large_allocations(void);

/// Zeroed memory for a large table read and written at random (a filter, a bit set): aligned
/// and marked for huge pages (Linux), so that its pages do not each cost a TLB miss. NULL when
/// the memory cannot be had. Freed with `cstorage_free_table`.
void *cstorage_allocate_table(unsigned long bytes);

void cstorage_free_table(void *table);

#endif
