#ifndef CSQLITESETUP_H
#define CSQLITESETUP_H

/// Sets SQLite's process-wide options before its first use: multi-thread mode (each
/// connection is used by one thread at a time, so SQLite need not lock on every call) and no
/// memory statistics (which take a global lock on every allocation). Returns 0 when applied,
/// or SQLite's error code when it was too late (SQLite already in use): it then keeps its
/// defaults, which are only slower.
int csqlite_setup_for_bulk_writes(void);

/// Starts writing the file's changed pages to the disk without waiting for them (Linux; does
/// nothing elsewhere), so that a later fsync has less left to wait for. Returns 0, or -1 with
/// errno set.
int csqlite_start_writeback(const char *path);

#endif
