/*
 * buildlog.h - reading what a build left behind: the wrapper's compile log
 * (<builddir>/pgopt-log/compile.jsonl, one JSON object per compiler
 * invocation, appended by every build in that directory) and the build
 * record pgopt-build.json that `pgbuild build` writes into the build
 * directory and the prefix.  Used by build (progress, incremental
 * invalidation), verify and regress.
 */
#ifndef PGBUILD_BUILDLOG_H
#define PGBUILD_BUILDLOG_H

#include "wrapper/common/json.h"
#include "wrapper/common/strvec.h"

/* Name of the compile log inside the log directory. */
#define BUILDLOG_COMPILE "compile.jsonl"
/* Name of the build record in the build directory and the prefix. */
#define BUILDLOG_RECORD "pgopt-build.json"
/* Name of a build's layout noise floor in its prefix (`pgbuild noise`,
 * noise/floor.h). */
#define BUILDLOG_NOISE "pgopt-noise.json"

/*
 * Call fn for every record of the compile log at path, starting at line
 * first_line (1-based; 1 = all).  Lines that do not parse are skipped (a
 * build killed mid-write may leave half a line).  fn returns 0 to go on.
 * Returns the number of lines in the file, or -1 when it cannot be read
 * (the reason appended to err when err is not NULL: the log is read
 * through the bounded reader, a regular file of at most SFS_IN_COMPILE_LOG's
 * limit, never through a link).
 */
long buildlog_each(const char *path, long first_line,
		   int (*fn)(const struct json_value *rec, long line, void *data),
		   void *data, struct strbuf *err);

/* Number of complete lines in path (0 when missing). */
long buildlog_count_lines(const char *path);

/* Is rec a compile of one C translation unit (kind "compile", with or
 * without policy) that succeeded? */
int buildlog_is_compile(const struct json_value *rec);

/* Is rec a link (kind "link", with an output) that succeeded? */
int buildlog_is_link(const struct json_value *rec);

/* "<cwd>/<output>" of a record (output made absolute), malloced, or NULL. */
char *buildlog_output_path(const struct json_value *rec);

/* Parse a whole JSON file; NULL after printing an error. */
struct json_value *buildlog_read_json(const char *path);

/*
 * A compile log directory pgbuild reads what it decides by from (verify
 * --log, report --log, bundle --log), which what names in the error: as
 * root, one that another user owns or can write is refused, with the rule
 * and sentence of --workdir (sfs_root_only).  Not root, or a directory
 * that cannot be opened (left to the caller's own error): 0.  -1 after the
 * error.
 */
int buildlog_dir_check(const char *what, const char *dir);

/* ---------------- a build record's environment ---------------- */

/*
 * What a build record's "environment" may give a later replay of the
 * build's compiles (verify, regress): the record is data that anyone may
 * have written, so it is never exported as a whole.  Each name has a
 * check; a name outside this table, or a value that fails its check, is
 * named in a warning and ignored:
 *
 *   PGOPT_POLICY   the build's policy: an absolute path (regress)
 *   PGOPT_LOGDIR   the build's log directory: an absolute path (regress)
 *   PGOPT_PROFILE  pgbuild pgo's profile mode, which adds the profile
 *                  flags the replay must expect: parsed by pgoptcc's own
 *                  parser (policy_profile_parse)
 *   PGOPT_BUNDLE   a profile bundle (build --bundle), whose profile-use
 *                  flags the replay must expect: an absolute path of a
 *                  directory, which as root only root can write
 *   PGOPT_CC       the compiler the build ran: compared with the one the
 *                  replay runs (the caller's), never run
 *
 * PGOPT_PREFIX and CCACHE_DIR, which pgbuild build records too, are of no
 * use to a replay: left out without a warning.  LD_PRELOAD, PATH,
 * GCONV_PATH, BASH_ENV and every other name are never taken.
 */
struct buildlog_env {
	char *policy;   /* PGOPT_POLICY, or NULL */
	char *logdir;   /* PGOPT_LOGDIR, or NULL */
	char *profile;  /* PGOPT_PROFILE, or NULL */
	char *bundle;   /* PGOPT_BUNDLE, or NULL */
	char *cc;       /* PGOPT_CC (only to compare), or NULL */
};

/* Fill e from rec's "environment" (what: the record, for warnings). */
void buildlog_env_read(const struct json_value *rec, const char *what, struct buildlog_env *e);
void buildlog_env_release(struct buildlog_env *e);

/* ---------------- objects and their compiles ---------------- */

/* The last successful compile of one object file. */
struct buildlog_obj {
	char *path;             /* absolute output path */
	char *tu;               /* translation unit */
	char *cwd;              /* where it was compiled */
	char *compiler;         /* the compiler the log says ran, or NULL
				 * (data: compared, never run) */
	struct strvec argv_in;  /* what make passed to pgoptcc */
	char *argv_out;         /* final command line without PGOPT_PREFIX
				 * words, '\x1f'-joined, for comparing */
	struct strvec added;    /* flags the policy added */
	struct strvec removed;  /* flags the policy removed */
	long line;              /* compile-log line */
};

struct buildlog_objs {
	struct buildlog_obj *v; /* sorted by path after buildlog_objs_read */
	size_t nr, alloc;
	const char *from, *to;  /* rewrite from -> to inside argv_out */
	int links;              /* collect successful links (kind "link";
				 * tu is then the output's name) instead
				 * of compiles */
};

/*
 * Read the compile records (the link records when os->links is set) of
 * logfile into os, keeping the last record of
 * each output (and, when existing_only, only outputs that still exist),
 * sorted by path.  Occurrences of from in the final command line are
 * rewritten to to (a replay's log directory -> the build's).
 */
void buildlog_objs_read(struct buildlog_objs *os, const char *logfile,
			const char *from, const char *to, int existing_only);
void buildlog_objs_free(struct buildlog_objs *os);
void buildlog_obj_free(struct buildlog_obj *o);
struct buildlog_obj *buildlog_objs_find(struct buildlog_objs *os, const char *path);

/*
 * Replay the compile of every object through pgoptcc (argv_in, in its cwd)
 * with env plus PGOPT_PREFIX=true and PGOPT_LOGDIR=drydir: pgoptcc computes
 * and logs the final command line under the policy in env, but only `true`
 * runs.  The compiler pgoptcc asks (what it is decides some flags) is cc,
 * the caller's, given as pgoptcc's compiler word (`pgoptcc CC ARGV_IN`)
 * and as PGOPT_CC: a compiler word or --pgopt-cc= leading argv_in is then
 * an argument of that compiler, never a program pgoptcc runs.  jobs at a
 * time; no shell.  Returns 0, or -1 after printing pgoptcc's error.
 */
int buildlog_replay(const struct buildlog_objs *os, const char *cc, const struct strvec *env,
		    int jobs, const char *drydir);

#endif
