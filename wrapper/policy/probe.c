/*
 * probe.c - ask the real compiler whether it takes each flag of a policy,
 * with a cache per compiler; see probe.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wrapper/common/run-command.h"
#include "wrapper/common/safefs.h"
#include "wrapper/common/sha256.h"
#include "wrapper/common/strbuf.h"
#include "wrapper/common/xalloc.h"
#include "wrapper/policy/probe.h"

/* The answers known so far: flags[i] with why[i] ("" when it is taken). */
struct answers {
	struct strvec flags;  /* every flag asked */
	struct strvec why;    /* "" known, else the compiler's reason */
};

char *policy_probe_cache_dir(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	if (xdg && xdg[0] == '/')
		return xasprintf("%s/pgoptcc", xdg);
	if (home && home[0] == '/')
		return xasprintf("%s/.cache/pgoptcc", strcmp(home, "/") ? home : "");
	return NULL;
}

/*
 * The cache directory's descriptor: made (0700, with its parent) when
 * missing, and used only when it is the caller's and nobody else can
 * write it.  -1: no cache (nothing said: the check runs without one).
 */
static int open_cache(const char *dir)
{
	char *parent = xstrdup(dir), *slash = strrchr(parent, '/');

	if (slash && slash != parent) {
		*slash = '\0';
		if (mkdir(parent, 0700) < 0 && errno != EEXIST) {
			free(parent);
			return -1;
		}
	}
	free(parent);
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return -1;
	return sfs_open_anchor(dir, geteuid(), 1, NULL);
}

/* "flags-SHA256" of the compiler's identity, and the header line naming
 * it; NULL when its executable cannot be found. */
static char *cache_name(const char *compiler, struct strbuf *header)
{
	char real[PATH_MAX], hex[SHA256_HEX_SIZE];
	struct strbuf id = STRBUF_INIT;
	struct sha256 c;
	struct stat st;

	if (!realpath(compiler, real) || stat(real, &st) < 0)
		return NULL;
	strbuf_addf(&id, "%s\n%lld\n%lld.%09ld\n%llu\n%llu\n", real, (long long)st.st_size,
		    (long long)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec,
		    (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
	sha256_init(&c);
	sha256_update(&c, id.buf, id.len);
	sha256_final_hex(&c, hex);
	strbuf_addf(header, "# pgoptcc --pgopt-check-policy: the flags %s takes (size %lld, "
		    "modified %lld)\n", real, (long long)st.st_size, (long long)st.st_mtim.tv_sec);
	strbuf_release(&id);
	return xasprintf("flags-%s", hex);
}

/* The why of flag, or NULL when it was not asked yet. */
static const char *answer(const struct answers *a, const char *flag)
{
	long i = strvec_find(&a->flags, flag);
	return i < 0 ? NULL : a->why.v[i];
}

static void remember(struct answers *a, const char *flag, const char *why)
{
	strvec_push(&a->flags, flag);
	strvec_push(&a->why, why);
}

/* Take the lines of a cache file: "known\tFLAG", "unknown\tFLAG\tWHY";
 * anything else is skipped (asked again). */
static void parse_cache(struct answers *a, const char *text)
{
	char *copy = xstrdup(text), *save = NULL;

	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *flag = strchr(line, '\t'), *why;
		if (!flag)
			continue;
		*flag++ = '\0';
		why = strchr(flag, '\t');
		if (why)
			*why++ = '\0';
		if (!*flag || answer(a, flag))
			continue;
		if (!strcmp(line, "known") && !why)
			remember(a, flag, "");
		else if (!strcmp(line, "unknown") && why && *why)
			remember(a, flag, why);
	}
	free(copy);
}

/*
 * Run the compiler on flag: 0 with why "" (taken) or the first line of its
 * complaint, preferring the one that names the flag; -1 with why saying
 * that the compiler could not run at all.
 */
static int ask(struct policy_probe *pr, const char *flag, struct strbuf *why)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf out = STRBUF_INIT;
	const char *pick = NULL;
	int code;

	strvec_pushl(&cp.args, pr->compiler, "-Werror", flag, "-E", "-x", "c", "/dev/null", "-o",
		     "/dev/null", NULL);
	if (pr->env)
		strvec_pushv(&cp.env, (const char *const *)pr->env->v);
	strvec_push(&cp.env, "LC_ALL=C");
	cp.no_stdin = 1;
	code = capture_command(&cp, &out, 1);
	pr->runs++;
	if (code < 0 || cp.exec_errno) {
		strbuf_addf(why, "cannot run %s: %s", pr->compiler,
			    strerror(cp.exec_errno ? cp.exec_errno : errno));
		child_process_clear(&cp);
		strbuf_release(&out);
		return -1;
	}
	child_process_clear(&cp);
	if (code == 0) {
		strbuf_release(&out);
		return 0;
	}
	/* the line that names the flag, else the first one with text */
	for (char *line = out.buf, *end; line && *line; line = end ? end + 1 : NULL) {
		end = strchr(line, '\n');
		if (end)
			*end = '\0';
		if (!pick && *line)
			pick = line;
		if (strstr(line, flag)) {
			pick = line;
			break;
		}
	}
	if (pick) {
		for (const char *p = pick; *p; p++)
			strbuf_addch(why, *p == '\t' ? ' ' : *p);
		strbuf_trim(why);
	}
	if (!why->len)
		strbuf_addf(why, "it exits with status %d", code);
	strbuf_release(&out);
	return 0;
}

/* Linker options reach only the linker, which -E never runs. */
static int askable(const struct policy_op *op)
{
	return strncmp(op->flag, "-Wl,", 4) && strcmp(op->flag, "-Xlinker");
}

int policy_probe_flags(const struct policy *p, struct policy_probe *pr, struct strvec *errors)
{
	struct answers a = { STRVEC_INIT, STRVEC_INIT };
	struct strbuf header = STRBUF_INIT, text = STRBUF_INIT;
	char *name = NULL;
	int dfd = -1, unknown = 0, failed = 0;
	size_t from_cache;

	if (pr->cache_dir && (name = cache_name(pr->compiler, &header)) &&
	    (dfd = open_cache(pr->cache_dir)) >= 0) {
		if (sfs_read(dfd, name, SFS_IN_TEXT, SFS_NOFOLLOW, &text, NULL) >= 0)
			parse_cache(&a, text.buf);
		pr->cache_file = xasprintf("%s/%s", pr->cache_dir, name);
	}
	from_cache = a.flags.nr;
	for (size_t i = 0; i < p->nr_sections && !failed; i++)
		for (size_t j = 0; j < p->sections[i].nr_ops && !failed; j++) {
			const struct policy_op *op = &p->sections[i].ops[j];
			const char *why;
			if (!askable(op))
				continue;
			if (!(why = answer(&a, op->flag))) {
				struct strbuf w = STRBUF_INIT;
				if (ask(pr, op->flag, &w) < 0) {
					strvec_push(errors, w.buf);
					strbuf_release(&w);
					failed = 1;
					break;
				}
				remember(&a, op->flag, w.buf);
				strbuf_release(&w);
				why = answer(&a, op->flag);
			}
			if (*why) {
				strvec_pushf(errors, "%s:%d: %s %s %s: %s does not take it: %s", p->path,
					     op->line, op->link ? "ldflags" : "cflags",
					     op->add ? "+=" : "-=", op->flag, pr->compiler, why);
				unknown++;
			}
		}
	/* the new answers join the cache (a failure to write it changes
	 * nothing but the next check's cost) */
	if (dfd >= 0 && a.flags.nr > from_cache) {
		struct strbuf out = STRBUF_INIT;
		strbuf_add(&out, header.buf, header.len);
		for (size_t i = 0; i < a.flags.nr; i++) {
			if (*a.why.v[i])
				strbuf_addf(&out, "unknown\t%s\t%s\n", a.flags.v[i], a.why.v[i]);
			else
				strbuf_addf(&out, "known\t%s\n", a.flags.v[i]);
		}
		(void)sfs_write_atomic(dfd, name, out.buf, out.len, 0600, NULL);
		strbuf_release(&out);
	}
	if (dfd >= 0)
		close(dfd);
	free(name);
	strbuf_release(&header);
	strbuf_release(&text);
	strvec_clear(&a.flags);
	strvec_clear(&a.why);
	return failed ? -1 : unknown;
}

void policy_probe_release(struct policy_probe *pr)
{
	free(pr->cache_file);
	pr->cache_file = NULL;
}
