/*
 * dir.h - directories.
 */
#ifndef PGOPT_DIR_H
#define PGOPT_DIR_H

/*
 * Create PATH and any missing parent (mode 0755, like `mkdir -p`); an
 * existing directory is fine.  Returns 0, or reports which directory could
 * not be made and why, and returns -1 with errno set.
 */
int mkdir_p(const char *path);

#endif
