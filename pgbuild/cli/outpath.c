/*
 * outpath.c - every output path a command was given, checked before it
 * measures or builds anything; see cli.h.
 *
 * A result written at the end of an hour's work into a directory that does
 * not exist is an hour thrown away (gate --json into a missing directory
 * failed after its 21 s of measuring, and the verdict was lost).  So each
 * command checks, right after its options, that it will be able to write
 * there: the directory exists and a file can be created in it, checked by
 * creating and removing a probe file (O_CREAT | O_EXCL | O_NOFOLLOW).
 * access(2) cannot answer that: it says yes to root for any mode, and
 * nothing about a read-only file system.
 *
 * A file output (--json FILE) is written by renaming a temporary file over
 * FILE (write_file_atomic), so what matters is its directory, and that
 * FILE is not a directory.  A directory output (--prefix, --workdir) may
 * exist (then it must be a directory, and writable) or not (then the
 * nearest existing ancestor must be a writable directory: the command
 * makes the rest).  Nothing is left behind either way.
 *
 * A result (--json) may be "-", the standard output: nothing to check on
 * disk, and the standard output is the result's from then on
 * (result_stdout_claim).  A path that starts with "-" is the next option
 * getopt took as the value (`inspect --json --units`), refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pgbuild/cli/cli.h"
#include "pgbuild/pgbuild.h"

/* Create and remove a probe file in dir: 0, or -1 with errno set. */
static int probe_dir(const char *dir)
{
	static unsigned counter;
	for (int tries = 0; tries < 100; tries++) {
		char *probe = xasprintf("%s/.pgbuild-probe-%ld-%u", dir, (long)getpid(), counter++);
		int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		int e = errno;
		if (fd >= 0) {
			close(fd);
			unlink(probe);
			free(probe);
			return 0;
		}
		free(probe);
		if (e != EEXIST) {
			errno = e;
			return -1;
		}
	}
	errno = EEXIST;
	return -1;
}

/* The directory part of path ("." for a bare name), malloced. */
static char *parent_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return xstrdup(".");
	while (slash > path && slash[-1] == '/')
		slash--;
	return slash == path ? xstrdup("/") : xstrndup(path, (size_t)(slash - path));
}

/* dir exists, is a directory and takes a new file; else one error about
 * opt "path" naming dir. */
static int check_writable_dir(const char *opt, const char *path, const char *dir)
{
	struct stat st;
	if (stat(dir, &st) < 0) {
		if (errno == ENOENT)
			return error("%s \"%s\": directory %s does not exist", opt, path, dir);
		return error("%s \"%s\": %s: %s", opt, path, dir, strerror(errno));
	}
	if (!S_ISDIR(st.st_mode))
		return error("%s \"%s\": %s is not a directory", opt, path, dir);
	if (probe_dir(dir) < 0)
		return error("%s \"%s\": cannot create a file in %s: %s", opt, path, dir,
			     strerror(errno));
	return 0;
}

/* A value getopt took although it is an option, or "-" where the
 * standard output is no output: one error; else 0. */
static int check_dash(const char *opt, const char *path, const char *what)
{
	if (!strcmp(path, "-"))
		return error("%s \"-\": the standard output is an output of --json only: "
			     "expected a %s name (./- for one named -)", opt, what);
	if (path[0] == '-')
		return error("%s \"%s\": an option where a %s name was expected (./%s for "
			     "one of that name)", opt, path, what, path);
	return 0;
}

int cli_check_output_file(const char *opt, const char *path)
{
	struct stat st;
	size_t len = strlen(path);
	char *dir;
	int rc;

	if (!len)
		return error("%s \"\": expected a file name", opt);
	if (check_dash(opt, path, "file") < 0)
		return -1;
	if (path[len - 1] == '/')
		return error("%s \"%s\": names a directory (ends in /), expected a file name",
			     opt, path);
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return error("%s \"%s\": is a directory, expected a file name", opt, path);
	dir = parent_of(path);
	rc = check_writable_dir(opt, path, dir);
	free(dir);
	return rc;
}

int cli_check_output_dir(const char *opt, const char *path)
{
	struct stat st;
	char *dir;
	int rc;

	if (!*path)
		return error("%s \"\": expected a directory name", opt);
	if (check_dash(opt, path, "directory") < 0)
		return -1;
	if (stat(path, &st) == 0) {
		if (!S_ISDIR(st.st_mode))
			return error("%s \"%s\": exists and is not a directory", opt, path);
		return check_writable_dir(opt, path, path);
	}
	if (errno != ENOENT)
		return error("%s \"%s\": %s", opt, path, strerror(errno));
	/* the nearest ancestor that exists: the command makes the rest */
	dir = parent_of(path);
	while (strcmp(dir, "/") && strcmp(dir, ".") && stat(dir, &st) < 0 && errno == ENOENT) {
		char *up = parent_of(dir);
		free(dir);
		dir = up;
	}
	rc = check_writable_dir(opt, path, dir);
	free(dir);
	return rc;
}

/* The file path names, for comparing two outputs: its directory's real
 * name (it exists: checked) and its last component; malloced. */
static char *file_identity(const char *path)
{
	char *dir = parent_of(path), *real = realpath(dir, NULL), *id;
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	id = xasprintf("%s/%s", real ? real : dir, base);
	free(real);
	free(dir);
	return id;
}

int cli_check_outputs(const struct cli_output *outs)
{
	for (const struct cli_output *o = outs; o->opt; o++) {
		if (!o->path)
			continue;
		if (o->kind == CLI_OUT_KIND_RESULT && result_is_stdout(o->path)) {
			if (result_stdout_claim() < 0)
				return error("%s -: the standard output: %s", o->opt, strerror(errno));
			continue;
		}
		if ((o->kind == CLI_OUT_KIND_DIR ? cli_check_output_dir(o->opt, o->path) :
		     cli_check_output_file(o->opt, o->path)) < 0)
			return -1;
		/* two results into one file: the second would replace the first */
		for (const struct cli_output *p = outs; p < o && o->kind != CLI_OUT_KIND_DIR; p++) {
			char *a, *b;
			int same;
			if (!p->path || p->kind == CLI_OUT_KIND_DIR || result_is_stdout(p->path))
				continue;
			a = file_identity(p->path);
			b = file_identity(o->path);
			same = !strcmp(a, b);
			free(a);
			free(b);
			if (same)
				return error("%s \"%s\": the same file as %s \"%s\"", o->opt, o->path,
					     p->opt, p->path);
		}
	}
	return 0;
}

int cli_check_input(const char *opt, const char *path)
{
	struct stat st;
	if (access(path, R_OK) < 0)
		return error("%s \"%s\": %s", opt, path, strerror(errno));
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return error("%s \"%s\": is a directory, not a file", opt, path);
	return 0;
}
